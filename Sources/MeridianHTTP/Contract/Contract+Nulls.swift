public import WireJSON

/// Where each operation's request body may hold `null`, read off the contract's schemas, so the
/// rule lives in one place (`openapi.yaml`) and ``JSONBodyMiddleware`` refuses the rest.
extension Contract {
    /// Operation id → the shape of its request body's nulls (operations without a body are absent).
    public static func requestNulls(_ document: JSONValue) -> [String: NullShape] {
        let reader = NullShapeReader(schemas: document["components"]?["schemas"]?.objectValue ?? [:])
        var shapes: [String: NullShape] = [:]
        for (operation, _) in operations(document) {
            guard let id = operation["operationId"]?.stringValue,
                  let media = operation["requestBody"]?["content"]?.objectValue?.values.first,
                  let shape = reader.shape(media["schema"]) else { continue }
            shapes[id] = shape
        }
        return shapes
    }
}

/// Reads a ``NullShape`` off a JSON Schema (as YAML mappings): `type` lists `null` or is absent
/// where null is allowed; `allOf` parts all hold, one of `oneOf`/`anyOf` does. Nil stands for a
/// schema that says nothing about nulls below it (free-form values).
public struct NullShapeReader {
    public let schemas: [String: JSONValue]
    /// Deeper than this the schema is taken as free (the contract has no recursive request schemas).
    private static let maxDepth = 32

    public func shape(_ value: JSONValue?, depth: Int = 0) -> NullShape? {
        guard depth < Self.maxDepth, let schema = value?.objectValue else { return nil }
        if let ref = schema["$ref"]?.stringValue {
            return shape(schemas[String(ref.split(separator: "/").last ?? "")], depth: depth + 1)
        }
        let types = schema["type"]?.stringValue.map { [$0] } ?? schema["type"]?.arrayValue?.compactMap(\.stringValue)
        var members: [String: NullShape] = [:]
        for (key, member) in schema["properties"]?.objectValue ?? [:] {
            members[key] = shape(member, depth: depth + 1)
        }
        let other = shape(schema["additionalProperties"], depth: depth + 1)
        let closed = schema["additionalProperties"] == .bool(false)
        let items = shape(schema["items"], depth: depth + 1)
        var result: NullShape? = types == nil && members.isEmpty && other == nil && items == nil && !closed
            ? nil
            : NullShape(nullable: types?.contains("null") ?? true, members: members, otherMembers: other, closed: closed, items: items)
        for part in schema["allOf"]?.arrayValue ?? [] {
            result = Self.both(result, shape(part, depth: depth + 1))
        }
        for key in ["oneOf", "anyOf"] {
            guard let branches = schema[key]?.arrayValue?.map({ shape($0, depth: depth + 1) }), let first = branches.first else { continue }
            result = Self.both(result, branches.dropFirst().reduce(first, Self.either))
        }
        return result
    }

    /// What holds when both hold: null only where both allow it.
    public static func both(_ a: NullShape?, _ b: NullShape?) -> NullShape? {
        guard let a else { return b }
        guard let b else { return a }
        return NullShape(
            nullable: a.nullable && b.nullable,
            members: a.members.merging(b.members) { both($0, $1) ?? NullShape(nullable: true) },
            otherMembers: both(a.otherMembers, b.otherMembers), closed: a.closed || b.closed, items: both(a.items, b.items)
        )
    }

    /// What holds when either does: null wherever one allows it. A member one side does not list
    /// is free there, unless that side is closed (refuses it anyway): then the other side says.
    public static func either(_ a: NullShape?, _ b: NullShape?) -> NullShape? {
        guard let a, let b else { return nil }
        var members: [String: NullShape] = [:]
        for key in Set(a.members.keys).union(b.members.keys) {
            let left = a.members[key] ?? (a.closed ? b.members[key] : a.otherMembers)
            let right = b.members[key] ?? (b.closed ? a.members[key] : b.otherMembers)
            members[key] = either(left, right)
        }
        return NullShape(
            nullable: a.nullable || b.nullable, members: members,
            otherMembers: either(a.otherMembers, b.otherMembers), closed: a.closed && b.closed, items: either(a.items, b.items)
        )
    }
}
