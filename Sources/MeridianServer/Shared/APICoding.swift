import MeridianHTTP
import Foundation
import OpenAPIRuntime
import Timeline

/// How the generated handlers read and write JSON: compact, keys sorted (stable answers), and
/// every time through ``Instant`` (RFC 3339, UTC, milliseconds), the writer the fast routes use.
enum APICoding {
    static let configuration = Configuration(dateTranscoder: InstantTranscoder(), jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])
}

/// `Date` ↔ RFC 3339 through ``Instant``: written at the millisecond (stored times are whole
/// milliseconds), read to the microsecond.
struct InstantTranscoder: DateTranscoder {
    struct Unreadable: Error, CustomStringConvertible {
        let text: String
        var description: String { "\"\(text)\" is not an RFC 3339 date-time" }
    }

    func encode(_ date: Date) throws -> String {
        Instant(millisecondOf: date).rfc3339
    }

    func decode(_ text: String) throws -> Date {
        guard let instant = Instant(rfc3339: text) else { throw Unreadable(text: text) }
        return Date(timeIntervalSince1970: instant.secondsSince1970)
    }
}
