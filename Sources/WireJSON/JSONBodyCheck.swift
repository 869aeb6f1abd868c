/// What no request body may hold, whatever else its schema says: a key twice in one object
/// (RFC 8259 leaves such objects' meaning to the reader: Foundation keeps one value, other readers
/// the other, so Meridian refuses them everywhere rather than guess), or `null` where the schema
/// does not allow it (a decoder reads a null optional field as absent, which the schema forbids).
public enum JSONBodyCheck {
    /// Deeper nesting than this is left to the decoder, which refuses it.
    static let maxDepth = 512

    /// The first thing wrong, at its path (member names and array indexes).
    public enum Finding: Hashable, Sendable {
        case repeatedKey([String])
        case null([String])
    }

    /// The first finding in document order, or nil when there is none or the text is not valid JSON
    /// (the decoder explains that).
    /// - Parameter nulls: where the body may hold `null`; nil lets it hold null anywhere.
    public static func first(in bytes: UnsafeRawBufferPointer, nulls: NullShape? = nil) -> Finding? {
        var parser = JSONValueParser(bytes: bytes)
        var path: [String] = []
        var found: Finding?
        _ = walk(&parser, &path, &found, nulls, depth: 0)
        return found
    }

    /// Reads one value; false stops the walk (malformed, too deep, or a finding).
    private static func walk(_ parser: inout JSONValueParser, _ path: inout [String], _ found: inout Finding?, _ shape: NullShape?, depth: Int) -> Bool {
        guard depth < maxDepth else { return false }
        switch parser.peek() {
        case UInt8(ascii: "{"):
            var seen = Set<String>()
            return parser.members { key, parser in
                guard seen.insert(key).inserted else {
                    found = .repeatedKey(path + [key])
                    return false
                }
                path.append(key)
                defer { path.removeLast() }
                return walk(&parser, &path, &found, shape?.member(key), depth: depth + 1)
            }
        case UInt8(ascii: "["):
            _ = parser.consume(UInt8(ascii: "["))
            if parser.consume(UInt8(ascii: "]")) { return true }
            var index = 0
            repeat {
                path.append(String(index))
                defer { path.removeLast() }
                guard walk(&parser, &path, &found, shape?.items, depth: depth + 1) else { return false }
                index += 1
            } while parser.consume(UInt8(ascii: ","))
            return parser.consume(UInt8(ascii: "]"))
        case UInt8(ascii: "n") where shape?.nullable == false:
            guard parser.value() == .null else { return false }
            found = .null(path)
            return false
        default:
            return parser.value() != nil
        }
    }
}

/// Where a JSON value may be `null`, read off its JSON Schema: whether the value itself may be,
/// and the same for its members and items. A member the shape does not list may be anything.
public final class NullShape: Sendable {
    public let nullable: Bool
    public let members: [String: NullShape]
    /// Members not listed (`additionalProperties`); nil: anything.
    public let otherMembers: NullShape?
    /// Whether members not listed are refused (`additionalProperties: false`).
    public let closed: Bool
    public let items: NullShape?

    public init(nullable: Bool, members: [String: NullShape] = [:], otherMembers: NullShape? = nil, closed: Bool = false, items: NullShape? = nil) {
        self.nullable = nullable
        self.members = members
        self.otherMembers = otherMembers
        self.closed = closed
        self.items = items
    }

    func member(_ key: String) -> NullShape? { members[key] ?? otherMembers }
}
