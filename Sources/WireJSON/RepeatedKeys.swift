/// Finds a key that appears twice in one JSON object. RFC 8259 leaves such objects'
/// meaning to the reader (Foundation keeps one value, other readers the other), so Meridian
/// refuses them everywhere rather than guess which one the client meant.
public enum RepeatedKeys {
    /// Deeper nesting than this is left to the decoder, which refuses it.
    static let maxDepth = 512

    /// The path (member names and array indexes) of the first key repeated within one object,
    /// or nil when there is none or the text is not valid JSON (the decoder explains that).
    public static func first(in bytes: UnsafeRawBufferPointer) -> [String]? {
        var parser = JSONValueParser(bytes: bytes)
        var path: [String] = []
        var found: [String]?
        _ = walk(&parser, &path, &found, depth: 0)
        return found
    }

    /// Reads one value; false stops the walk (malformed, too deep, or a repeated key found).
    private static func walk(_ parser: inout JSONValueParser, _ path: inout [String], _ found: inout [String]?, depth: Int) -> Bool {
        guard depth < maxDepth else { return false }
        switch parser.peek() {
        case UInt8(ascii: "{"):
            var seen = Set<String>()
            return parser.members { key, parser in
                guard seen.insert(key).inserted else {
                    found = path + [key]
                    return false
                }
                path.append(key)
                defer { path.removeLast() }
                return walk(&parser, &path, &found, depth: depth + 1)
            }
        case UInt8(ascii: "["):
            _ = parser.consume(UInt8(ascii: "["))
            if parser.consume(UInt8(ascii: "]")) { return true }
            var index = 0
            repeat {
                path.append(String(index))
                defer { path.removeLast() }
                guard walk(&parser, &path, &found, depth: depth + 1) else { return false }
                index += 1
            } while parser.consume(UInt8(ascii: ","))
            return parser.consume(UInt8(ascii: "]"))
        default:
            return parser.value() != nil
        }
    }
}
