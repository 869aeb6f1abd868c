/// A longitude/latitude box (GeoJSON's `bbox`, RFC 7946 §5): west, south, east, north.
///
/// `west > east` means the box crosses the antimeridian: it holds longitudes ≥ west and ≤ east.
public struct BoundingBox: Hashable, Sendable {
    /// Westernmost longitude, −180…180.
    public var west: Double
    /// Southernmost latitude, −90…90.
    public var south: Double
    /// Easternmost longitude, −180…180; less than `west` across the antimeridian.
    public var east: Double
    /// Northernmost latitude, at least `south`.
    public var north: Double

    /// A box with no checks; use ``init(validatingWest:south:east:north:)`` for input.
    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// A box from untrusted input: finite degrees in range, `south ≤ north`.
    public init(validatingWest west: Double, south: Double, east: Double, north: Double) throws(FieldError) {
        try FieldError.check(west, field: "west", in: -180...180)
        try FieldError.check(south, field: "south", in: -90...90)
        try FieldError.check(east, field: "east", in: -180...180)
        try FieldError.check(north, field: "north", in: -90...90)
        guard south <= north else {
            throw FieldError(path: ["north"], message: "must not be south of south (\(south.shortDescription)), got \(north.shortDescription)")
        }
        self.init(west: west, south: south, east: east, north: north)
    }

    /// The query form of a bbox, `minLon,minLat,maxLon,maxLat` in plain decimal degrees within
    /// range (the contract's `pattern`, word for word).
    public static let queryPattern: String = {
        let longitude = #"-?(180(\.0+)?|(1[0-7][0-9]|[1-9]?[0-9])(\.[0-9]+)?)"#
        let latitude = #"-?(90(\.0+)?|[1-8]?[0-9](\.[0-9]+)?)"#
        // `(?!\n)`: Python's `$` (which schemathesis uses) also matches before a final newline.
        return "^\(longitude),\(latitude),\(longitude),\(latitude)$(?!\\n)"
    }()

    nonisolated(unsafe) private static let queryRegex = try! Regex(queryPattern)

    /// Parses `minLon,minLat,maxLon,maxLat`, the query form of a bbox (``queryPattern``). A box
    /// whose south lies north of its north holds nothing.
    public init(parsing text: String) throws(FieldError) {
        guard (try? Self.queryRegex.wholeMatch(in: text)) != nil else {
            throw FieldError(path: [], message: "must be minLon,minLat,maxLon,maxLat in decimal degrees within ±180 and ±90, e.g. 170,-20,-170,-10")
        }
        let numbers = text.split(separator: ",").compactMap { Double($0) }
        self.init(west: numbers[0], south: numbers[1], east: numbers[2], north: numbers[3])
    }

    /// Whether the box holds no coordinate (its south lies north of its north).
    public var isEmpty: Bool { south > north }

    /// Whether the box crosses the 180th meridian (`west > east`).
    public var crossesAntimeridian: Bool { west > east }

    /// Whether `coordinate` lies in the box, edges included.
    public func contains(_ coordinate: Coordinate) -> Bool {
        guard coordinate.latitude >= south, coordinate.latitude <= north else { return false }
        if crossesAntimeridian { return coordinate.longitude >= west || coordinate.longitude <= east }
        return (west...east).contains(coordinate.longitude)
    }

    /// Whether the two boxes share a coordinate (edges included), either or both across 180°.
    public func meets(_ other: BoundingBox) -> Bool {
        guard !isEmpty, !other.isEmpty, south <= other.north, other.south <= north else { return false }
        func spans(_ box: BoundingBox) -> [ClosedRange<Double>] {
            box.crossesAntimeridian ? [box.west...180, -180...box.east] : [box.west...box.east]
        }
        return spans(self).contains { a in spans(other).contains(where: a.overlaps) }
    }
}
