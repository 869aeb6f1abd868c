/// The rules for a free `properties` object (an annotation's, a subscription's) and the one
/// way a merge patch changes it.
public enum FreeProperties {
    /// Encoded size, in bytes (16 KiB).
    public static let maxBytes = 16 * 1024
    /// Levels of arrays and objects inside (answers wrap them in a few more, and JSON coders stop at 512).
    public static let maxDepth = 32

    /// What is wrong with `properties`, if anything: too deep or too large.
    public static func problem(with properties: [String: JSONValue]) -> String? {
        let depth = JSONValue.object(properties).nestingDepth
        if depth > maxDepth { return "must nest at most \(maxDepth) levels of arrays and objects, got \(depth)" }
        let size = JSONValue.object(properties).canonicalByteCount
        if size > maxBytes { return "must encode to at most \(maxBytes) bytes, got \(size)" }
        return nil
    }

    /// RFC 7386 MergePatch on objects: null removes, objects merge recursively, anything else replaces.
    public static func merge(_ target: [String: JSONValue], _ patch: [String: JSONValue]) -> [String: JSONValue] {
        var result = target
        for (key, value) in patch {
            switch value {
            case .null: result[key] = nil
            case .object(let members): result[key] = .object(merge(result[key]?.objectValue ?? [:], members))
            default: result[key] = value
            }
        }
        return result
    }
}
