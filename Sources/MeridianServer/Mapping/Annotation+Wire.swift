import MeridianHTTP
import Annotations
import Foundation
import MapGeometry
import MeridianAPI
import OpenAPIRuntime
import WireJSON
import Timeline

// Wire ↔ domain for annotations. Free JSON (properties, merge patches) arrives as the runtime's
// value containers and becomes `JSONValue`; the way back cannot fail.

extension AnnotationContent {
    /// Content from a POST or PUT body, validated.
    init(_ wire: Components.Schemas.AnnotationInput) throws(FieldError) {
        let coordinate: MapGeometry.Coordinate
        do { coordinate = try .init(wire.coordinate) } catch { throw error.nested(under: "coordinate") }
        self.init(
            externalId: wire.externalId, coordinate: coordinate, title: wire.title, subtitle: wire.subtitle,
            kind: wire.kind, clusteringIdentifier: wire.clusteringIdentifier,
            displayPriority: wire.displayPriority ?? Self.defaultDisplayPriority,
            properties: JSONValue.members(of: wire.properties)
        )
        try validate()
    }

    /// The content a PUT by external id names: the body, with the path's external id.
    init(_ wire: Components.Schemas.AnnotationReplacement, externalId: String) throws(FieldError) {
        try self.init(Components.Schemas.AnnotationInput(
            externalId: externalId, coordinate: wire.coordinate, title: wire.title, subtitle: wire.subtitle, kind: wire.kind,
            clusteringIdentifier: wire.clusteringIdentifier, displayPriority: wire.displayPriority, properties: wire.properties
        ))
    }
}

extension Components.Schemas.Annotation {
    init(_ annotation: Annotation) {
        let content = annotation.content
        self.init(
            id: annotation.id.description, externalId: content.externalId, coordinate: .init(content.coordinate),
            title: content.title, subtitle: content.subtitle, kind: content.kind,
            clusteringIdentifier: content.clusteringIdentifier, displayPriority: content.displayPriority,
            properties: OpenAPIObjectContainer(content.properties), version: annotation.version,
            createdAt: annotation.createdAt, updatedAt: annotation.updatedAt
        )
    }
}

extension Annotation {
    /// `"<version>"`, the strong entity tag of this version.
    var eTag: String { "\"\(version)\"" }
    /// Where the annotation lives.
    var location: String { "/v1/annotations/\(id)" }
}

extension JSONValue {
    /// A value of the runtime's free-form containers: nil, Bool, Int, Double, String, arrays, objects.
    init(runtimeValue value: (any Sendable)?) {
        switch value {
        case nil: self = .null
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .number(Double(value))
        case let value as Double: self = .number(value)
        case let value as String: self = .string(value)
        case let value as [(any Sendable)?]: self = .array(value.map(JSONValue.init(runtimeValue:)))
        case let value as [String: (any Sendable)?]: self = .object(value.mapValues(JSONValue.init(runtimeValue:)))
        default: self = .string(String(describing: value))  // not produced by decoding
        }
    }

    /// The members of an optional free-form object; an absent object is empty.
    static func members(of container: OpenAPIObjectContainer?) -> [String: JSONValue] {
        container?.value.mapValues(JSONValue.init(runtimeValue:)) ?? [:]
    }

    /// The value as the runtime's containers hold it (whole numbers as Int, so they print without a fraction).
    var runtimeValue: (any Sendable)? {
        switch self {
        case .null: return nil
        case .bool(let value): return value
        case .number(let value):
            if let integer = JSONWriter.exactInteger(value) { return Int(integer) }
            return value
        case .string(let value): return value
        case .array(let values): return values.map(\.runtimeValue)
        case .object(let members): return members.mapValues(\.runtimeValue)
        }
    }
}

extension OpenAPIObjectContainer {
    /// A container holding `members`; JSON values are always valid container values.
    init(_ members: [String: JSONValue]) {
        self = (try? OpenAPIObjectContainer(unvalidatedValue: members.mapValues(\.runtimeValue))) ?? OpenAPIObjectContainer()
    }
}

/// Entity tags of `If-Match` / `If-None-Match` (RFC 9110 §8.8.3, §13.1): `*`, or a list of
/// quoted tags, optionally weak (`W/"3"`). Our tags are `"<version>"`, compared as text, so
/// `"01"` or an unquoted `1` match nothing.
struct EntityTagCondition {
    private let tags: [(weak: Bool, opaque: String)]
    private let any: Bool

    /// Reads `*` or a list of entity tags (RFC 9110 §8.8.3: `W/` for weak, then a quoted run of
    /// visible ASCII other than `"`), separated by commas with optional spaces or tabs; nil for
    /// anything else. Exactly what the contract's `If-Match` pattern matches (around the spaces and
    /// tabs HTTP drops).
    init?(_ header: String) {
        let bytes = Array(header.utf8)
        var index = 0
        func skipSpace() { while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 } }
        skipSpace()
        if bytes[index...].starts(with: [UInt8(ascii: "*")]) {
            index += 1
            skipSpace()
            guard index == bytes.count else { return nil }
            (any, tags) = (true, [])
            return
        }
        var tags: [(weak: Bool, opaque: String)] = []
        while true {
            let weak = bytes[index...].starts(with: Array("W/".utf8))
            if weak { index += 2 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            let start = index
            while index < bytes.count, Self.isTagByte(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            tags.append((weak, String(decoding: bytes[start..<index], as: UTF8.self)))
            index += 1
            skipSpace()
            if index == bytes.count { break }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
            skipSpace()
        }
        (any, self.tags) = (false, tags)
    }

    /// Visible ASCII but `"`, `%` and `+` (the generated header decoding reads those two as URI
    /// escapes; no Meridian tag has them).
    private static func isTagByte(_ byte: UInt8) -> Bool {
        byte == 0x21 || ((0x23...0x7E).contains(byte) && byte != UInt8(ascii: "%") && byte != UInt8(ascii: "+"))
    }

    /// What an `If-Match` demands: `*` an existing annotation; a list, one of its strong tags'
    /// versions (weak tags never match, RFC 9110 §13.1.1).
    var versionCondition: VersionCondition {
        any ? .exists : .oneOf(Set(tags.filter { !$0.weak }.compactMap { tag in Int(tag.opaque).flatMap { String($0) == tag.opaque ? $0 : nil } }))
    }

    /// Weak comparison for `If-None-Match`: whether the client's copy is `version`.
    func matches(version: Int) -> Bool {
        matches(opaque: String(version))
    }

    /// Weak comparison for `If-None-Match`: whether the client holds the tag `"opaque"`.
    func matches(opaque: some StringProtocol) -> Bool {
        any || tags.contains { $0.opaque == opaque }
    }
}
