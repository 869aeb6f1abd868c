import Foundation
public import MapGeometry
public import WireJSON

extension AnnotationContent {
    /// Sizes the server accepts.
    public enum Limits {
        /// Encoded size of `properties`, in bytes (16 KiB).
        public static let maxPropertiesBytes = FreeProperties.maxBytes
        /// Characters of `title` and `subtitle`.
        public static let maxTextLength = 1024
        /// Characters of `externalId`, `kind` and `clusteringIdentifier`.
        public static let maxKeyLength = 256
        /// UTF-8 bytes a key may take (256 four-byte code points).
        public static let maxKeyBytes = 1024
        /// Levels of arrays and objects inside `properties`.
        public static let maxPropertiesDepth = FreeProperties.maxDepth
    }

    /// Throws the first field that breaks a rule, with its path (`title`, `coordinate/latitude`).
    public func validate() throws(FieldError) {
        do { _ = try Coordinate(validatingLatitude: coordinate.latitude, longitude: coordinate.longitude) } catch {
            throw error.nested(under: "coordinate")
        }
        try Self.checkKey(externalId, field: "externalId")
        try Self.checkKey(kind, field: "kind")
        try Self.checkKey(clusteringIdentifier, field: "clusteringIdentifier")
        for (field, text) in [("title", title), ("subtitle", subtitle)] {
            // Characters as JSON Schema counts them: code points.
            if let text, text.unicodeScalars.count > Limits.maxTextLength {
                throw FieldError(path: [field], message: "must be at most \(Limits.maxTextLength) characters, got \(text.unicodeScalars.count)")
            }
            // PostgreSQL's text cannot hold it; refused on every engine, so the contract is one.
            if let text, text.utf8.contains(0) { throw FieldError(path: [field], message: "must not contain U+0000 (NUL)") }
        }
        guard (0...Self.requiredDisplayPriority).contains(displayPriority) else {
            throw FieldError(path: ["displayPriority"], message: "must be between 0 and 1000, got \(displayPriority)")
        }
        if let problem = FreeProperties.problem(with: properties) { throw FieldError(path: ["properties"], message: problem) }
    }

    /// Bytes of the compact JSON encoding of `properties`.
    public static func encodedSize(of properties: [String: JSONValue]) -> Int {
        JSONValue.object(properties).canonicalByteCount
    }

    private static func checkKey(_ value: String?, field: String) throws(FieldError) {
        guard let value else { return }
        // Characters as JSON Schema counts them (code points), and a byte cap so a key always fits
        // the two-byte lengths of a cluster id.
        guard !value.isEmpty, value.unicodeScalars.count <= Limits.maxKeyLength, value.utf8.count <= Limits.maxKeyBytes else {
            throw FieldError(path: [field], message: "must be 1 to \(Limits.maxKeyLength) characters (at most \(Limits.maxKeyBytes) UTF-8 bytes)")
        }
        // Control characters are C0, DEL and C1; plain ASCII text needs no Unicode property lookup.
        let isPlainASCII = value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        guard isPlainASCII || !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw FieldError(path: [field], message: "must not contain control characters")
        }
    }
}
