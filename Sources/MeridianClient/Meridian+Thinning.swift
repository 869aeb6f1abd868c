/// What a thin request asks for besides the view (every member optional: the server's default).
public struct ThinOptions: Sendable {
    /// Grid cell side in screen points (16…512, rounded to a power of two; default 64).
    public var cellSize: Int?
    /// Only these kinds.
    public var kinds: [String]?
    /// Only these clustering identifiers.
    public var clusteringIdentifiers: [String]?
    /// Only annotations of at least this `displayPriority` (0…1000).
    public var minDisplayPriority: Int?
    /// Only what this CQL2-Text filter matches (`kind = 'shop' AND displayPriority > 600`).
    public var filter: String?
    /// At most this many items (default 1 000; required annotations first).
    public var limit: Int?

    /// Options; nil members leave the server's default.
    public init(
        cellSize: Int? = nil, kinds: [String]? = nil, clusteringIdentifiers: [String]? = nil,
        minDisplayPriority: Int? = nil, filter: String? = nil, limit: Int? = nil
    ) {
        self.cellSize = cellSize
        self.kinds = kinds
        self.clusteringIdentifiers = clusteringIdentifiers
        self.minDisplayPriority = minDisplayPriority
        self.filter = filter
        self.limit = limit
    }
}

extension Meridian {
    /// The annotations that fit a view showing `visibleMapRect` (map points, as `MKMapView.visibleMapRect`)
    /// at `size` (screen points, the view's bounds), and clusters for the rest.
    /// - Parameter heading: the camera heading, degrees clockwise from north.
    public func thin(
        visibleMapRect: Components.Schemas.MapRectInput, size: Components.Schemas.ViewSize, heading: Double? = nil,
        options: ThinOptions = ThinOptions()
    ) async throws -> Components.Schemas.ThinAnswer {
        try await thin(.showing(visibleMapRect, size: size, heading: heading), options: options)
    }

    /// The annotations that fit a view showing `region` (fitted to the view's aspect, as
    /// `MKMapView.regionThatFits`) at `size`, and clusters for the rest.
    public func thin(
        region: Components.Schemas.Region, size: Components.Schemas.ViewSize, heading: Double? = nil,
        options: ThinOptions = ThinOptions()
    ) async throws -> Components.Schemas.ThinAnswer {
        try await thin(.showing(region, size: size, heading: heading), options: options)
    }

    /// The annotations that fit `viewport`, and clusters for the rest.
    public func thin(_ viewport: Components.Schemas.Viewport, options: ThinOptions = ThinOptions()) async throws -> Components.Schemas.ThinAnswer {
        let request = Components.Schemas.ThinRequest(
            viewport: viewport, cellSize: options.cellSize, kinds: options.kinds,
            clusteringIdentifiers: options.clusteringIdentifiers, minDisplayPriority: options.minDisplayPriority,
            filter: options.filter.map { .init(value1: .case3($0)) }, limit: options.limit
        )
        let output = try await api.thinAnnotations(body: .json(request))
        guard case .ok(let ok) = output else { throw MeridianError(answer: output) }
        return try ok.body.json
    }
}

extension Components.Schemas.ThinAnswer {
    /// The single annotations of a whole answer (a delta's are in `added` and `changed`), each with where it is on screen.
    public var annotations: [Components.Schemas.ThinAnnotationItem] {
        (items ?? []).compactMap { if case .annotation(let item) = $0 { item } else { nil } }
    }

    /// The clusters of a whole answer, each with its count, bounds and where its centroid is on screen.
    public var clusters: [Components.Schemas.ThinClusterItem] {
        (items ?? []).compactMap { if case .cluster(let item) = $0 { item } else { nil } }
    }
}
