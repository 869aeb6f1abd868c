public import Annotations
public import MapGeometry
public import Timeline
public import WireJSON

/// What the thinning index keeps of an annotation.
public struct ThinningEntry: Hashable, Sendable {
    public var id: AnnotationID
    /// Mercator map point (x in 0..<2^28).
    public var point: MapPoint
    /// The annotation's own coordinate (the map point clamps latitudes beyond ±85.05°).
    public var coordinate: Coordinate
    /// The annotation's version (0 when not known): what a cached copy of it must match.
    public var version: Int
    public var kind: String?
    public var clusteringIdentifier: String?
    public var displayPriority: Int
    /// The annotation's free properties that are finite numbers, by name, for the index's property
    /// columns (aggregates and weights); nil when the reader did not read them (a snapshot at
    /// start-up, before any column exists: a column reads its values itself when it is built).
    public var numbers: [String: Double]?

    public init(
        id: AnnotationID, coordinate: Coordinate, kind: String?, clusteringIdentifier: String?, displayPriority: Int, version: Int = 0,
        numbers: [String: Double]? = nil
    ) {
        self.init(
            id: id, point: Mercator.mapPoint(for: coordinate), coordinate: coordinate, kind: kind,
            clusteringIdentifier: clusteringIdentifier, displayPriority: displayPriority, version: version)
        self.numbers = numbers
    }

    init(id: AnnotationID, point: MapPoint, coordinate: Coordinate, kind: String?, clusteringIdentifier: String?, displayPriority: Int, version: Int = 0) {
        self.id = id
        self.point = point
        self.coordinate = coordinate
        self.version = version
        self.kind = kind
        self.clusteringIdentifier = clusteringIdentifier
        self.displayPriority = displayPriority
    }

    public init(_ annotation: Annotation) {
        self.init(
            id: annotation.id, coordinate: annotation.content.coordinate, kind: annotation.content.kind,
            clusteringIdentifier: annotation.content.clusteringIdentifier, displayPriority: annotation.content.displayPriority,
            version: annotation.version, numbers: Self.numbers(of: annotation.content.properties))
    }

    /// The members of `properties` that are finite numbers.
    public static func numbers(of properties: [String: JSONValue]) -> [String: Double] {
        var numbers: [String: Double] = [:]
        for (name, value) in properties {
            if case .number(let number) = value, number.double.isFinite { numbers[name] = number.double }
        }
        return numbers
    }
}

/// Which annotations take part in a thinning answer; applied before clustering.
public struct ThinningFilter: Hashable, Sendable {
    /// Only these kinds (annotations without a kind are left out); nil for all.
    public var kinds: Set<String>?
    /// Only these clustering identifiers (annotations without one are left out); nil for all.
    public var clusteringIdentifiers: Set<String>?
    /// Only annotations with at least this display priority.
    public var minDisplayPriority: Int?
    /// Only annotations this CQL2 filter matches. A ``ThinningIndex`` does not apply it (it is
    /// answered by an index of only those, ``FilteredThinning``); its clusters' ids name it.
    public var matching: Filter?

    public init(kinds: Set<String>? = nil, clusteringIdentifiers: Set<String>? = nil, minDisplayPriority: Int? = nil, matching: Filter? = nil) {
        self.kinds = kinds
        self.clusteringIdentifiers = clusteringIdentifiers
        self.minDisplayPriority = minDisplayPriority
        self.matching = matching
    }
}

/// How clusters are made and what they carry, besides which annotations take part.
public struct ThinningOptions: Hashable, Sendable {
    /// The last zoom that clusters: past it every annotation is its own item (supercluster's
    /// `maxZoom`), and a cluster's expansion zoom is at most one more. Nil: every zoom clusters.
    public var maxZoom: Int?
    /// A numeric property that weighs the members: centroids are weighted means and each cluster
    /// sums the weights (``PropertyAggregate/weight(of:)``).
    public var weight: String?
    /// Numeric properties whose aggregates each cluster carries.
    public var aggregates: [String]

    public init(maxZoom: Int? = nil, weight: String? = nil, aggregates: [String] = []) {
        // The last grid's zoom clusters anyway: naming it (or more) changes nothing.
        self.maxZoom = maxZoom.flatMap { $0 < ThinningGrid.zoomLevels.upperBound ? $0 : nil }
        self.weight = weight
        self.aggregates = aggregates
    }

    /// The properties whose columns an answer reads.
    public var properties: Set<String> { Set(aggregates + (weight.map { [$0] } ?? [])) }
}

