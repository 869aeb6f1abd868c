import Yams

/// The media types each operation answers with, read off the contract in its own order (a JSON
/// object would lose it, and the first declared type is the one a client that names none gets).
extension Contract {
    /// `"GET /openapi.yaml"` → the media types of its 2xx responses, first declared first, each once.
    /// An operation whose successes have no body (204) maps to an empty list.
    static func representations(_ document: Node) -> [String: [String]] {
        let shared = document["components"]?["responses"]
        var found: [String: [String]] = [:]
        for (path, item) in document["paths"]?.mapping ?? [:] {
            for (method, operation) in item.mapping ?? [:] where operation["operationId"] != nil {
                var types: [String] = []
                for (status, response) in operation["responses"]?.mapping ?? [:] where status.string?.hasPrefix("2") == true {
                    let resolved = response["$ref"]?.string.flatMap { shared?[String($0.split(separator: "/").last ?? "")] } ?? response
                    for (type, _) in resolved["content"]?.mapping ?? [:] {
                        if let type = type.string, !types.contains(type) { types.append(type) }
                    }
                }
                found["\(method.string?.uppercased() ?? "") \(path.string ?? "")"] = types
            }
        }
        return found
    }
}
