public import MapGeometry
import CGEOS

// Planar overlays in longitude/latitude degrees with GEOS: the union of pieces and the cut of a
// polygon by a band of longitudes. Longitudes may run past ±180 here (an unwrapped ring); the
// caller shifts the pieces back.

extension GeoPolygon {
    /// The union of `parts` as disjoint polygons (GEOS `UnaryUnion`), rings closed.
    /// - Throws: ``GeodesyError/geosFailure(messages:)`` when GEOS fails.
    public static func union(_ parts: [GeoPolygon]) throws(GeodesyError) -> [GeoPolygon] {
        guard !parts.isEmpty else { return [] }
        let context = try GEOSContext()
        let collection = try PlanarGeometry.multiPolygon(parts.map { [$0.exterior] + $0.holes }).make(in: context)
        defer { GEOSGeom_destroy_r(context.handle, collection) }
        guard let union = GEOSUnaryUnion_r(context.handle, collection) else { throw context.failure }
        defer { GEOSGeom_destroy_r(context.handle, union) }
        return try polygons(of: union, in: context)
    }

    /// The parts of the polygon between longitudes `west` and `east` (GEOS `ClipByRect`), as polygons.
    public func clipped(west: Double, east: Double) throws(GeodesyError) -> [GeoPolygon] {
        let context = try GEOSContext()
        let geometry = try makeGeometry(in: context)
        defer { GEOSGeom_destroy_r(context.handle, geometry) }
        // Latitudes stay within ±90; the rectangle reaches past them so no edge is cut there.
        guard let clipped = GEOSClipByRect_r(context.handle, geometry, west, -91, east, 91) else { throw context.failure }
        defer { GEOSGeom_destroy_r(context.handle, clipped) }
        return try Self.polygons(of: clipped, in: context)
    }

    /// Twice the ring's signed area in square degrees (shoelace): positive when counterclockwise.
    public static func signedArea(of ring: [Coordinate]) -> Double {
        zip(ring, ring.dropFirst()).reduce(0) { $0 + $1.0.longitude * $1.1.latitude - $1.1.longitude * $1.0.latitude }
    }

    /// The polygon with its exterior counterclockwise and its holes clockwise (RFC 7946 §3.1.6).
    public var rightHanded: GeoPolygon {
        GeoPolygon(
            exterior: Self.signedArea(of: exterior) < 0 ? exterior.reversed() : exterior,
            holes: holes.map { Self.signedArea(of: $0) > 0 ? $0.reversed() : $0 })
    }

    /// The polygons a GEOS polygon, multipolygon or collection holds (lines and points dropped).
    private static func polygons(of geometry: OpaquePointer, in context: GEOSContext) throws(GeodesyError) -> [GeoPolygon] {
        // GEOSGeomTypeId_r returns -1 on exception.
        let type = GEOSGeomTypeId_r(context.handle, geometry)
        switch type {
        case Int32(GEOS_POLYGON.rawValue):
            guard GEOSisEmpty_r(context.handle, geometry) == 0 else { return [] }
            guard let shell = GEOSGetExteriorRing_r(context.handle, geometry) else { throw context.failure }
            var holes: [[Coordinate]] = []
            // GEOSGetNumInteriorRings_r returns -1 on exception.
            let holeCount = GEOSGetNumInteriorRings_r(context.handle, geometry)
            guard holeCount >= 0 else { throw context.failure }
            for index in 0..<holeCount {
                guard let hole = GEOSGetInteriorRingN_r(context.handle, geometry, index) else { throw context.failure }
                holes.append(try coordinates(of: hole, in: context))
            }
            return [GeoPolygon(exterior: try coordinates(of: shell, in: context), holes: holes)]
        case Int32(GEOS_MULTIPOLYGON.rawValue), Int32(GEOS_GEOMETRYCOLLECTION.rawValue):
            let count = GEOSGetNumGeometries_r(context.handle, geometry)
            guard count >= 0 else { throw context.failure }
            var result: [GeoPolygon] = []
            for index in 0..<count {
                // Borrowed: owned by the collection.
                guard let part = GEOSGetGeometryN_r(context.handle, geometry, index) else { throw context.failure }
                result += try polygons(of: part, in: context)
            }
            return result
        case -1: throw context.failure
        default: return []
        }
    }

    /// A ring's positions (borrowed ring, x = longitude).
    private static func coordinates(of ring: OpaquePointer, in context: GEOSContext) throws(GeodesyError) -> [Coordinate] {
        guard let sequence = GEOSGeom_getCoordSeq_r(context.handle, ring) else { throw context.failure }
        var size: UInt32 = 0
        // GEOSCoordSeq_getSize_r / _getXY_r return 0 on exception.
        guard GEOSCoordSeq_getSize_r(context.handle, sequence, &size) != 0 else { throw context.failure }
        var result: [Coordinate] = []
        result.reserveCapacity(Int(size))
        for index in 0..<size {
            var x = 0.0, y = 0.0
            guard GEOSCoordSeq_getXY_r(context.handle, sequence, index, &x, &y) != 0 else { throw context.failure }
            result.append(Coordinate(latitude: y, longitude: x))
        }
        return result
    }
}
