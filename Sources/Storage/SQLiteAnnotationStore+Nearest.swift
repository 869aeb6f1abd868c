public import Annotations
import Foundation
import Geodesy
import GRDB
public import MapGeometry
import Timeline

extension SQLiteAnnotationStore {
    /// The `limit` live annotations nearest `point` by geodesic distance on WGS84 (metres), nearest
    /// first, ties by id; only those within `maxDistance` and matching `filter` when given.
    ///
    /// Reads a box around the point that holds every point within a radius (degrees from the
    /// shortest length a degree can have on the ellipsoid, so the box is never too small), measures
    /// each candidate with PROJ's geodesic inverse, and widens the radius ×4 until `limit` lie within
    /// it: those are then the nearest, whatever lies outside. Boxes wrap the antimeridian and take
    /// every longitude once they reach a pole.
    public func nearest(to point: Coordinate, limit: Int, maxDistance: Double?, filter: Filter?) async throws -> [(annotation: Annotation, distance: Double)] {
        try await database.writer.read { db in
            var radius = min(Self.firstRadius, maxDistance ?? .infinity)
            while true {
                let box = Self.box(around: point, radius: radius)
                let request = AnnotationRecord.filter(Column("tenant") == tenant.description).inside(box)
                // Measured from the row's columns first: only rows within the radius are decoded and filtered.
                let measured = try request.fetchAll(db).compactMap { record -> (annotation: Annotation, distance: Double)? in
                    let distance = Geodesic.wgs84.inverse(from: point, to: Coordinate(latitude: record.latitude, longitude: record.longitude)).distance
                    guard distance <= radius else { return nil }
                    let annotation = try record.annotation()
                    return filter?.matches(annotation) ?? true ? (annotation, distance) : nil
                }
                let whole = radius >= min(maxDistance ?? .infinity, Self.halfMeridian)
                if measured.count >= limit || whole {
                    return Array(measured.sorted { ($0.distance, $0.annotation.id) < ($1.distance, $1.annotation.id) }.prefix(limit))
                }
                radius = min(radius * 4, maxDistance ?? .infinity, Self.halfMeridian)
            }
        }
    }

    /// The first search radius, metres.
    static let firstRadius = 2_000.0
    /// Farther than any two points on the ellipsoid are apart (a meridian from pole to pole is ~20 004 km).
    static let halfMeridian = 20_100_000.0
    /// The shortest a degree of latitude is on WGS84 (at the equator), metres.
    static let shortestLatitudeDegree = 110_574.0
    /// A degree of longitude at the equator on WGS84 (a·π/180), metres; at latitude φ it is at least this × cos φ.
    static let equatorialLongitudeDegree = 111_319.49

    /// A box holding every point within `radius` metres of `point`.
    static func box(around point: Coordinate, radius: Double) -> BoundingBox {
        let latitudeSpan = radius / shortestLatitudeDegree
        let south = max(-90, point.latitude - latitudeSpan), north = min(90, point.latitude + latitudeSpan)
        let widest = max(abs(south), abs(north))
        let longitudeSpan = widest >= 90 ? 360 : radius / (equatorialLongitudeDegree * cos(widest * .pi / 180))
        guard longitudeSpan < 180 else { return BoundingBox(west: -180, south: south, east: 180, north: north) }
        var west = point.longitude - longitudeSpan, east = point.longitude + longitudeSpan
        if west < -180 { west += 360 }
        if east > 180 { east -= 360 }
        return BoundingBox(west: west, south: south, east: east, north: north)
    }
}
