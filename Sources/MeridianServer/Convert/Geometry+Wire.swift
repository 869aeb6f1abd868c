import MeridianHTTP
import MapGeometry
import MeridianAPI

// Wire ↔ domain for the value types of the map. Wire → domain validates and throws
// `FieldError` with the path inside the value; domain → wire cannot fail.

extension MapGeometry.Coordinate {
    init(_ wire: Components.Schemas.Coordinate) throws(FieldError) {
        try self.init(validatingLatitude: wire.latitude, longitude: wire.longitude)
    }
}

extension Components.Schemas.Coordinate {
    init(_ value: MapGeometry.Coordinate) {
        self.init(latitude: value.latitude, longitude: value.longitude)
    }
}

extension MapGeometry.Span {
    init(_ wire: Components.Schemas.Span) throws(FieldError) {
        try self.init(validatingLatitudeDelta: wire.latitudeDelta, longitudeDelta: wire.longitudeDelta)
    }
}

extension MapGeometry.Region {
    init(_ wire: Components.Schemas.Region) throws(FieldError) {
        let center: MapGeometry.Coordinate, span: MapGeometry.Span
        do { center = try .init(wire.center) } catch { throw error.nested(under: "center") }
        do { span = try .init(wire.span) } catch { throw error.nested(under: "span") }
        self.init(center: center, span: span)
    }
}

extension Components.Schemas.Region {
    init(_ value: MapGeometry.Region) {
        self.init(
            center: .init(value.center),
            span: .init(latitudeDelta: value.span.latitudeDelta, longitudeDelta: value.span.longitudeDelta)
        )
    }
}

extension MapGeometry.MapPoint {
    init(_ wire: Components.Schemas.MapPointInput) throws(FieldError) {
        try self.init(validatingX: wire.x, y: wire.y)
    }
}

extension Components.Schemas.MapPoint {
    init(_ value: MapGeometry.MapPoint) {
        self.init(x: value.x, y: value.y)
    }
}

extension MapGeometry.MapRect {
    init(_ wire: Components.Schemas.MapRectInput) throws(FieldError) {
        try self.init(
            validatingOrigin: (wire.origin.x, wire.origin.y),
            size: (wire.size.width, wire.size.height)
        )
    }
}

extension Components.Schemas.MapRect {
    init(_ value: MapGeometry.MapRect) {
        self.init(origin: .init(value.origin), size: .init(width: value.size.width, height: value.size.height))
    }
}

extension MapGeometry.ScreenPoint {
    init(_ wire: Components.Schemas.ScreenPointInput) throws(FieldError) {
        try self.init(validatingX: wire.x, y: wire.y)
    }
}

extension Components.Schemas.ScreenPoint {
    init(_ value: MapGeometry.ScreenPoint) {
        self.init(x: value.x, y: value.y)
    }
}

extension MapGeometry.ScreenRect {
    init(_ wire: Components.Schemas.ScreenRectInput) throws(FieldError) {
        try self.init(
            validatingOrigin: (wire.origin.x, wire.origin.y),
            size: (wire.size.width, wire.size.height)
        )
    }
}

extension Components.Schemas.ScreenRect {
    init(_ value: MapGeometry.ScreenRect) {
        self.init(origin: .init(value.origin), size: .init(width: value.size.width, height: value.size.height))
    }
}

extension Components.Schemas.ScreenSize {
    init(_ value: MapGeometry.ScreenSize) {
        self.init(width: value.width, height: value.height)
    }
}