/// A group of annotations shown as one item.
public struct ThinnedCluster: Hashable, Sendable {
    public var id: ClusterID
    public var count: Int
    /// Mean map point of the members (x may lie outside 0..<2^28 next to the antimeridian).
    public var centroid: MapPoint
    /// The members' bounding map rect (may span the antimeridian).
    public var bounds: MapRect
    /// The first zoom at which the members no longer share one item; nil for a stack that never splits up to zoom 22.
    public var expansionZoom: Int?
    /// The members' kinds and how many have each (annotations without a kind are not listed).
    public var kinds: KindCounts
    /// The member with the highest display priority, the oldest among equals.
    public var representative: AnnotationID
    /// The sum of the members' weights when the answer is weighted (``ThinningOptions/weight``).
    public var weight: Double?
    /// The aggregates of the properties the answer asked for, by property.
    public var aggregates: [String: PropertyAggregate] {
        get {
            var aggregates: [String: PropertyAggregate] = [:]
            for name in aggregateRow?.names ?? [] { aggregates[name] = aggregateRow?.aggregate(name) }
            return aggregates
        }
        set {
            let names: [String] = newValue.keys.sorted()
            guard !names.isEmpty else { aggregateRow = nil; return }
            var values: [ValueStats] = []
            for name in names { values.append(ValueStats(aggregate: newValue[name]!)) }
            aggregateRow = AggregateRow(table: AggregateTable.make(names: names, values: values), row: 0)
        }
    }
    /// ``aggregates`` as a row of its answer's table; nil when none were asked for.
    var aggregateRow: AggregateRow?

    /// The aggregate of `property`, if it was asked for.
    public func aggregate(_ property: String) -> PropertyAggregate? {
        aggregateRow?.aggregate(property)
    }

    public var clusteringIdentifier: String? { id.clusteringIdentifier }

    /// ``kinds`` as a dictionary.
    public var kindCounts: [String: Int] { kinds.dictionary }

    public init(id: ClusterID, count: Int, centroid: MapPoint, bounds: MapRect, expansionZoom: Int?, kindCounts: [String: Int], representative: AnnotationID) {
        self.init(id: id, count: count, centroid: centroid, bounds: bounds, expansionZoom: expansionZoom, kinds: KindCounts(kindCounts), representative: representative)
    }

    init(
        id: ClusterID, count: Int, centroid: MapPoint, bounds: MapRect, expansionZoom: Int?, kinds: KindCounts, representative: AnnotationID,
        weight: Double? = nil, aggregateRow: AggregateRow? = nil
    ) {
        self.id = id
        self.count = count
        self.centroid = centroid
        self.bounds = bounds
        self.expansionZoom = expansionZoom
        self.kinds = kinds
        self.representative = representative
        self.weight = weight
        self.aggregateRow = aggregateRow
    }
}

/// How many members of a cluster have each kind. Most clusters hold one kind or none, which this
/// keeps without a dictionary (a thin answer makes hundreds of clusters).
public struct KindCounts: Hashable, Sendable {
    /// The one kind, when there is exactly one.
    private var kind: String?
    private var count = 0
    /// Two kinds or more.
    private var many: [String: Int]?

    public init(_ counts: [String: Int]) {
        if counts.count == 1, let (kind, count) = counts.first { (self.kind, self.count) = (kind, count) } else if counts.count > 1 { many = counts }
    }

    init(kind: String?, count: Int) {
        if let kind, count > 0 { (self.kind, self.count) = (kind, count) }
    }

    public var dictionary: [String: Int] {
        if let many { return many }
        return kind.map { [$0: count] } ?? [:]
    }

    /// Calls `body` for each kind in ascending order.
    public func forEachSorted(_ body: (String, Int) -> Void) {
        if let kind { body(kind, count); return }
        for (kind, count) in (many ?? [:]).sorted(by: { $0.key < $1.key }) { body(kind, count) }
    }
}

/// One item of a thinning answer.
public enum ThinnedItem: Hashable, Sendable {
    /// An annotation shown by itself, at its map point.
    case annotation(AnnotationID, MapPoint)
    case cluster(ThinnedCluster)
}

/// A thinning answer: every item of the grid cells the view touches.
public struct ThinningResult: Hashable, Sendable {
    public var grid: ThinningGrid
    public var items: [ThinnedItem]
    /// The limit cut the list (required annotations first, then items by count).
    public var truncated: Bool
}

/// Where the next page of a cluster's members starts: after this member.
public struct LeafCursor: Hashable, Sendable, CustomStringConvertible {
    var code: UInt64
    var id: AnnotationID

    public var description: String {
        var bytes: [UInt8] = []
        for word in [code, id.high, id.low] { for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) } }
        return Base64URL.encode(bytes)
    }

    public init?(_ text: String) {
        guard let bytes = Base64URL.decode(text), bytes.count == 24 else { return nil }
        func word(_ i: Int) -> UInt64 { bytes[i * 8..<(i + 1) * 8].reduce(0) { $0 << 8 | UInt64($1) } }
        code = word(0)
        id = AnnotationID(high: word(1), low: word(2))
    }

    init(code: UInt64, id: AnnotationID) {
        self.code = code
        self.id = id
    }
}
