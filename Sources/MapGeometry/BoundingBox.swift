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

    /// Parses `minLon,minLat,maxLon,maxLat`, the query form of a bbox.
    public init(parsing text: String) throws(FieldError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Double($0) }
        guard parts.count == 4, numbers.count == 4 else {
            throw FieldError(path: [], message: "must be four numbers: minLon,minLat,maxLon,maxLat")
        }
        try self.init(validatingWest: numbers[0], south: numbers[1], east: numbers[2], north: numbers[3])
    }

    /// Whether the box crosses the 180th meridian (`west > east`).
    public var crossesAntimeridian: Bool { west > east }

    /// Whether `coordinate` lies in the box, edges included.
    public func contains(_ coordinate: Coordinate) -> Bool {
        guard (south...north).contains(coordinate.latitude) else { return false }
        if crossesAntimeridian { return coordinate.longitude >= west || coordinate.longitude <= east }
        return (west...east).contains(coordinate.longitude)
    }
}
