import Synchronization

/// Numbers no Double prints as (`9007199254740993`, `1e-400`) through coders that hold and write
/// only Doubles and Ints (Foundation's encoder, the OpenAPI runtime's containers): such a number
/// travels as a string mark (a prefix unique to this process, then the number's text), and once
/// encoded each `"<mark>"` becomes the text itself. A client cannot send a mark: it cannot know
/// the prefix. Reading them back exactly is ``RequestJSON``'s part.
public enum ExactNumbers {
    /// `meridian-exact-<random>:`, chosen at start; letters, digits and punctuation no encoder escapes.
    static let prefix: [UInt8] = Array("meridian-exact-\(UInt64.random(in: .min ... .max))-\(UInt64.random(in: .min ... .max)):".utf8)

    /// Whether marks were made, for the task that asked (``encoding(_:)``, ``marking(_:)``).
    final class Marks: Sendable {
        let made = Atomic<Bool>(false)
    }

    @TaskLocal static var marks: Marks?

    /// Whether marks are being collected: an encoding may write them.
    public static var collecting: Bool { marks != nil }

    /// The mark standing for the number spelt `text`.
    public static func mark(_ text: String) -> String {
        marks?.made.store(true, ordering: .relaxed)
        return String(decoding: prefix, as: UTF8.self) + text
    }

    /// Runs `encode` (which encodes ``JSONValue``s) and puts each number back in place of its mark
    /// in what it returns.
    public static func encoding(_ encode: () throws -> [UInt8]) rethrows -> [UInt8] {
        let marks = Marks()
        let bytes = try $marks.withValue(marks) { try encode() }
        return marks.made.load(ordering: .relaxed) ? resolve(bytes) : bytes
    }

    /// Runs `body` and says whether it made marks (its output then goes through ``resolve(_:)``).
    public static func marking<Result>(_ body: () async throws -> Result) async rethrows -> (Result, marked: Bool) {
        let marks = Marks()
        let result = try await $marks.withValue(marks) { try await body() }
        return (result, marks.made.load(ordering: .relaxed))
    }

    /// `json` with each `"<mark><text>"` replaced by `<text>`.
    public static func resolve(_ json: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        var index = 0
        while index < json.count {
            let byte = json[index]
            if byte == UInt8(ascii: "\""), json.count - index > prefix.count, json[(index + 1)...].starts(with: prefix),
               let close = json[(index + 1 + prefix.count)...].firstIndex(of: UInt8(ascii: "\"")) {
                out += json[(index + 1 + prefix.count)..<close]
                index = close + 1
            } else {
                out.append(byte)
                index += 1
            }
        }
        return out
    }
}
