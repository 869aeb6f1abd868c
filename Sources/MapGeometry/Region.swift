/// Degrees of latitude and longitude a region covers (MapKit's `MKCoordinateSpan`).
public struct Span: Hashable, Sendable {
    /// North–south extent in degrees, 0…180.
    public var latitudeDelta: Double
    /// East–west extent in degrees, 0…360.
    public var longitudeDelta: Double

    /// A span with no checks.
    public init(latitudeDelta: Double, longitudeDelta: Double) {
        self.latitudeDelta = latitudeDelta
        self.longitudeDelta = longitudeDelta
    }

    /// A span from untrusted input: finite, not negative, at most 180° by 360°.
    public init(validatingLatitudeDelta latitudeDelta: Double, longitudeDelta: Double) throws(FieldError) {
        try FieldError.check(latitudeDelta, field: "latitudeDelta", in: 0...180)
        try FieldError.check(longitudeDelta, field: "longitudeDelta", in: 0...360)
        self.init(latitudeDelta: latitudeDelta, longitudeDelta: longitudeDelta)
    }
}

/// A center and a span (MapKit's `MKCoordinateRegion`).
public struct Region: Hashable, Sendable {
    /// The region's center.
    public var center: Coordinate
    /// The region's extent in degrees.
    public var span: Span

    /// A region; its parts are validated where they are made.
    public init(center: Coordinate, span: Span) {
        self.center = center
        self.span = span
    }

    /// Degrees of latitude of the northern edge (may pass 90 for regions over the pole).
    public var north: Double { center.latitude + span.latitudeDelta / 2 }
    /// Degrees of latitude of the southern edge.
    public var south: Double { center.latitude - span.latitudeDelta / 2 }
    /// Degrees of longitude of the western edge, not wrapped (may be below −180).
    public var west: Double { center.longitude - span.longitudeDelta / 2 }
    /// Degrees of longitude of the eastern edge, not wrapped (may pass 180).
    public var east: Double { center.longitude + span.longitudeDelta / 2 }
}
