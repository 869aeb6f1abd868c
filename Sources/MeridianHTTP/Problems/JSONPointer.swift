import Foundation

/// RFC 6901 JSON pointers, built from field names and array indexes.
public enum JSONPointer {
    /// `/a/3/b` from ["a", "3", "b"]; `~` and `/` escaped.
    public static func make(_ components: some Sequence<String>) -> String {
        components.map { "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }.joined()
    }

    /// A pointer extended by more components.
    public static func append(_ pointer: String, _ components: [String]) -> String {
        pointer + make(components)
    }
}
