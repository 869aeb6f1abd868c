import MeridianHTTP

extension Contract {
    /// The contract file compiled into the server (SwiftPM `embedInCode`), so the binary serves the
    /// contract it was built from wherever it runs.
    static func load() throws -> Contract {
        try read(yaml: String(decoding: PackageResources.openapi_yaml, as: UTF8.self))
    }
}
