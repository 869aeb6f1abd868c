import Access
import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// OGC API – Features reads under `/ogc` (Part 1 and Part 3) on the `annotations` collection.
@Suite(.watchdog) struct OGCContractTests {
    /// The annotations of a test: `kind` `shop` or `cafe`, a free `rating`, at these longitudes on the equator.
    static func seed(_ client: any TestClientProtocol, longitudes: [Double]) async throws -> [WireAnnotation] {
        var made: [WireAnnotation] = []
        for (index, longitude) in longitudes.enumerated() {
            let kind = index % 2 == 0 ? "shop" : "cafe"
            made.append(try await client.createAnnotation(
                #"{"coordinate":{"latitude":1,"longitude":\#(longitude)},"kind":"\#(kind)","title":"P\#(index)","properties":{"rating":\#(index)}}"#))
        }
        return made
    }

    @Test func theLandingPageLinksTheDescriptionConformanceAndData() async throws {
        try await TestApp.withClient { client in
            for path in ["/ogc", "/ogc/", "/ogc?f=json"] {
                let response = try await client.send(.get, path)
                #expect(response.status == .ok && response.headers[.contentType] == "application/json; charset=utf-8", "\(path)")
                struct Landing: Decodable { var links: [OGCWireLink] }
                let rels = try response.decode(Landing.self).links.map(\.rel)
                #expect(Set(rels).isSuperset(of: ["self", "service-desc", "conformance", "data"]), "\(rels)")
            }
            // Links are absolute, from the Host the client reached (the router test client's is localhost).
            struct Landing: Decodable { var links: [OGCWireLink] }
            let links = try await client.get("/ogc", as: Landing.self).links
            #expect(links.first { $0.rel == "data" }?.href == "http://localhost/ogc/collections")
            #expect(links.first { $0.rel == "describedby" }?.href == "http://localhost/openapi.json")
            _ = try await client.send(.get, "/ogc?f=xml").problem(.badRequest)
        }
    }

    @Test func theServiceDescriptionHoldsTheOGCPathsRelativeToTheRoot() async throws {
        try await TestApp.withClient { client in
            struct Landing: Decodable { var links: [OGCWireLink] }
            let described = try await client.get("/ogc", as: Landing.self).links.filter { $0.rel == "service-desc" }
            // One service-desc: GDAL 3.6 ignores several unless one is typed OpenAPI 3.0.
            #expect(described.map(\.href) == ["http://localhost/ogc/api"])
            let response = try await client.send(.get, "/ogc/api", headers: [.accept: "application/vnd.oai.openapi+json;version=3.0, application/json"])
            #expect(response.status == .ok && response.headers[.contentType] == "application/json; charset=utf-8")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
            #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
            #expect((document["servers"] as? [[String: Any]])?.first?["url"] as? String == "http://localhost/ogc")
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            #expect(Set(paths.keys).isSuperset(of: ["/", "/conformance", "/collections", "/collections/{collectionId}/items", "/collections/{collectionId}/items/{featureId}"]))
            #expect(!paths.keys.contains { $0.hasPrefix("/v1") || $0.hasPrefix("/ogc") })
            // The items operation's filter-lang lists cql-text in an inline enum (what GDAL 3.6 looks for).
            let parameters = try #require((paths["/collections/{collectionId}/items"]?["get"] as? [String: Any])?["parameters"] as? [[String: Any]])
            let components = try #require((document["components"] as? [String: Any])?["parameters"] as? [String: [String: Any]])
            let resolved = parameters.map { parameter in (parameter["$ref"] as? String).flatMap { components[String($0.split(separator: "/").last!)] } ?? parameter }
            let lang = try #require(resolved.first { $0["name"] as? String == "filter-lang" })
            #expect(((lang["schema"] as? [String: Any])?["enum"] as? [String])?.contains("cql-text") == true)
        }
    }

    @Test func conformanceDeclaresCoreGeoJSONAndFilteringButNotOpenAPI30() async throws {
        try await TestApp.withClient { client in
            struct Conformance: Decodable { var conformsTo: [String] }
            let classes = try await client.get("/ogc/conformance", as: Conformance.self).conformsTo
            for required in ["ogcapi-features-1/1.0/conf/core", "ogcapi-features-1/1.0/conf/geojson", "ogcapi-features-3/1.0/conf/filter",
                             "ogcapi-features-3/1.0/conf/features-filter", "ogcapi-features-3/1.0/conf/queryables", "cql2/1.0/conf/cql2-text",
                             "ogcapi-features-4/1.0/conf/create-replace-delete"] {
                #expect(classes.contains("http://www.opengis.net/spec/" + required), "\(required)")
            }
            #expect(!classes.contains { $0.hasSuffix("/oas30") }, "the contract is OpenAPI 3.1")
        }
    }

    @Test func collectionsListAnnotationsWithItsLinksAndExtent() async throws {
        try await TestApp.withClient { client in
            struct Collection: Decodable {
                struct Extent: Decodable {
                    struct Spatial: Decodable { var bbox: [[Double]] }
                    struct Temporal: Decodable { var interval: [[String?]] }
                    var spatial: Spatial; var temporal: Temporal?
                }
                var id: String; var links: [OGCWireLink]; var extent: Extent; var crs: [String]
            }
            struct Collections: Decodable { var collections: [Collection]; var links: [OGCWireLink] }
            _ = try await Self.seed(client, longitudes: [10])
            let all = try await client.get("/ogc/collections", as: Collections.self)
            let annotations = try #require(all.collections.first { $0.id == "annotations" })
            #expect(annotations.links.contains { $0.rel == "items" && $0.href == "http://localhost/ogc/collections/annotations/items" && $0.type == "application/geo+json" })
            #expect(annotations.links.contains { $0.rel == "http://www.opengis.net/def/rel/ogc/1.0/queryables" })
            #expect(annotations.links.contains { $0.rel == "queryables" && $0.type == "application/json" })
            #expect(annotations.extent.spatial.bbox == [[-180, -90, 180, 90]])
            #expect(annotations.extent.temporal?.interval.first?.first??.isEmpty == false)
            #expect(annotations.crs.first == "http://www.opengis.net/def/crs/OGC/1.3/CRS84")
            let one = try await client.get("/ogc/collections/annotations", as: Collection.self)
            #expect(one.id == "annotations" && one.links.contains { $0.rel == "self" })
            _ = try await client.send(.get, "/ogc/collections/lighthouses").problem(.notFound)
            _ = try await client.send(.get, "/ogc/collections/lighthouses/items").problem(.notFound)
        }
    }

    @Test func itemsPageToTheEndWithNextLinksAndCounts() async throws {
        try await TestApp.withClient { client in
            let made = try await Self.seed(client, longitudes: (0..<23).map { Double($0) })
            let pages = try await client.ogcPages("/ogc/collections/annotations/items")
            #expect(pages.map(\.numberReturned) == [10, 10, 3])
            #expect(pages.allSatisfy { $0.numberMatched == 23 && $0.type == "FeatureCollection" })
            #expect(pages.flatMap(\.features).map(\.id) == made.map(\.id))
            #expect(pages[0].links.contains { $0.rel == "self" && $0.href == "http://localhost/ogc/collections/annotations/items" })
            #expect(pages[2].next == nil)
            let big = try await client.ogcPages("/ogc/collections/annotations/items?limit=10000")
            #expect(big.count == 1 && big[0].features.count == 23)
            let sevens = try await client.ogcPages("/ogc/collections/annotations/items?limit=7")
            #expect(sevens.map(\.numberReturned) == [7, 7, 7, 2])
            #expect(sevens[0].next?.contains("limit=7") == true && sevens[0].next?.contains("cursor=") == true)
            for bad in ["limit=0", "limit=10001", "limit=ten"] {
                #expect(try await client.send(.get, "/ogc/collections/annotations/items?\(bad)").problem(.badRequest).errors?.first?.parameter == "limit", "\(bad)")
            }
            _ = try await client.send(.get, "/ogc/collections/annotations/items?cursor=somewhere").problem(.notFound)
        }
    }

    @Test func featuresHaveFlatPropertiesAndAFreePropertyNamedLikeAFieldIsPrefixed() async throws {
        try await TestApp.withClient { client in
            let made = try await client.createAnnotation(
                #"{"coordinate":{"latitude":48.85,"longitude":2.35},"title":"Louvre","kind":"museum","externalId":"louvre","properties":{"title":"Le Louvre","colour":"gold","id":7,"properties":{"a":1},"properties.x":true}}"#)
            let response = try await client.send(.get, "/ogc/collections/annotations/items/\(made.id)")
            #expect(response.status == .ok && response.headers[.contentType] == "application/geo+json; charset=utf-8")
            #expect(response.headers[.eTag] == "\"1\"")
            let feature = try response.decode(OGCWireFeature.self)
            #expect(feature.id == made.id && feature.geometry == .init(type: "Point", coordinates: [2.35, 48.85]))
            let expected: [String: JSONAny] = [
                "title": .string("Louvre"), "kind": .string("museum"), "externalId": .string("louvre"), "displayPriority": .number(500),
                "version": .number(1), "createdAt": .string(made.createdAt), "updatedAt": .string(made.updatedAt),
                "properties.title": .string("Le Louvre"), "colour": .string("gold"), "properties.id": .number(7),
                "properties.properties": .object(["a": .number(1)]), "properties.properties.x": .bool(true),
            ]
            #expect(feature.properties == expected)
            _ = try await client.send(.get, "/ogc/collections/annotations/items/0190f8a0-0000-7000-8000-000000000000").problem(.notFound)
            _ = try await client.send(.get, "/ogc/collections/annotations/items/louvre").problem(.notFound)
            #expect(try await client.send(.delete, "/v1/annotations/\(made.id)").status == .noContent)
            _ = try await client.send(.get, "/ogc/collections/annotations/items/\(made.id)").problem(.gone)
        }
    }

    @Test func bboxCrossesTheAntimeridianAndTakesHeights() async throws {
        try await TestApp.withClient { client in
            let made = try await Self.seed(client, longitudes: [179.5, -179.5, 0, 178])
            let across = try await client.ogcFeatures("/ogc/collections/annotations/items?bbox=179,-10,-179,10")
            #expect(across.map(\.id) == [made[0].id, made[1].id])
            let withHeights = try await client.ogcFeatures("/ogc/collections/annotations/items?bbox=-1,-10,-100,1,10,100")
            #expect(withHeights.map(\.id) == [made[2].id])
            let none = try await client.ogcPages("/ogc/collections/annotations/items?bbox=-1,10,1,-10")
            #expect(none.flatMap(\.features).isEmpty && none[0].numberMatched == nil)
            for bad in ["1,2,3", "200,0,1,1", "a,b,c,d"] {
                #expect(try await client.send(.get, "/ogc/collections/annotations/items?bbox=\(bad)").problem(.badRequest).errors?.first?.parameter == "bbox", "\(bad)")
            }
        }
    }

    @Test func datetimeSelectsOnUpdatedAtWithInstantsAndIntervals() async throws {
        try await TestApp.withClient { client in
            let first = try await Self.seed(client, longitudes: [1])[0]
            try await Task.sleep(for: .milliseconds(20))
            let second = try await Self.seed(client, longitudes: [2])[0]
            let items = "/ogc/collections/annotations/items?datetime="
            func ids(_ datetime: String) async throws -> [String] {
                try await client.ogcFeatures(items + datetime.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!).map(\.id)
            }
            #expect(try await ids(first.updatedAt) == [first.id])
            #expect(try await ids(first.updatedAt + "/..") == [first.id, second.id])
            #expect(try await ids(second.updatedAt + "/") == [second.id])
            #expect(try await ids("../" + first.updatedAt) == [first.id])
            #expect(try await ids("/" + first.updatedAt) == [first.id])
            #expect(try await ids("../..") == [first.id, second.id])
            #expect(try await ids(String(first.updatedAt.prefix(10))) == [first.id, second.id] || first.updatedAt.prefix(10) != second.updatedAt.prefix(10))
            #expect(try await ids("2001-01-01/2001-12-31").isEmpty)
            // Paging with a datetime that leaves most rows out still pages to the end.
            _ = try await Self.seed(client, longitudes: (0..<15).map(Double.init))
            let pages = try await client.ogcPages(items + "..%2F" + second.updatedAt.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "&limit=1")
            #expect(pages.flatMap(\.features).map(\.id) == [first.id, second.id])
            for bad in ["yesterday", "2026-02-30", "2026-01-02/2026-01-01", "1/2/3"] {
                let problem = try await client.send(.get, items + bad.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!).problem(.badRequest)
                #expect(problem.errors?.first?.parameter == "datetime", "\(bad)")
            }
        }
    }

    @Test func filtersInEveryLanguageAndAnUnreadableOneIs400() async throws {
        try await TestApp.withClient { client in
            let made = try await Self.seed(client, longitudes: [0, 1, 2, 3, 4])
            let items = "/ogc/collections/annotations/items?filter="
            func ids(_ filter: String, _ lang: String? = nil) async throws -> [String] {
                let query = filter.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + (lang.map { "&filter-lang=" + $0 } ?? "")
                return try await client.ogcFeatures(items + query).map(\.id)
            }
            let shops = [made[0].id, made[2].id, made[4].id]
            #expect(try await ids("kind = 'shop'") == shops)
            #expect(try await ids("kind = 'shop'", "cql2-text") == shops)
            #expect(try await ids("kind = 'shop'", "cql-text") == shops)
            #expect(try await ids(#"{"op":"=","args":[{"property":"kind"},"shop"]}"#, "cql2-json") == shops)
            #expect(try await ids("rating >= 3 AND S_INTERSECTS(geometry, BBOX(2.5, 0, 10, 2))") == [made[3].id, made[4].id])
            let page = try await client.ogcPages(items + "rating%3C3&limit=2")
            #expect(page.map(\.numberReturned) == [2, 1] && page[0].numberMatched == nil)
            for (bad, lang) in [("kind = ", "cql2-text"), ("kind ~ 'x'", "cql-text"), ("{", "cql2-json"), (#"{"op":"nope","args":[]}"#, "cql2-json")] {
                let response = try await client.send(.get, items + bad.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "&filter-lang=" + lang)
                #expect(try response.problem(.badRequest).errors?.first?.parameter == "filter", "\(bad)")
            }
            _ = try await client.send(.get, items + "kind%3D'shop'&filter-lang=sql").problem(.badRequest)
            // /v1 keeps 422 for the same filter.
            _ = try await client.send(.get, "/v1/annotations?filter=kind%20%3D%20").problem(.unprocessableContent)
        }
    }

    @Test func queryablesListBuiltInsGeometryAndTheFreePropertiesWithTheirTypes() async throws {
        try await TestApp.withClient { client in
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":1,"longitude":1},"properties":{"rating":4,"name":"A","open":true,"title":"x","tags":["a"]}}"#)
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":1,"longitude":2},"properties":{"rating":4.5,"name":null,"where":{"floor":2}}}"#)
            let response = try await client.send(.get, "/ogc/collections/annotations/queryables")
            #expect(response.status == .ok && response.headers[.contentType] == "application/schema+json; charset=utf-8")
            // As GDAL 3.6 asks: plain JSON, with the pre-standard list of names beside the schema.
            let asJSON = try await client.send(.get, "/ogc/collections/annotations/queryables", headers: [.accept: "application/geo+json, application/json"])
            #expect(asJSON.status == .ok && asJSON.headers[.contentType] == "application/json; charset=utf-8")
            struct Legacy: Decodable { struct Name: Decodable { var id: String }; var queryables: [Name] }
            let names = try asJSON.decode(Legacy.self).queryables.map(\.id)
            #expect(names.contains("kind") && names.contains("rating") && names.contains("properties.title") && names.contains("geometry"))
            struct Queryables: Decodable {
                var schema: String; var id: String; var type: String; var properties: [String: [String: JSONAny]]
                enum CodingKeys: String, CodingKey { case schema = "$schema", id = "$id", type, properties }
            }
            let queryables = try response.decode(Queryables.self)
            #expect(queryables.schema == "https://json-schema.org/draft/2020-12/schema" && queryables.type == "object")
            #expect(queryables.id == "http://localhost/ogc/collections/annotations/queryables")
            let types = queryables.properties.mapValues { $0["type"] }
            #expect(types["kind"] == .string("string") && types["displayPriority"] == .string("integer") && types["id"] == .string("string"))
            #expect(queryables.properties["geometry"]?["format"] == .string("geometry-point"))
            #expect(types["rating"] == .string("number") && types["name"] == .string("string") && types["open"] == .string("boolean"))
            #expect(types["tags"] == .string("array") && types["where"] == .string("object") && types["properties.title"] == .string("string"))
            _ = try await client.send(.get, "/ogc/collections/nowhere/queryables").problem(.notFound)
        }
    }

    @Test func discoveryIsPublicAndDataTakesAKey() async throws {
        try await KeyedApp.withClient(keys: [("acme", .reader)]) { client, tokens, _ in
            for path in ["/ogc", "/ogc/", "/ogc/api", "/ogc/conformance"] {
                #expect(try await client.afterKeyWrites { try await client.send(.get, path) }.status == .ok, "\(path)")
            }
            for path in ["/ogc/collections", "/ogc/collections/annotations", "/ogc/collections/annotations/items", "/ogc/collections/annotations/queryables"] {
                _ = try await client.send(.get, path).problem(.unauthorized)
                #expect(try await client.send(.get, path, key: tokens["acme/reader"]).status == .ok, "\(path)")
            }
        }
    }
}
