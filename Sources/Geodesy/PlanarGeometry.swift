public import MapGeometry
import CGEOS

/// A geometry in the plane of longitude/latitude degrees (GeoJSON's model, x = longitude), for
/// exact spatial predicates with GEOS: what CQL2's `S_*` functions compare.
public indirect enum PlanarGeometry: Hashable, Sendable {
    case point(Coordinate)
    case lineString([Coordinate])
    /// Rings: the shell first, then holes; each closed.
    case polygon([[Coordinate]])
    case multiPoint([Coordinate])
    case multiLineString([[Coordinate]])
    case multiPolygon([[[Coordinate]]])
    case collection([PlanarGeometry])

    /// The DE-9IM named predicates (OGC Simple Features), read as `relation(self, other)`.
    public enum Relation: String, Hashable, Sendable, CaseIterable {
        case intersects, equals, disjoint, touches, within, overlaps, crosses, contains
    }

    /// Whether `relation` holds from this geometry to `other`, decided by GEOS.
    public func holds(_ relation: Relation, _ other: PlanarGeometry) throws(GeodesyError) -> Bool {
        let context = try GEOSContext()
        let a = try make(in: context)
        defer { GEOSGeom_destroy_r(context.handle, a) }
        let b = try other.make(in: context)
        defer { GEOSGeom_destroy_r(context.handle, b) }
        // Every predicate answers 1 true, 0 false, 2 exception.
        let answer: CChar = switch relation {
        case .intersects: GEOSIntersects_r(context.handle, a, b)
        case .equals: GEOSEquals_r(context.handle, a, b)
        case .disjoint: GEOSDisjoint_r(context.handle, a, b)
        case .touches: GEOSTouches_r(context.handle, a, b)
        case .within: GEOSWithin_r(context.handle, a, b)
        case .overlaps: GEOSOverlaps_r(context.handle, a, b)
        case .crosses: GEOSCrosses_r(context.handle, a, b)
        case .contains: GEOSContains_r(context.handle, a, b)
        }
        switch answer {
        case 1: return true
        case 0: return false
        default: throw context.failure
        }
    }

    /// A GEOS geometry owned by the caller (destroy with GEOSGeom_destroy_r).
    func make(in context: GEOSContext) throws(GeodesyError) -> OpaquePointer {
        switch self {
        case .point(let c):
            guard let point = GEOSGeom_createPointFromXY_r(context.handle, c.longitude, c.latitude) else { throw context.failure }
            return point
        case .lineString(let line):
            let sequence = try Self.sequence(line, in: context)
            // GEOSGeom_createLineString_r takes ownership of the sequence.
            guard let made = GEOSGeom_createLineString_r(context.handle, sequence) else { throw context.failure }
            return made
        case .polygon(let rings):
            return try Self.polygon(rings, in: context)
        case .multiPoint(let points):
            return try Self.collection(GEOS_MULTIPOINT, points.map { .point($0) }, in: context)
        case .multiLineString(let lines):
            return try Self.collection(GEOS_MULTILINESTRING, lines.map { .lineString($0) }, in: context)
        case .multiPolygon(let polygons):
            return try Self.collection(GEOS_MULTIPOLYGON, polygons.map { .polygon($0) }, in: context)
        case .collection(let parts):
            return try Self.collection(GEOS_GEOMETRYCOLLECTION, parts, in: context)
        }
    }

    private static func collection(_ type: GEOSGeomTypes, _ parts: [PlanarGeometry], in context: GEOSContext) throws(GeodesyError) -> OpaquePointer {
        var made: [OpaquePointer?] = []
        for part in parts {
            do { made.append(try part.make(in: context)) } catch {
                made.forEach { GEOSGeom_destroy_r(context.handle, $0) }
                throw error
            }
        }
        // GEOSGeom_createCollection_r takes ownership of the parts when it succeeds.
        let collection = made.withUnsafeMutableBufferPointer { buffer in
            GEOSGeom_createCollection_r(context.handle, Int32(type.rawValue), buffer.baseAddress, UInt32(buffer.count))
        }
        guard let collection else {
            made.forEach { GEOSGeom_destroy_r(context.handle, $0) }
            throw context.failure
        }
        return collection
    }

    private static func polygon(_ rings: [[Coordinate]], in context: GEOSContext) throws(GeodesyError) -> OpaquePointer {
        var made: [OpaquePointer?] = []
        for ring in rings {
            do throws(GeodesyError) {
                // GEOSGeom_createLinearRing_r takes ownership of the sequence; NULL when the ring is not closed.
                let sequence = try sequence(ring, in: context)
                guard let linear = GEOSGeom_createLinearRing_r(context.handle, sequence) else { throw GeodesyError.invalidGeometry(reason: context.messages.last ?? "not a valid ring") }
                made.append(linear)
            } catch {
                made.forEach { GEOSGeom_destroy_r(context.handle, $0) }
                throw error
            }
        }
        guard let shell = made.first ?? nil else { throw GeodesyError.invalidGeometry(reason: "a polygon needs a shell") }
        var holes = Array(made.dropFirst())
        // GEOSGeom_createPolygon_r takes ownership of the rings, also when it fails.
        let polygon = holes.withUnsafeMutableBufferPointer { buffer in
            GEOSGeom_createPolygon_r(context.handle, shell, buffer.baseAddress, UInt32(buffer.count))
        }
        guard let polygon else { throw context.failure }
        return polygon
    }

    private static func sequence(_ points: [Coordinate], in context: GEOSContext) throws(GeodesyError) -> OpaquePointer {
        guard let sequence = GEOSCoordSeq_create_r(context.handle, UInt32(points.count), 2) else { throw context.failure }
        for (index, c) in points.enumerated() {
            // GEOSCoordSeq_setXY_r returns 0 on exception.
            guard GEOSCoordSeq_setXY_r(context.handle, sequence, UInt32(index), c.longitude, c.latitude) != 0 else {
                GEOSCoordSeq_destroy_r(context.handle, sequence)
                throw context.failure
            }
        }
        return sequence
    }
}
