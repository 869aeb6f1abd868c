import Foundation
import HTTPTypes
import Hummingbird

/// Where the apps behind ``IngestAdapterRoutes`` can put an API key, on those routes only: the
/// `Authorization: Bearer` header as everywhere, else the password of HTTP Basic (OwnTracks'
/// user name and password fields), else a `key` or `access_token` query parameter (apps whose
/// settings are a URL). The request log writes route templates, never a query or a header, so
/// the key is not in it.
enum IngestCredentials {
    /// The request's credential as an `Authorization: Bearer` value; the header as sent when the
    /// path is not an adapter's or nothing else carries a key.
    static func authorization(_ request: Request) -> String? {
        let header = request.headers[.authorization]
        guard Paths.ingestAdapters.contains(request.uri.path) else { return header }
        if let header, !header.drop(while: { $0 == " " }).lowercased().hasPrefix("basic ") { return header }
        if let password = basic(header)?.password, !password.isEmpty { return "Bearer \(password)" }
        if let query = request.uri.query, let fields = FormFields(Substring(query)), let key = fields["key"] ?? fields["access_token"] {
            return "Bearer \(key)"
        }
        return header
    }

    /// The user name and password of an `Authorization: Basic` value (RFC 7617), nil for any other.
    static func basic(_ header: String?) -> (user: String, password: String)? {
        guard let header else { return nil }
        let trimmed = header.drop(while: { $0 == " " })
        guard trimmed.prefix(6).lowercased() == "basic ",
              let data = Data(base64Encoded: String(trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces))),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
