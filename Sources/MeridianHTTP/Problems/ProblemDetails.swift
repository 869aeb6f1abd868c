public import Foundation
public import HTTPTypes

/// An RFC 9457 problem, with the fields at fault listed in `errors`.
public struct ProblemDetails: Codable, Sendable, Equatable {
    /// One field at fault: a JSON pointer into the body, or a query/path parameter.
    public struct FieldError: Codable, Sendable, Equatable {
        /// RFC 6901 pointer into the request body, e.g. `/coordinates/3/latitude`.
        public var pointer: String?
        /// The query or path parameter at fault.
        public var parameter: String?
        /// What is wrong with it.
        public var detail: String

        public init(pointer: String? = nil, parameter: String? = nil, detail: String) {
            (self.pointer, self.parameter, self.detail) = (pointer, parameter, detail)
        }
    }

    public var type: String
    public var title: String
    public var status: Int
    public var detail: String?
    public var errors: [FieldError]?
    /// On a 410 for a cursor retention overtook: the first sequence the event log still holds.
    public var firstAvailableSequence: Int64?
    /// Seconds a client should wait before it retries (`Retry-After`); not part of the body.
    public var retryAfter: Int?
    /// The methods the resource does take (`Allow`, which a 405 must carry); not part of the body.
    public var allow: String?

    private enum CodingKeys: String, CodingKey { case type, title, status, detail, errors, firstAvailableSequence }

    /// A problem with the status's reason phrase as title; `type` is about:blank unless named.
    public init(status: HTTPResponse.Status, detail: String?, errors: [FieldError]? = nil, type: String = "about:blank", retryAfter: Int? = nil, allow: String? = nil) {
        self.type = type
        self.title = status.reasonPhrase
        self.status = status.code
        self.detail = detail
        self.errors = errors
        self.retryAfter = retryAfter
        self.allow = allow
    }

    /// The media type problems are sent as.
    public static let mediaType = "application/problem+json"

    /// The JSON body: sorted keys, so answers are stable.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and integers cannot fail.
        return (try? encoder.encode(self)) ?? Data(#"{"status":500,"title":"Internal Server Error","type":"about:blank"}"#.utf8)
    }
}
