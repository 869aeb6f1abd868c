import Foundation
import HTTPTypes

/// An RFC 9457 problem, with the fields at fault listed in `errors`.
struct ProblemDetails: Codable, Sendable, Equatable {
    /// One field at fault: a JSON pointer into the body, or a query/path parameter.
    struct FieldError: Codable, Sendable, Equatable {
        /// RFC 6901 pointer into the request body, e.g. `/coordinates/3/latitude`.
        var pointer: String?
        /// The query or path parameter at fault.
        var parameter: String?
        /// What is wrong with it.
        var detail: String
    }

    var type: String
    var title: String
    var status: Int
    var detail: String?
    var errors: [FieldError]?
    /// Seconds a client should wait before it retries (`Retry-After`); not part of the body.
    var retryAfter: Int?

    private enum CodingKeys: String, CodingKey { case type, title, status, detail, errors }

    /// A problem with the status's reason phrase as title; `type` is about:blank unless named.
    init(status: HTTPResponse.Status, detail: String?, errors: [FieldError]? = nil, type: String = "about:blank", retryAfter: Int? = nil) {
        self.type = type
        self.title = status.reasonPhrase
        self.status = status.code
        self.detail = detail
        self.errors = errors
        self.retryAfter = retryAfter
    }

    /// The media type problems are sent as.
    static let mediaType = "application/problem+json"

    /// The JSON body: sorted keys, so answers are stable.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and integers cannot fail.
        return (try? encoder.encode(self)) ?? Data(#"{"status":500,"title":"Internal Server Error","type":"about:blank"}"#.utf8)
    }
}
