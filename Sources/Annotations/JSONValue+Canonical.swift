extension JSONValue {
    /// Compact JSON with object keys sorted: one spelling per value, so equal values have equal
    /// text. Storage keeps `properties` in this form and idempotency keys compare requests by it.
    ///
    /// Whole numbers below 2^53 print as integers (`3`, not `3.0`); others in Swift's shortest
    /// round-tripping form. Strings escape `"`, `\` and control characters, nothing else.
    public var canonicalText: String {
        var text = ""
        text.reserveCapacity(64)
        write(to: &text)
        return text
    }

    /// Canonical text of an object's members.
    public static func canonicalText(of members: [String: JSONValue]) -> String {
        JSONValue.object(members).canonicalText
    }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let value):
            if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
                text += String(Int64(value))
            } else {
                text += String(value)
            }
        case .string(let value): Self.writeString(value, to: &text)
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                Self.writeString(key, to: &text)
                text += ":"
                members[key]!.write(to: &text)  // the key came from `members`
            }
            text += "}"
        }
    }

    private static func writeString(_ value: String, to text: inout String) {
        text += "\""
        var plainStart = value.unicodeScalars.startIndex
        var index = plainStart
        let scalars = value.unicodeScalars
        while index != scalars.endIndex {
            let scalar = scalars[index]
            let escaped: String?
            switch scalar {
            case "\"": escaped = "\\\""
            case "\\": escaped = "\\\\"
            case "\n": escaped = "\\n"
            case "\r": escaped = "\\r"
            case "\t": escaped = "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                escaped = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escaped = nil
            }
            if let escaped {
                text.unicodeScalars.append(contentsOf: scalars[plainStart..<index])
                text += escaped
                plainStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        text.unicodeScalars.append(contentsOf: scalars[plainStart..<index])
        text += "\""
    }
}
