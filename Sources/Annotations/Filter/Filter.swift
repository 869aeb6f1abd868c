public import MapGeometry
public import WireJSON

/// An OGC CQL2 filter (OGC 21-065r2, every conformance class: Basic CQL2, Advanced Comparison,
/// Case- and Accent-insensitive comparison, Basic Spatial and Spatial Functions, Temporal
/// Functions, Array Functions, Property-Property comparisons, Arithmetic), read from CQL2-JSON
/// (``init(json:)``) or CQL2-Text (``init(text:)``) and evaluated on any ``CQL2Feature``
/// (``matches(_:)``): annotations, and the devices and regions of `/ogc`.
///
/// Properties name a feature's fields (``fields``), its geometry (`geometry`), or any member of
/// its free `properties`, nested by dots (`address.city`). `properties.<name>` names the free
/// property `<name>` even when a built-in field is called the same (the flat feature properties
/// of `/ogc` show such a free property under that name). A missing property is null.
public indirect enum Filter: Hashable, Sendable {
    case and([Filter])
    case or([Filter])
    case not(Filter)
    case comparison(Comparison, Expression, Expression)
    /// `like` with `%` (any run) and `_` (one character); `\` escapes either. The pattern is a
    /// literal, folded once when wrapped in `CASEI`/`ACCENTI`.
    case like(Expression, pattern: LikeOperand)
    case `in`(Expression, [Expression])
    case between(Expression, Expression, Expression)
    case isNull(Expression)
    case spatial(SpatialPredicate, Expression, Expression)
    case temporal(TemporalPredicate, Expression, Expression)
    case array(ArrayPredicate, Expression, Expression)
    case literal(Bool)

    /// `=`, `<>`, `<`, `<=`, `>`, `>=`.
    public enum Comparison: String, Hashable, Sendable, CaseIterable {
        case equal = "=", notEqual = "<>", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    /// The eight `S_*` functions (DE-9IM, OGC Simple Features).
    public enum SpatialPredicate: String, Hashable, Sendable, CaseIterable {
        case intersects = "s_intersects", equals = "s_equals", disjoint = "s_disjoint", touches = "s_touches"
        case within = "s_within", overlaps = "s_overlaps", crosses = "s_crosses", contains = "s_contains"
    }

    /// The fifteen `T_*` functions of CQL2 (Allen's interval relations, instants read as `[t, t]`).
    public enum TemporalPredicate: String, Hashable, Sendable, CaseIterable {
        case after = "t_after", before = "t_before", contains = "t_contains", disjoint = "t_disjoint", during = "t_during"
        case equals = "t_equals", finishedBy = "t_finishedBy", finishes = "t_finishes", intersects = "t_intersects"
        case meets = "t_meets", metBy = "t_metBy", overlappedBy = "t_overlappedBy", overlaps = "t_overlaps"
        case startedBy = "t_startedBy", starts = "t_starts"
        /// The function of that name, in any letter case (`T_FINISHEDBY`).
        static func named(_ name: String) -> TemporalPredicate? { allCases.first { $0.rawValue.lowercased() == name.lowercased() } }
    }

    /// The four `A_*` functions on arrays.
    public enum ArrayPredicate: String, Hashable, Sendable, CaseIterable {
        case equals = "a_equals", contains = "a_contains", containedBy = "a_containedBy", overlaps = "a_overlaps"
        /// The function of that name, in any letter case.
        static func named(_ name: String) -> ArrayPredicate? { allCases.first { $0.rawValue.lowercased() == name.lowercased() } }
    }

    /// Where a feature's own geometry is named.
    public static let geometryProperty = "geometry"
    /// The prefix that names a free property even when a built-in field has its name.
    public static let freePropertyPrefix = "properties."
    /// The built-in fields a property may name, with their types (what `/queryables` lists); any
    /// other name is a member of the free `properties`.
    public static let fields: [String: FieldType] = [
        "kind": .string, "clusteringIdentifier": .string, "title": .string, "subtitle": .string, "externalId": .string,
        "displayPriority": .number, "id": .string, "createdAt": .timestamp, "updatedAt": .timestamp, geometryProperty: .geometry,
    ]

    /// The type of a known field, so a comparison with a literal of another type is refused up front.
    public enum FieldType: String, Hashable, Sendable { case string, number, timestamp, geometry }

    /// Most nesting a filter may have (it is read recursively).
    public static let maxDepth = 64
}

/// Why a filter was refused: ``Kind/syntax`` when it does not read as CQL2 at all (OGC API –
/// Features Part 3 answers 400), ``Kind/invalid`` when it reads but cannot be used (an
/// unsupported function, values of the wrong type, a bad coordinate). `/v1` answers 422 for both.
public struct FilterError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable { case syntax, invalid }
    public var kind: Kind
    /// Where (text: "at character N" in the message; JSON: the path) and what.
    public var field: FieldError

    public init(_ kind: Kind, _ field: FieldError) {
        self.kind = kind
        self.field = field
    }

    public var description: String { field.description }
}

extension Filter {
    /// Reads CQL2-Text, saying whether a refusal is a syntax error.
    public static func parse(text: String) throws(FilterError) -> Filter {
        var parser = CQL2TextParser(tokens: try CQL2TextParser.tokenize(text))
        let filter = try parser.expression(depth: 0)
        guard parser.atEnd else { throw parser.error("unexpected \(parser.describe(parser.peek))") }
        return filter
    }

    /// Reads CQL2-JSON, saying whether a refusal is a syntax error.
    public static func parse(json: JSONValue) throws(FilterError) -> Filter {
        try CQL2JSONReader().boolean(json, at: [], depth: 0)
    }

    /// Reads CQL2-Text (`kind = 'shop' AND rating >= 4 AND S_INTERSECTS(geometry, BBOX(2.2, 48.8, 2.5, 48.9))`).
    /// Keywords are case-insensitive; strings are single-quoted (`''` is a quote); a property is a
    /// name (`address.city`) or double-quoted. Errors say at which character the text went wrong.
    public init(text: String) throws(FieldError) {
        do { self = try Self.parse(text: text) } catch { throw error.field }
    }

    /// Reads CQL2-JSON. Every error is a ``FieldError`` whose path leads from the filter value to
    /// the offending member (`["args", "1", "args", "0"]`).
    public init(json: JSONValue) throws(FieldError) {
        do { self = try Self.parse(json: json) } catch { throw error.field }
    }
}
