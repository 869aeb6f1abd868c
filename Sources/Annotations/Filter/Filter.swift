public import WireJSON

/// An OGC CQL2 filter (OGC API – Features Part 3, Basic CQL2 plus the spatial `s_intersects`,
/// `s_within` and `s_contains`), read from CQL2-JSON (``init(json:)``) or CQL2-Text
/// (``init(text:)``) and evaluated on annotations (``matches(_:)``).
///
/// Properties name an annotation's fields (`kind`, `clusteringIdentifier`, `displayPriority`,
/// `title`, `subtitle`, `externalId`), its point (`geometry`), or any member of its free
/// `properties`, nested by dots (`address.city`). A missing property is null.
public indirect enum Filter: Hashable, Sendable {
    case and([Filter])
    case or([Filter])
    case not(Filter)
    case comparison(Comparison, Scalar, Scalar)
    /// `like` with `%` (any run) and `_` (one character); `\` escapes either.
    case like(Scalar, pattern: LikePattern)
    case `in`(Scalar, [Scalar])
    case between(Scalar, Scalar, Scalar)
    case isNull(Scalar)
    /// A spatial predicate between the annotation's point and a literal geometry; `pointFirst`
    /// says whether the point was the first argument (`s_contains` reads the other way round).
    case spatial(SpatialPredicate, FilterGeometry, pointFirst: Bool)
    case literal(Bool)

    /// `=`, `<>`, `<`, `<=`, `>`, `>=`.
    public enum Comparison: String, Hashable, Sendable, CaseIterable {
        case equal = "=", notEqual = "<>", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    public enum SpatialPredicate: String, Hashable, Sendable, CaseIterable {
        case intersects = "s_intersects", within = "s_within", contains = "s_contains"
    }

    /// A property or a literal.
    public enum Scalar: Hashable, Sendable {
        case property(String)
        case string(String)
        /// Compared by exact value (`9007199254740993` is not `9007199254740992`).
        case number(JSONNumber)
        case boolean(Bool)
    }

    /// Where the annotation's own point is named.
    public static let geometryProperty = "geometry"
    /// The annotation fields a property may name; any other name is a member of `properties`.
    public static let fields: [String: FieldType] = [
        "kind": .string, "clusteringIdentifier": .string, "title": .string, "subtitle": .string, "externalId": .string,
        "displayPriority": .number, "id": .string,
    ]

    /// The type of a known field, so a comparison with a literal of another type is refused up front.
    public enum FieldType: Hashable, Sendable { case string, number }

    /// Most nesting a filter may have (it is read recursively).
    public static let maxDepth = 64
}
