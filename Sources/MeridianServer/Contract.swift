/// The contract file, `openapi.yaml`, compiled into the server (SwiftPM `embedInCode`), so the
/// binary serves the contract it was built from wherever it runs.
struct Contract: Sendable {
    /// The YAML text.
    let text: String

    /// The embedded copy.
    static func load() -> Contract {
        Contract(text: String(decoding: PackageResources.openapi_yaml, as: UTF8.self))
    }
}
