public import MapGeometry
import CGEOS

/// A line on the map in longitude/latitude degrees (a GeoJSON LineString), checked with GEOS.
public struct GeoLine: Hashable, Sendable {
    public var points: [Coordinate]

    public init(_ points: [Coordinate]) {
        self.points = points
    }

    /// Throws ``GeodesyError/invalidGeometry(reason:)`` unless GEOS finds the line valid: two or
    /// more points, not all the same.
    public func validate() throws(GeodesyError) {
        guard points.count >= 2 else { throw .invalidGeometry(reason: "a line needs at least 2 points, got \(points.count)") }
        let context = try GEOSContext()
        guard let sequence = GEOSCoordSeq_create_r(context.handle, UInt32(points.count), 2) else { throw context.failure }
        for (index, point) in points.enumerated() {
            guard GEOSCoordSeq_setXY_r(context.handle, sequence, UInt32(index), point.longitude, point.latitude) != 0 else {
                GEOSCoordSeq_destroy_r(context.handle, sequence)
                throw context.failure
            }
        }
        // Takes ownership of the sequence.
        guard let line = GEOSGeom_createLineString_r(context.handle, sequence) else { throw context.failure }
        defer { GEOSGeom_destroy_r(context.handle, line) }
        try context.validate(line)
    }
}
