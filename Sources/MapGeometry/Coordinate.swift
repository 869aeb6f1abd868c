/// A WGS84 position, in degrees (MapKit's `CLLocationCoordinate2D`).
///
/// `latitude` is north-positive (−90…90), `longitude` east-positive (−180…180).
public struct Coordinate: Hashable, Sendable {
    /// Degrees north of the equator, −90…90.
    public var latitude: Double
    /// Degrees east of Greenwich, −180…180.
    public var longitude: Double

    /// A coordinate with no checks; use ``init(validatingLatitude:longitude:)`` for input.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// A coordinate from untrusted input: finite, latitude within ±90, longitude within ±180
    /// (both ends accepted).
    public init(validatingLatitude latitude: Double, longitude: Double) throws(FieldError) {
        try FieldError.check(latitude, field: "latitude", in: -90...90)
        try FieldError.check(longitude, field: "longitude", in: -180...180)
        self.init(latitude: latitude, longitude: longitude)
    }

    /// The same place with its longitude wrapped into −180…180 (180 stays 180).
    public var wrapped: Coordinate {
        Coordinate(latitude: latitude, longitude: Self.wrapLongitude(longitude))
    }

    /// Wraps any longitude into −180…180; values already in range are returned unchanged.
    public static func wrapLongitude(_ longitude: Double) -> Double {
        if longitude >= -180 && longitude <= 180 { return longitude }
        let wrapped = (longitude + 180).truncatingRemainder(dividingBy: 360)
        return (wrapped < 0 ? wrapped + 360 : wrapped) - 180
    }
}
