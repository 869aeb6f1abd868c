import Foundation
import Annotations
import WireJSON
public import MapGeometry

/// A thinning request, checked: the view, the grid its zoom uses, the filter and the limit. Every
/// bad field is listed in one ``FieldErrors`` (paths as in the request body).
public struct ThinningQuery: Sendable {
    /// Items per answer when the request names no limit.
    public static let defaultLimit = 1000
    /// The limits a request may ask for.
    public static let limits = 1...10_000
    /// Most values a `kinds` or `clusteringIdentifiers` filter may list.
    public static let maxFilterValues = 16
    /// Most grid cells one answer may cover (the view's extent in cells plus one partial cell each
    /// side): 65 536, as a square view of 4 064 points at 16-point cells, or of 8 192 points (the
    /// largest view) at 64-point cells. A 1024×768 view at the default cell size covers about 221.
    public static let maxCells = 65_536

    /// Most properties one request may aggregate.
    public static let maxAggregatedProperties = 8

    public var viewport: Viewport
    public var grid: ThinningGrid
    public var filter: ThinningFilter
    public var options: ThinningOptions
    /// Per aggregated property (``ThinningOptions/aggregates``), the aggregates the answer writes.
    public var aggregateKinds: [String: [AggregateKind]]
    public var limit: Int
    /// The `deltaToken` of an earlier answer the client holds (1…``maxTokenLength`` characters).
    public var since: String?
    public static let maxTokenLength = 64

    /// - Parameters:
    ///   - viewport: reads the view from the request (its errors are under `viewport`).
    ///   - aggregates: per numeric property, the aggregates each item carries.
    public init(
        viewport readViewport: () throws(FieldError) -> Viewport, cellSize: Int?, limit: Int?, filter: ThinningFilter,
        maxZoom: Int? = nil, weight: String? = nil, aggregates: [String: Set<AggregateKind>] = [:], since: String? = nil
    ) throws(FieldErrors) {
        var errors = FieldErrors()
        if let since, !(1...Self.maxTokenLength).contains(since.unicodeScalars.count) {
            errors.record(at: ["since"], "must be a deltaToken: 1 to \(Self.maxTokenLength) characters")
        }
        if let maxZoom, !ThinningGrid.zoomLevels.contains(maxZoom) {
            errors.record(at: ["maxZoom"], "must be \(Self.range(ThinningGrid.zoomLevels)), got \(maxZoom)")
        }
        let keyLength = AnnotationContent.Limits.maxKeyLength
        if let weight, weight.isEmpty || weight.unicodeScalars.count > keyLength { errors.record(at: ["weight"], "must be 1 to \(keyLength) characters") }
        for error in Self.aggregateErrors(aggregates) { errors.record(error) }
        let cellSize = cellSize ?? ThinningGrid.defaultCellSize
        if !ThinningGrid.cellSizes.contains(cellSize) {
            errors.record(at: ["cellSize"], "must be \(Self.range(ThinningGrid.cellSizes)), got \(cellSize)")
        }
        let limit = limit ?? Self.defaultLimit
        if !Self.limits.contains(limit) { errors.record(at: ["limit"], "must be \(Self.range(Self.limits)), got \(limit)") }
        let priorities = 0...AnnotationContent.requiredDisplayPriority
        if let priority = filter.minDisplayPriority, !priorities.contains(priority) {
            errors.record(at: ["minDisplayPriority"], "must be \(Self.range(priorities)), got \(priority)")
        }
        // Filter values name keys, so they have keys' limits; their count keeps a cluster id short.
        for (field, values) in [("kinds", filter.kinds), ("clusteringIdentifiers", filter.clusteringIdentifiers)] {
            guard let values else { continue }
            if values.count > Self.maxFilterValues { errors.record(at: [field], "must have at most \(Self.maxFilterValues) values, got \(values.count)") }
            // Code points, as the contract's maxLength counts them (and so at most 1 024 UTF-8 bytes).
            if values.contains(where: { $0.unicodeScalars.count > keyLength }) {
                errors.record(at: [field], "values must be at most \(keyLength) characters")
            }
        }
        if let matching = filter.matching, case let bytes = matching.json.canonicalByteCount, bytes > ClusterID.maxFilterBytes {
            errors.record(at: ["filter"], "is \(bytes) bytes as compact CQL2-JSON; a thinning filter is named in its cluster ids, so at most \(ClusterID.maxFilterBytes)")
        }
        let read = errors.value(at: ["viewport"], readViewport)
        let viewport = try errors.check(read)
        // Views zoomed past the last grid (22, where only coincident points still share a cell) use it.
        let levels = ThinningGrid.zoomLevels
        let grid = ThinningGrid(zoom: min(max(Int(viewport.zoomLevel.rounded(.down)), levels.lowerBound), levels.upperBound), cellSize: cellSize)
        let rect = viewport.visibleMapRect, side = exp2(Double(grid.level))
        // Cells a view touches: its extent in cells (at most the world) plus one partial cell each side.
        let columns = min(rect.size.width, Mercator.worldSize) / side + 2, rows = min(rect.size.height, Mercator.worldSize) / side + 2
        guard columns * rows <= Double(Self.maxCells) else {
            throw FieldErrors([FieldError(path: ["viewport", "size"], message: "covers \(Int(columns * rows)) grid cells; at most \(Self.maxCells) (a smaller view or a larger cellSize)")])
        }
        self.viewport = viewport
        self.grid = grid
        self.limit = limit
        self.filter = filter
        options = ThinningOptions(maxZoom: maxZoom, weight: weight, aggregates: aggregates.keys.sorted())
        aggregateKinds = aggregates.mapValues { $0.sorted() }
        self.since = since
    }

    /// What is wrong with an `aggregates` request (paths under `aggregates`): more than
    /// ``maxAggregatedProperties`` properties, a name not of keys' length, a property with no aggregate.
    public static func aggregateErrors(_ aggregates: [String: Set<AggregateKind>]) -> [FieldError] {
        let keyLength = AnnotationContent.Limits.maxKeyLength
        var errors: [FieldError] = []
        if aggregates.count > maxAggregatedProperties {
            errors.append(FieldError(path: ["aggregates"], message: "may name at most \(maxAggregatedProperties) properties, got \(aggregates.count)"))
        }
        for (name, kinds) in aggregates.sorted(by: { $0.key < $1.key }) {
            if name.isEmpty || name.unicodeScalars.count > keyLength {
                errors.append(FieldError(path: ["aggregates", name], message: "property names must be 1 to \(keyLength) characters"))
            } else if kinds.isEmpty {
                errors.append(FieldError(path: ["aggregates", name], message: "must name at least one aggregate"))
            }
        }
        return errors
    }

    private static func range(_ range: ClosedRange<Int>) -> String { "\(range.lowerBound)…\(range.upperBound)" }
}
