import Foundation

/// The contract file, `openapi.yaml`, as the server ships it.
struct Contract: Sendable {
    /// The YAML text.
    let text: String

    /// Reads the copy bundled with the server.
    static func load() throws -> Contract {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw ContractMissing()
        }
        return Contract(text: try String(contentsOf: url, encoding: .utf8))
    }

    struct ContractMissing: Error, CustomStringConvertible {
        var description: String { "openapi.yaml is missing from the server's resources" }
    }
}
