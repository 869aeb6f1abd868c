import MeridianHTTP
import WireJSON

/// The API definition the landing page's `service-desc` names (`/ogc/api`): the contract with
/// only its `/ogc` paths, written relative to the OGC API's root (`/collections/{collectionId}/items`)
/// and `servers` naming that root, as OGC API clients look operations up (GDAL's OAPIF driver reads
/// the items operation's `filter-lang` there before it sends a filter to the server).
enum OGCAPIDefinition {
    /// The document for a client that reached the OGC API at `root` (`http://host:port/ogc`).
    static func document(_ contract: Contract, root: String) -> [String: JSONValue] {
        let parsed = contract.jsonText.withUnsafeBytes { JSONValueParser.parse($0) }
        guard case .object(var document)? = parsed else { return [:] }
        var paths: [String: JSONValue] = [:]
        for (path, item) in document["paths"]?.objectValue ?? [:] where path == "/ogc" || path.hasPrefix("/ogc/") {
            let relative = String(path.dropFirst("/ogc".count))
            paths[relative.isEmpty ? "/" : relative] = item
        }
        document["paths"] = .object(paths)
        document["servers"] = .array([.object(["url": .string(root), "description": .string("The OGC API – Features root")])])
        if case .object(var info)? = document["info"] {
            info["title"] = .string("Meridian OGC API – Features")
            info["description"] = .string("The /ogc part of Meridian's contract (all of it: /openapi.json), its paths relative to the OGC API's root.")
            document["info"] = .object(info)
        }
        if case .array(let tags)? = document["tags"] {
            document["tags"] = .array(tags.filter { $0.objectValue?["name"] == .string("OGC") })
        }
        return document
    }
}
