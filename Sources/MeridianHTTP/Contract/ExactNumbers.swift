public import HTTPTypes
public import OpenAPIRuntime
import Synchronization

/// Numbers no Double prints as (`9007199254740993`, `1e-400`) through the runtime's containers and
/// Foundation's encoder, which hold and write only Doubles and Ints: such a number travels as a
/// string mark (a prefix unique to this process, then the number's text), and once encoded each
/// `"<mark>"` becomes the text itself. A client cannot send a mark: it cannot know the prefix.
public enum ExactNumbers {
    /// `meridian-exact-<random>:`, chosen at start; letters, digits and punctuation no encoder escapes.
    static let prefix: [UInt8] = Array("meridian-exact-\(UInt64.random(in: .min ... .max))-\(UInt64.random(in: .min ... .max)):".utf8)

    /// Whether marks were made while encoding, for the task that asked (``encoding(_:)``).
    final class Marks: Sendable {
        let made = Atomic<Bool>(false)
    }

    @TaskLocal static var marks: Marks?

    /// The mark standing for the number spelt `text`.
    static func mark(_ text: String) -> String {
        marks?.made.store(true, ordering: .relaxed)
        return String(decoding: prefix, as: UTF8.self) + text
    }

    /// Runs `encode` (which encodes values holding ``JSONValue/runtimeValue``s) and puts each number
    /// back in place of its mark in what it returns.
    public static func encoding(_ encode: () throws -> [UInt8]) rethrows -> [UInt8] {
        let marks = Marks()
        let bytes = try $marks.withValue(marks) { try encode() }
        return marks.made.load(ordering: .relaxed) ? resolve(bytes) : bytes
    }

    /// Runs `body` (a generated handler and its encoding) and puts each number back in place of its
    /// mark in the answer's body.
    public static func answering(
        _ body: () async throws -> (HTTPResponse, HTTPBody?), maxBodySize: Int
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let marks = Marks()
        let (response, answer) = try await $marks.withValue(marks) { try await body() }
        guard marks.made.load(ordering: .relaxed), let answer else { return (response, answer) }
        var resolved = response
        let bytes = resolve(try await [UInt8](collecting: answer, upTo: maxBodySize))
        if resolved.headerFields[.contentLength] != nil { resolved.headerFields[.contentLength] = String(bytes.count) }
        return (resolved, HTTPBody(bytes))
    }

    /// `json` with each `"<mark><text>"` replaced by `<text>`.
    static func resolve(_ json: [UInt8]) -> [UInt8] {
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
