#if canImport(MapKit)
public import MapKit

// MapKit's own types where the contract's stand for them. MapKit's map points are the server's (a
// world 2^28 points wide, origin north-west, y south), so a map rect passes unchanged.

extension Components.Schemas.MapRectInput {
    /// `rect` (as `MKMapView.visibleMapRect` gives it).
    public init(_ rect: MKMapRect) {
        self.init(origin: .init(x: rect.origin.x, y: rect.origin.y), size: .init(width: rect.size.width, height: rect.size.height))
    }
}

extension Components.Schemas.ViewSize {
    /// A view's size in points (`bounds.size`).
    public init(_ size: CGSize) {
        self.init(width: Double(size.width), height: Double(size.height))
    }
}

extension Components.Schemas.Region {
    /// `region` (as `MKMapView.region` gives it).
    public init(_ region: MKCoordinateRegion) {
        self.init(
            center: .init(latitude: region.center.latitude, longitude: region.center.longitude),
            span: .init(latitudeDelta: region.span.latitudeDelta, longitudeDelta: region.span.longitudeDelta)
        )
    }
}

extension Components.Schemas.Coordinate {
    /// The coordinate as Core Location has it (an `MKAnnotation`'s `coordinate`).
    public var locationCoordinate: CLLocationCoordinate2D {
        CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
    }
}

extension Components.Schemas.Fix {
    /// A fix from Core Location (what `CLLocationManager` delivers); the measurements it marks
    /// invalid (a negative speed, course or vertical accuracy) are left out.
    public init(_ location: CLLocation) {
        self.init(
            latitude: location.coordinate.latitude, longitude: location.coordinate.longitude, at: location.timestamp,
            horizontalAccuracy: location.horizontalAccuracy,
            speed: location.speed >= 0 ? location.speed : nil, course: location.course >= 0 ? location.course : nil,
            altitude: location.verticalAccuracy >= 0 ? location.altitude : nil,
            verticalAccuracy: location.verticalAccuracy >= 0 ? location.verticalAccuracy : nil
        )
    }
}

extension Meridian {
    /// The annotations that fit what `mapView` shows now (its `visibleMapRect` at its size), and
    /// clusters for the rest: call it from `mapView(_:regionDidChangeAnimated:)`. Under a rotated
    /// camera `visibleMapRect` is the rect around the rotated view, so the answer covers a little
    /// more than is seen; MapKit places each annotation by its coordinate.
    @MainActor
    public func thin(_ mapView: MKMapView, options: ThinOptions = ThinOptions()) async throws -> Components.Schemas.ThinAnswer {
        let viewport = Components.Schemas.Viewport.showing(
            Components.Schemas.MapRectInput(mapView.visibleMapRect), size: Components.Schemas.ViewSize(mapView.bounds.size))
        return try await thin(viewport, options: options)
    }
}
#endif
