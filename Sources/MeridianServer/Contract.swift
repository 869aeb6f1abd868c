import MeridianHTTP
import Foundation
import OpenAPIRuntime
import WireJSON
import Yams

/// The contract file, `openapi.yaml`, compiled into the server (SwiftPM `embedInCode`), so the
/// binary serves the contract it was built from wherever it runs; and the same document as JSON,
/// converted once at startup, for tools that do not read YAML.
struct Contract: Sendable {
    /// The YAML text.
    let text: String
    /// The same document as a JSON object.
    let json: OpenAPIObjectContainer
    /// Per operation id, the JSON Schema type of each query and header parameter (`integer`,
    /// `number`, `boolean`, `string`), to name the parameter a request got wrong.
    let parameterTypes: [String: [String: String]]
    /// Per operation id, where its request body may hold `null`.
    let requestNulls: [String: NullShape]

    /// The embedded copy.
    static func load() throws -> Contract {
        let text = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)
        guard let document = try Yams.load(yaml: text) as? [String: Any] else {
            throw ContractError(reason: "openapi.yaml is not a YAML mapping")
        }
        return Contract(
            text: text, json: try OpenAPIObjectContainer(unvalidatedValue: document.mapValues(sendable)),
            parameterTypes: parameterTypes(document), requestNulls: requestNulls(document)
        )
    }

    private static func parameterTypes(_ document: [String: Any]) -> [String: [String: String]] {
        let components = (document["components"] as? [String: Any])?["parameters"] as? [String: Any] ?? [:]
        func resolve(_ parameter: Any) -> [String: Any]? {
            guard let parameter = parameter as? [String: Any] else { return nil }
            guard let ref = parameter["$ref"] as? String else { return parameter }
            return components[String(ref.split(separator: "/").last ?? "")] as? [String: Any]
        }
        var types: [String: [String: String]] = [:]
        for case let item as [String: Any] in (document["paths"] as? [String: Any] ?? [:]).values {
            let shared = (item["parameters"] as? [Any] ?? []).compactMap(resolve)
            for case let operation as [String: Any] in item.values {
                guard let id = operation["operationId"] as? String else { continue }
                for parameter in shared + (operation["parameters"] as? [Any] ?? []).compactMap(resolve) {
                    guard let name = parameter["name"] as? String, let type = (parameter["schema"] as? [String: Any])?["type"] as? String else { continue }
                    types[id, default: [:]][name] = type
                }
            }
        }
        return types
    }

    /// A YAML value as the JSON value it stands for (mappings, sequences, strings, numbers, booleans, null).
    private static func sendable(_ value: Any) -> (any Sendable)? {
        switch value {
        case let mapping as [String: Any]: mapping.mapValues(sendable)
        case let sequence as [Any]: sequence.map(sendable)
        case let scalar as String: scalar
        case let scalar as Bool: scalar
        case let scalar as Int: scalar
        case let scalar as Double: scalar
        case is NSNull: nil
        default: String(describing: value)
        }
    }
}

/// The embedded contract could not be read: a build error, reported at startup.
struct ContractError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
