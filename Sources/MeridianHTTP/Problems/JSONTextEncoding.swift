import Foundation
public import HTTPTypes

/// The one rule for the encoding of a JSON request body, used by ``JSONBodyMiddleware`` (the
/// contract's operations) and ``FastRoutes`` alike: JSON exchanged between systems is UTF-8
/// (RFC 8259 §8.1), without a byte order mark.
///
/// Foundation's decoder also reads UTF-16 and UTF-32 and skips a byte order mark, but Meridian's
/// own readers (``JSONBodyCheck``, the fast routes) read UTF-8 bytes: a body in another encoding
/// went past the repeated-key and forbidden-null checks unread and was then decoded anyway. Such a
/// body is refused whole with 415 Unsupported Media Type — the status RFC 9110 §15.5.16 gives for
/// content in a format the resource does not take, whether the `Content-Type` says so or the data
/// does — the same answer as a body of a media type the operation does not read.
public enum JSONTextEncoding {
    /// The `charset` a JSON body may declare (compared without case); none at all means UTF-8.
    public static let charset = "utf-8"

    /// The 415 for a JSON body that is not UTF-8, or nil when it is (as far as its first bytes and
    /// its `Content-Type` tell): the body starts with a byte order mark, or has a NUL among its first
    /// four bytes (UTF-16 or UTF-32 by RFC 4627 §3's detection: a JSON text starts with two ASCII
    /// characters), or the `Content-Type` has a `charset` other than `utf-8`.
    /// - Parameters:
    ///   - contentType: the request's `Content-Type` field, parameters included.
    ///   - body: the body's bytes as sent.
    public static func refusal(contentType: String?, body: UnsafeRawBufferPointer) -> ProblemError? {
        if let declared = declaredCharset(contentType), declared.lowercased() != charset {
            return refuse("the Content-Type says charset=\(declared)")
        }
        if let encoding = detectedEncoding(body) {
            return refuse("the body is \(encoding)")
        }
        return nil
    }

    /// The value of the `charset` parameter of a `Content-Type` (unquoted), or nil without one.
    public static func declaredCharset(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            let quoted = value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"")
            return quoted ? String(value.dropFirst().dropLast()) : value
        }
        return nil
    }

    /// The encoding a body's first bytes show when it is not plain UTF-8 (a byte order mark, or
    /// RFC 4627 §3's pattern of NULs), or nil.
    public static func detectedEncoding(_ body: UnsafeRawBufferPointer) -> String? {
        let head = Array(body.prefix(4))
        func starts(_ prefix: [UInt8]) -> Bool { head.starts(with: prefix) }
        // Byte order marks, the longer first (UTF-32LE's begins with UTF-16LE's).
        if starts([0x00, 0x00, 0xFE, 0xFF]) { return "UTF-32BE (with a byte order mark)" }
        if starts([0xFF, 0xFE, 0x00, 0x00]) { return "UTF-32LE (with a byte order mark)" }
        if starts([0xFE, 0xFF]) { return "UTF-16BE (with a byte order mark)" }
        if starts([0xFF, 0xFE]) { return "UTF-16LE (with a byte order mark)" }
        if starts([0xEF, 0xBB, 0xBF]) { return "UTF-8 with a byte order mark" }
        guard head.contains(0) else { return nil }
        // 00 00 00 xx, 00 xx 00 xx, xx 00 00 00, xx 00 xx 00 (RFC 4627 §3); any other NUL is no UTF-8 JSON either.
        switch (head.first == 0, head.dropFirst().first == 0, head.dropFirst(2).first == 0) {
        case (true, true, _): return "UTF-32BE"
        case (true, false, _): return "UTF-16BE"
        case (false, true, true): return "UTF-32LE"
        case (false, true, false): return "UTF-16LE"
        default: return "not UTF-8 (it holds a NUL byte)"
        }
    }

    private static func refuse(_ reason: String) -> ProblemError {
        ProblemError(.unsupportedMediaType, detail: "\(reason); JSON bodies must be UTF-8 without a byte order mark (RFC 8259 §8.1)")
    }
}
