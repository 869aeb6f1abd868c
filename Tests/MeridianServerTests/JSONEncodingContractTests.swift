import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// JSON bodies are UTF-8 (RFC 8259 §8.1). Foundation's decoder reads UTF-16 and UTF-32 too, but the
/// repeated-key and forbidden-null checks read UTF-8 bytes: a body in another encoding went past
/// them unread and was decoded anyway. Now every JSON route, generated or fast, answers 415.
@Suite(.watchdog) struct JSONEncodingContractTests {
    /// A route and a body with a key twice in one object (400 at `pointer` in UTF-8).
    struct Route: Sendable, CustomTestStringConvertible {
        let name: String
        var method: HTTPRequest.Method = .post
        let path: String
        var contentType = "application/json"
        let json: String
        let pointer: String
        var testDescription: String { name }
    }

    /// A way to encode a JSON text other than plain UTF-8.
    struct Encoding: Sendable {
        let name: String
        let byteOrderMark: [UInt8]
        let encoding: String.Encoding

        func bytes(_ text: String) -> ByteBuffer {
            ByteBuffer(bytes: byteOrderMark + Array(text.data(using: encoding) ?? Data()))
        }
    }

    static let view = #""size":{"width":256,"height":256},"center":{"latitude":0,"longitude":0}"#

    static let routes: [Route] = [
        Route(name: "a generated operation", path: "/v1/viewport",
              json: #"{"viewport":{\#(view),"zoomLevel":3,"zoomLevel":4}}"#, pointer: "/viewport/zoomLevel"),
        Route(name: "the conversion fast route", path: "/v1/convert/coordinates-to-map-points",
              json: #"{"coordinates":[{"latitude":1,"latitude":2,"longitude":3}]}"#, pointer: "/coordinates/0/latitude"),
        Route(name: "the thin fast route", path: "/v1/annotations/thin",
              json: #"{"viewport":{\#(view),"zoomLevel":3,"zoomLevel":4}}"#, pointer: "/viewport/zoomLevel"),
        Route(name: "the search fast route", path: "/v1/annotations/search",
              json: #"{"filter":"kind = 'cafe'","limit":1,"limit":2}"#, pointer: "/limit"),
        Route(name: "the nearest fast route", path: "/v1/annotations/nearest",
              json: #"{"point":{"latitude":0,"longitude":0},"point":{"latitude":1,"longitude":1}}"#, pointer: "/point"),
        Route(name: "the ingest fast route", path: "/v1/devices/van-1/locations",
              json: #"{"locations":[],"locations":[]}"#, pointer: "/locations"),
        Route(name: "the import fast route", path: "/v1/annotations/import", contentType: "application/geo+json",
              json: #"{"type":"FeatureCollection","features":[],"features":[]}"#, pointer: "/features"),
    ]

    static let encodings: [Encoding] = [
        Encoding(name: "UTF-16LE", byteOrderMark: [], encoding: .utf16LittleEndian),
        Encoding(name: "UTF-16BE", byteOrderMark: [], encoding: .utf16BigEndian),
        Encoding(name: "UTF-32LE", byteOrderMark: [], encoding: .utf32LittleEndian),
        Encoding(name: "UTF-32BE", byteOrderMark: [], encoding: .utf32BigEndian),
        Encoding(name: "UTF-16LE with a byte order mark", byteOrderMark: [0xFF, 0xFE], encoding: .utf16LittleEndian),
        Encoding(name: "UTF-32BE with a byte order mark", byteOrderMark: [0x00, 0x00, 0xFE, 0xFF], encoding: .utf32BigEndian),
        Encoding(name: "UTF-8 with a byte order mark", byteOrderMark: [0xEF, 0xBB, 0xBF], encoding: .utf8),
    ]

    @Test(arguments: routes)
    func aBodyNotInUTF8Is415OnEveryJSONRoute(_ route: Route) async throws {
        try await TestApp.withClient { client in
            let headers: HTTPFields = [.contentType: route.contentType]
            // In UTF-8 the repeated key is found; in any other encoding it was decoded past unseen.
            let plain = try await client.execute(uri: route.path, method: route.method, headers: headers, body: ByteBuffer(string: route.json))
            #expect(try plain.problem(.badRequest).pointers == [route.pointer])
            for encoding in Self.encodings {
                let response = try await client.execute(uri: route.path, method: route.method, headers: headers, body: encoding.bytes(route.json))
                let problem = try response.problem(.unsupportedMediaType)
                #expect(problem.detail?.contains("must be UTF-8") == true, "\(encoding.name): \(problem)")
            }
        }
    }

    @Test func aCharsetOtherThanUTF8Is415AndUTF8IsTaken() async throws {
        let valid: [(path: String, json: String)] = [
            ("/v1/viewport", #"{"viewport":{\#(Self.view),"zoomLevel":3}}"#),  // generated
            ("/v1/convert/coordinates-to-map-points", #"{"coordinates":[{"latitude":1,"longitude":2}]}"#),  // fast
        ]
        try await TestApp.withClient { client in
            for (path, json) in valid {
                for contentType in ["application/json; charset=utf-16", "application/json;charset=ISO-8859-1", #"application/json; charset="utf-32""#] {
                    let problem = try await client.post(path, json: json, contentType: contentType).problem(.unsupportedMediaType)
                    #expect(problem.detail?.contains("charset=") == true, "\(path) \(contentType): \(problem)")
                }
                for contentType in ["application/json; charset=utf-8", #"application/json; charset="UTF-8""#, "application/json"] {
                    let response = try await client.post(path, json: json, contentType: contentType)
                    #expect(response.status == .ok, "\(path) \(contentType): \(String(buffer: response.body))")
                }
            }
        }
    }
}
