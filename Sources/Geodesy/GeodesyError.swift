/// What PROJ or GEOS could not do, without any C detail.
public enum GeodesyError: Error, Hashable, Sendable {
    /// A CRS identifier PROJ does not know or that names no CRS. `field` is `source` or `target`.
    case unknownCRS(field: String, identifier: String, reason: String)
    /// PROJ knows both CRSs but has no transformation between them.
    case noTransformation(source: String, target: String, reason: String)
    /// A geometry GEOS refuses, with GEOS's reason ("Self-intersection[1 1]").
    case invalidGeometry(reason: String)
    /// A failure inside GEOS, with its messages.
    case geosFailure(messages: [String])
}
