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
            parameterTypes: parameterTypes(document), requestNulls: requestNulls(document), representations: representations(node)
        )
    }

    /// Every operation of the document with the parameters its path item shares.
    public static func operations(_ document: JSONValue) -> [(operation: JSONValue, shared: [JSONValue])] {
        (document["paths"]?.objectValue ?? [:]).values.flatMap { item in
            (item.objectValue ?? [:]).values.filter { $0["operationId"] != nil }.map { ($0, item["parameters"]?.arrayValue ?? []) }
        }
    }

    private static func parameterTypes(_ document: JSONValue) -> [String: [String: String]] {
        let components = document["components"]?["parameters"]?.objectValue ?? [:]
        func resolve(_ parameter: JSONValue) -> JSONValue? {
            guard let ref = parameter["$ref"]?.stringValue else { return parameter.objectValue == nil ? nil : parameter }
            return components[String(ref.split(separator: "/").last ?? "")]
        }
        var types: [String: [String: String]] = [:]
        for (operation, shared) in operations(document) {
            guard let id = operation["operationId"]?.stringValue else { continue }
            for parameter in (shared + (operation["parameters"]?.arrayValue ?? [])).compactMap(resolve) {
                guard let name = parameter["name"]?.stringValue, let type = parameter["schema"]?["type"]?.stringValue else { continue }
                types[id, default: [:]][name] = type
            }
        }
        return types
    }
}

/// The embedded contract could not be read: a build error, reported at startup.
public struct ContractError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
