public import MapGeometry
import CGEOS

/// A polygon on the map in longitude/latitude degrees (GeoJSON order of rings: the exterior,
/// then holes), checked and queried with GEOS.
public struct GeoPolygon: Hashable, Sendable {
    /// The outer ring; closed (first point equals last), at least four points.
    public var exterior: [Coordinate]
    /// Inner rings (holes), each closed.
    public var holes: [[Coordinate]]

    /// A polygon from its rings; call ``validate()`` before trusting it.
    public init(exterior: [Coordinate], holes: [[Coordinate]] = []) {
        self.exterior = exterior
        self.holes = holes
    }

    /// Throws ``GeodesyError/invalidGeometry(reason:)`` unless the polygon is valid in the OGC
    /// sense: closed rings of four or more points, no self-intersection, holes inside.
    public func validate() throws(GeodesyError) {
        for (index, ring) in ([exterior] + holes).enumerated() {
            let name = index == 0 ? "exterior ring" : "hole \(index)"
            guard ring.count >= 4 else { throw .invalidGeometry(reason: "the \(name) has \(ring.count) points; a ring needs at least 4") }
            guard ring.first == ring.last else { throw .invalidGeometry(reason: "the \(name) is not closed: its first and last points differ") }
        }
        let context = try GEOSContext()
        let geometry = try makeGeometry(in: context)
        defer { GEOSGeom_destroy_r(context.handle, geometry) }
        try context.validate(geometry)
    }

    /// Whether the coordinate lies inside the polygon or on its boundary.
    public func contains(_ coordinate: Coordinate) throws(GeodesyError) -> Bool {
        let context = try GEOSContext()
        let polygon = try makeGeometry(in: context)
        defer { GEOSGeom_destroy_r(context.handle, polygon) }
        guard let point = GEOSGeom_createPointFromXY_r(context.handle, coordinate.longitude, coordinate.latitude) else {
            throw context.failure
        }
        defer { GEOSGeom_destroy_r(context.handle, point) }
        // GEOSCovers_r: 1 true, 0 false, 2 exception.
        switch GEOSCovers_r(context.handle, polygon, point) {
        case 1: return true
        case 0: return false
        default: throw context.failure
        }
    }

    /// A GEOS polygon owned by the caller (destroy with GEOSGeom_destroy_r), built as every planar
    /// geometry is (``PlanarGeometry``).
    func makeGeometry(in context: GEOSContext) throws(GeodesyError) -> OpaquePointer {
        try PlanarGeometry.polygon([exterior] + holes).make(in: context)
    }
}
