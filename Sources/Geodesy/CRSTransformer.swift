import CPROJ

/// One PROJ transformation between two CRSs, with the context it lives in.
///
/// PROJ objects must not be used from two threads at once; ``CRSTransformerPool`` hands each
/// transformer to one caller at a time. Axis order is normalised for visualisation: x is
/// longitude or easting, y latitude or northing, whatever the CRS declares.
final class CRSTransformer: @unchecked Sendable {
    private let context: OpaquePointer
    private let transformation: OpaquePointer

    /// Creates the transformation from `source` to `target` (any identifier PROJ knows:
    /// `EPSG:4326`, WKT, a PROJ string).
    init(source: String, target: String) throws(GeodesyError) {
        // proj_context_create returns NULL only when out of memory.
        guard let context = proj_context_create() else {
            throw .noTransformation(source: source, target: target, reason: "PROJ could not create a context")
        }
        proj_log_level(context, PJ_LOG_NONE)
        proj_context_set_enable_network(context, 0)
        do {
            try Self.checkCRS(source, field: "source", in: context)
            try Self.checkCRS(target, field: "target", in: context)
        } catch {
            proj_context_destroy(context)
            throw error
        }
        // proj_create_crs_to_crs returns NULL when no operation links the two CRSs.
        guard let raw = proj_create_crs_to_crs(context, source, target, nil) else {
            let reason = Self.lastError(in: context)
            proj_context_destroy(context)
            throw .noTransformation(source: source, target: target, reason: reason)
        }
        let normalized = proj_normalize_for_visualization(context, raw)
        proj_destroy(raw)
        guard let normalized else {
            let reason = Self.lastError(in: context)
            proj_context_destroy(context)
            throw .noTransformation(source: source, target: target, reason: reason)
        }
        self.context = context
        self.transformation = normalized
    }

    deinit {
        proj_destroy(transformation)
        proj_context_destroy(context)
    }

    /// Transforms positions: `[x, y]` or `[x, y, z]` each; nil for a position PROJ cannot map
    /// (outside the transformation's domain: PROJ answers infinity for those).
    func transform(_ positions: [[Double]]) -> [[Double]?] {
        positions.map { p in
            let hasZ = p.count > 2
            let input = proj_coord(p[0], p[1], hasZ ? p[2] : 0, .infinity)
            // proj_trans returns HUGE_VAL components on failure and sets the context errno.
            let output = proj_trans(transformation, PJ_FWD, input)
            let (x, y, z) = (output.v.0, output.v.1, output.v.2)
            guard x.isFinite, y.isFinite, !hasZ || z.isFinite else {
                proj_errno_reset(transformation)
                return nil
            }
            return hasZ ? [x, y, z] : [x, y]
        }
    }

    /// Throws unless `identifier` names a CRS PROJ knows. A NUL character is refused first: PROJ
    /// reads a C string, which ends there (`EPSG:4326\u{0}garbage` would be read as `EPSG:4326`).
    private static func checkCRS(_ identifier: String, field: String, in context: OpaquePointer) throws(GeodesyError) {
        guard !identifier.utf8.contains(0) else {
            throw .unknownCRS(field: field, identifier: identifier, reason: "it holds a NUL character (U+0000), which no CRS name does")
        }
        guard let object = proj_create(context, identifier) else {
            throw .unknownCRS(field: field, identifier: identifier, reason: lastError(in: context))
        }
        defer { proj_destroy(object) }
        guard proj_is_crs(object) != 0 else {
            throw .unknownCRS(field: field, identifier: identifier, reason: "names a PROJ object that is not a coordinate reference system")
        }
    }

    /// The context's last error message, or a generic one.
    private static func lastError(in context: OpaquePointer) -> String {
        let code = proj_context_errno(context)
        guard code != 0, let message = proj_context_errno_string(context, code) else {
            return "PROJ does not know it"
        }
        return String(cString: message)
    }
}
