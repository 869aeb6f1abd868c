import Foundation
public import OpenAPIRuntime
public import WireJSON
import Yams

/// The contract, `openapi.yaml`: its text, the same document as JSON (converted once at startup,
/// for tools that do not read YAML), and the rules read from it (parameter types, where bodies
/// may hold `null`).
public struct Contract: Sendable {
    /// The YAML text.
    public let text: String
    /// The same document as a JSON object.
    public let json: OpenAPIObjectContainer
    /// The same document as compact JSON text with every mapping's members in the YAML's order
    /// (generated clients follow the document's order, so both forms generate the same client).
    public let jsonText: [UInt8]
    /// Per operation id, the JSON Schema type of each query and header parameter (`integer`,
    /// `number`, `boolean`, `string`), to name the parameter a request got wrong.
    public let parameterTypes: [String: [String: String]]
    /// Per operation id, the values a query or header parameter with an `enum` may take.
    public let parameterEnums: [String: [String: [String]]]
    /// Per operation id, where its request body may hold `null`.
    public let requestNulls: [String: NullShape]
    /// `"GET /openapi.yaml"` → the media types its successes answer with, first declared first.
    public let representations: [String: [String]]

    /// The contract in `text` (YAML).
    public static func read(yaml text: String) throws -> Contract {
        guard let node = try Yams.compose(yaml: text), case .object(let members) = try JSONValue(yaml: node) else {
            throw ContractError(reason: "openapi.yaml is not a YAML mapping")
        }
        let document = JSONValue.object(members)
        var jsonText = JSONWriter(capacity: text.utf8.count)
        try jsonText.yaml(node)
        return Contract(
            text: text, json: try OpenAPIObjectContainer(unvalidatedValue: members.mapValues(\.runtimeValue)), jsonText: jsonText.bytes,
            parameterTypes: parameterTypes(document), parameterEnums: parameterEnums(document), requestNulls: requestNulls(document), representations: representations(node)
        )
    }

    /// Every operation of the document with the parameters its path item shares.
    public static func operations(_ document: JSONValue) -> [(operation: JSONValue, shared: [JSONValue])] {
        (document["paths"]?.objectValue ?? [:]).values.flatMap { item in
            (item.objectValue ?? [:]).values.filter { $0["operationId"] != nil }.map { ($0, item["parameters"]?.arrayValue ?? []) }
        }
    }

    private static func parameterTypes(_ document: JSONValue) -> [String: [String: String]] {
        parameterRules(document) { parameter, _ in parameter["schema"]?["type"]?.stringValue }
    }

    private static func parameterEnums(_ document: JSONValue) -> [String: [String: [String]]] {
        parameterRules(document) { parameter, resolve in
            guard parameter["in"]?.stringValue != "path", let schema = parameter["schema"].flatMap(resolve) else { return nil }
            return schema["enum"]?.arrayValue?.compactMap(\.stringValue)
        }
    }

    /// Per operation id and parameter name, what `rule` reads from the parameter (its `$ref`s
    /// resolved; `resolve` resolves a schema's).
    private static func parameterRules<Rule>(
        _ document: JSONValue, _ rule: (JSONValue, (JSONValue) -> JSONValue?) -> Rule?
    ) -> [String: [String: Rule]] {
        func resolve(_ value: JSONValue) -> JSONValue? {
            guard let ref = value["$ref"]?.stringValue else { return value.objectValue == nil ? nil : value }
            let parts = ref.split(separator: "/").dropFirst(2).map(String.init)  // #/components/<kind>/<name>
            guard parts.count == 2 else { return nil }
            return document["components"]?[parts[0]]?[parts[1]]
        }
        var rules: [String: [String: Rule]] = [:]
        for (operation, shared) in operations(document) {
            guard let id = operation["operationId"]?.stringValue else { continue }
            for parameter in (shared + (operation["parameters"]?.arrayValue ?? [])).compactMap(resolve) {
                guard let name = parameter["name"]?.stringValue, let value = rule(parameter, resolve) else { continue }
                rules[id, default: [:]][name] = value
            }
        }
        return rules
    }
}

/// The embedded contract could not be read: a build error, reported at startup.
public struct ContractError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
