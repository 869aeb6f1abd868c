import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// One annotation at a time, through the HTTP contract: every status of the issue.
@Suite(.watchdog) struct AnnotationContractTests {
    let shop = #"{"externalId":"shop-1","coordinate":{"latitude":35.681,"longitude":139.767},"title":"Shop","kind":"shop","properties":{"floor":3}}"#

    @Test func createReadPatchDeleteWithVersionsAndConditions() async throws {
        try await TestApp.withClient { client in
            let response = try await client.send(.post, "/v1/annotations", json: shop)
            #expect(response.status == .created)
            let created = try response.decode(WireAnnotation.self)
            #expect(response.headers[.location] == "/v1/annotations/\(created.id)")
            #expect(response.headers[.eTag] == "\"1\"")
            #expect(created.version == 1 && created.displayPriority == 500 && created.properties["floor"] == .number(3))
            #expect(created.createdAt == created.updatedAt)

            let read = try await client.send(.get, "/v1/annotations/\(created.id)")
            #expect(read.status == .ok && read.headers[.eTag] == "\"1\"")
            #expect(try read.decode(WireAnnotation.self) == created)

            let notModified = try await client.send(.get, "/v1/annotations/\(created.id)", headers: [.ifNoneMatch: "\"1\""])
            #expect(notModified.status == .notModified && notModified.headers[.eTag] == "\"1\"" && notModified.body.readableBytes == 0)
            #expect(try await client.send(.get, "/v1/annotations/\(created.id)", headers: [.ifNoneMatch: "\"7\""]).status == .ok)

            let patched = try await client.send(
                .patch, "/v1/annotations/\(created.id)", json: #"{"title":"Shop (moved)","subtitle":null,"properties":{"floor":null,"open":true}}"#,
                headers: [.contentType: "application/merge-patch+json", .ifMatch: "\"1\""]
            )
            #expect(patched.status == .ok && patched.headers[.eTag] == "\"2\"")
            let after = try patched.decode(WireAnnotation.self)
            #expect(after.version == 2 && after.title == "Shop (moved)" && after.kind == "shop" && after.properties == ["open": .bool(true)])
            #expect(after.id == created.id && after.createdAt == created.createdAt)

            // A stale If-Match changes nothing.
            let stale = try await client.send(
                .patch, "/v1/annotations/\(created.id)", json: #"{"title":"lost"}"#,
                headers: [.contentType: "application/merge-patch+json", .ifMatch: "\"1\""]
            )
            let problem = try stale.problem(.preconditionFailed)
            #expect(problem.detail?.contains("\"2\"") == true)
            #expect(try await client.send(.get, "/v1/annotations/\(created.id)").decode(WireAnnotation.self) == after)
            _ = try await client.send(.delete, "/v1/annotations/\(created.id)", headers: [.ifMatch: "\"1\""]).problem(.preconditionFailed)

            #expect(try await client.send(.delete, "/v1/annotations/\(created.id)", headers: [.ifMatch: "\"2\""]).status == .noContent)
            _ = try await client.send(.get, "/v1/annotations/\(created.id)").problem(.gone)
            _ = try await client.send(.delete, "/v1/annotations/\(created.id)").problem(.gone)
            _ = try await client.send(.patch, "/v1/annotations/\(created.id)", json: "{}", headers: [.contentType: "application/merge-patch+json"]).problem(.gone)

            _ = try await client.send(.get, "/v1/annotations/0190f8a0-0000-7000-8000-000000000000").problem(.notFound)
            let malformed = try await client.send(.get, "/v1/annotations/shop-1").problem(.badRequest)
            #expect(malformed.errors?.first?.parameter == "id")
        }
    }

    @Test func anIdempotencyKeyReplaysTheFirstAnswer() async throws {
        try await TestApp.withClient { client in
            let first = try await client.send(.post, "/v1/annotations", json: shop, headers: [.idempotencyKey: "order-7"])
            #expect(first.status == .created && first.headers[.idempotentReplayed] == nil)
            // Same content spelled differently: still a replay.
            let respelled = #"{ "kind":"shop","title":"Shop","properties":{"floor":3},"coordinate":{"longitude":139.767,"latitude":35.681},"externalId":"shop-1" }"#
            let replay = try await client.send(.post, "/v1/annotations", json: respelled, headers: [.idempotencyKey: "order-7"])
            #expect(replay.status == .created && replay.headers[.idempotentReplayed] == "true")
            #expect(try replay.decode(WireAnnotation.self) == first.decode(WireAnnotation.self))
            #expect(replay.headers[.location] == first.headers[.location])

            let other = try await client.send(.post, "/v1/annotations", json: #"{"coordinate":{"latitude":1,"longitude":2}}"#, headers: [.idempotencyKey: "order-7"])
            // 422 for a key reused with another payload (draft-ietf-httpapi-idempotency-key-header §2.7).
            #expect(try other.problem(.unprocessableContent).errors?.first?.parameter == "Idempotency-Key")
            let page = try await client.get("/v1/annotations", as: Page.self)
            #expect(page.annotations.count == 1)
        }
    }

    /// Keys are taken as sent: `%` and `+` are not URI escapes in an HTTP header, so `%41` is not
    /// `A`, `a+b` is not `a b`, and `%` alone is a key (the runtime's decoding made it nothing).
    @Test func idempotencyKeysAreReadAsSentPercentAndPlusIncluded() async throws {
        try await TestApp.withClient { client in
            for (index, key) in ["%", "%41", "A", "a+b", "a b", "%zz"].enumerated() {
                let body = #"{"coordinate":{"latitude":\#(index),"longitude":2}}"#
                #expect(try await client.send(.post, "/v1/annotations", json: body, headers: [.idempotencyKey: key]).status == .created, "\(key)")
                let replay = try await client.send(.post, "/v1/annotations", json: body, headers: [.idempotencyKey: key])
                #expect(replay.headers[.idempotentReplayed] == "true", "\(key)")
            }
            #expect(try await client.get("/v1/annotations", as: Page.self).annotations.count == 6)
        }
    }

    @Test func putByExternalIdCreatesThenReplaces() async throws {
        try await TestApp.withClient { client in
            let body = #"{"coordinate":{"latitude":51.5,"longitude":-0.12},"title":"London"}"#
            let created = try await client.send(.put, "/v1/annotations/by-external-id/city-london", json: body)
            #expect(created.status == .created && created.headers[.eTag] == "\"1\"")
            let annotation = try created.decode(WireAnnotation.self)
            #expect(annotation.externalId == "city-london" && created.headers[.location] == "/v1/annotations/\(annotation.id)")

            let same = try await client.send(.put, "/v1/annotations/by-external-id/city-london", json: body)
            #expect(same.status == .ok && same.headers[.eTag] == "\"1\"")

            // A replace is whole: the title it leaves out is gone.
            let replaced = try await client.send(.put, "/v1/annotations/by-external-id/city-london", json: #"{"coordinate":{"latitude":51.51,"longitude":-0.12}}"#, headers: [.ifMatch: "\"1\""])
            #expect(replaced.status == .ok && replaced.headers[.eTag] == "\"2\"")
            let after = try replaced.decode(WireAnnotation.self)
            #expect(after.id == annotation.id && after.title == nil && after.version == 2)

            _ = try await client.send(.put, "/v1/annotations/by-external-id/city-london", json: body, headers: [.ifMatch: "\"1\""]).problem(.preconditionFailed)
            _ = try await client.send(.put, "/v1/annotations/by-external-id/city-paris", json: body, headers: [.ifMatch: "\"1\""]).problem(.preconditionFailed)
            // The path names the external id; the body does not repeat it.
            let repeated = try await client.send(.put, "/v1/annotations/by-external-id/city-london", json: #"{"externalId":"city-london","coordinate":{"latitude":1,"longitude":1}}"#)
            #expect(try repeated.problem(.badRequest).pointers == ["/externalId"])
            #expect(try await client.send(.get, "/v1/annotations/\(annotation.id)").decode(WireAnnotation.self) == after)
        }
    }

    @Test func ifMatchTakesListsAndStarAndNeverWeakTags() async throws {
        try await TestApp.withClient { client in
            let created = try await client.createAnnotation(shop)
            let path = "/v1/annotations/\(created.id)"
            let patch: HTTPFields = [.contentType: "application/merge-patch+json"]
            func patched(_ ifMatch: String, _ title: String) async throws -> HTTPResponse.Status {
                var headers = patch
                headers[.ifMatch] = ifMatch
                return try await client.send(.patch, path, json: #"{"title":"\#(title)"}"#, headers: headers).status
            }
            #expect(try await patched(#""7", "1""#, "a") == .ok)       // version 1 is in the list → 2
            #expect(try await patched(#"W/"2""#, "b") == .preconditionFailed)  // weak tags never match
            #expect(try await patched("*", "c") == .ok)                  // any existing version → 3
            #expect(try await patched("garbage", "d") == .badRequest)         // not an entity tag list: the contract's pattern says
            #expect(try await client.send(.get, path).decode(WireAnnotation.self).title == "c")

            // `*` needs an existing annotation: a PUT that would create is refused.
            let body = #"{"coordinate":{"latitude":1,"longitude":1}}"#
            _ = try await client.send(.put, "/v1/annotations/by-external-id/new-one", json: body, headers: [.ifMatch: "*"]).problem(.preconditionFailed)
            #expect(try await client.send(.put, "/v1/annotations/by-external-id/shop-1", json: body, headers: [.ifMatch: "*"]).status == .ok)
        }
    }

    @Test func entityTagsAreQuotedTextNotNumbers() async throws {
        try await TestApp.withClient { client in
            let created = try await client.createAnnotation(shop)
            let path = "/v1/annotations/\(created.id)"
            #expect(try await client.send(.get, path, headers: [.ifNoneMatch: "1"]).status == .ok)         // unquoted: no tag
            #expect(try await client.send(.get, path, headers: [.ifNoneMatch: #""01""#]).status == .ok)
            #expect(try await client.send(.get, path, headers: [.ifNoneMatch: #"W/"1""#]).status == .notModified)
            let headers: HTTPFields = [.contentType: "application/merge-patch+json", .ifMatch: #""01""#]
            _ = try await client.send(.patch, path, json: #"{"title":"x"}"#, headers: headers).problem(.preconditionFailed)
        }
    }

    @Test func aChangeBetweenCanonicallyEquivalentSpellingsIsAChange() async throws {
        try await TestApp.withClient { client in
            let decomposed = try await client.send(.put, "/v1/annotations/by-external-id/cafe", json: #"{"coordinate":{"latitude":1,"longitude":1},"title":"Cafe\u0301"}"#)
            #expect(decomposed.status == .created)
            let composed = try await client.send(.put, "/v1/annotations/by-external-id/cafe", json: #"{"coordinate":{"latitude":1,"longitude":1},"title":"Caf\u00e9"}"#)
            #expect(composed.status == .ok && composed.headers[.eTag] == #""2""#)
            #expect(try composed.decode(WireAnnotation.self).title.map { Array($0.unicodeScalars) } == Array("Caf\u{e9}".unicodeScalars))
        }
    }

    @Test func propertiesNestAtMost32Levels() async throws {
        try await TestApp.withClient { client in
            let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
            let problem = try await client.send(.post, "/v1/annotations", json: #"{"coordinate":{"latitude":0,"longitude":0},"properties":{"k":\#(deep)}}"#).problem(.unprocessableContent)
            #expect(problem.pointers == ["/properties"])
            let ok = String(repeating: "[", count: 30) + String(repeating: "]", count: 30)
            #expect(try await client.send(.post, "/v1/annotations", json: #"{"coordinate":{"latitude":0,"longitude":0},"properties":{"k":\#(ok)}}"#).status == .created)
        }
    }

    @Test func aTakenExternalIdIsAConflict() async throws {
        try await TestApp.withClient { client in
            _ = try await client.createAnnotation(shop)
            let conflict = try await client.send(.post, "/v1/annotations", json: shop)
            #expect(try conflict.problem(.conflict).pointers == ["/externalId"])
        }
    }

    @Test(arguments: [
        (#"{"coordinate":{"latitude":91,"longitude":0}}"#, HTTPResponse.Status.unprocessableContent, "/coordinate/latitude"),
        (#"{"coordinate":{"latitude":0,"longitude":0},"displayPriority":1001}"#, .unprocessableContent, "/displayPriority"),
        (#"{"coordinate":{"latitude":0,"longitude":0},"kind":""}"#, .unprocessableContent, "/kind"),
        // U+0000: PostgreSQL's text cannot hold it, so neither engine takes it.
        (#"{"coordinate":{"latitude":0,"longitude":0},"title":"a\u0000b"}"#, .unprocessableContent, "/title"),
        (#"{"coordinate":{"latitude":0,"longitude":0},"version":4}"#, .badRequest, "/version"),
        (#"{"coordinate":{"latitude":0,"longitude":0},"id":"x"}"#, .badRequest, "/id"),
        (#"{"title":"no coordinate"}"#, .badRequest, "/coordinate"),
        (#"{"coordinate":{"latitude":"north","longitude":0}}"#, .badRequest, "/coordinate/latitude"),
        (#"{"coordinate":"#, .badRequest, ""),
    ])
    func badCreatesAreProblemsAndStoreNothing(body: String, status: HTTPResponse.Status, pointer: String) async throws {
        try await TestApp.withClient { client in
            let problem = try await client.send(.post, "/v1/annotations", json: body).problem(status)
            #expect(problem.pointers == [pointer])
            #expect(try await client.get("/v1/annotations", as: Page.self).annotations.isEmpty)
        }
    }

    @Test func oversizePropertiesAreRefused() async throws {
        try await TestApp.withClient { client in
            let big = String(repeating: "x", count: 17 * 1024)
            let problem = try await client.send(.post, "/v1/annotations", json: #"{"coordinate":{"latitude":0,"longitude":0},"properties":{"blob":"\#(big)"}}"#).problem(.unprocessableContent)
            #expect(problem.pointers == ["/properties"])
        }
    }

    @Test(arguments: [
        // What the contract's AnnotationPatch does not allow is 400, as for a create.
        (#"{"id":"0190f8a0-0000-7000-8000-000000000000"}"#, "/id", HTTPResponse.Status.badRequest),
        (#"{"version":9}"#, "/version", .badRequest),
        (#"{"createdAt":"2020-01-01T00:00:00Z"}"#, "/createdAt", .badRequest),
        (#"{"colour":"red"}"#, "/colour", .badRequest),
        (#"{"coordinate":null}"#, "/coordinate", .badRequest),
        (#"{"displayPriority":"high"}"#, "/displayPriority", .badRequest),
        // What it allows but the merged annotation breaks is 422.
        (#"{"coordinate":{"latitude":-95}}"#, "/coordinate/latitude", .unprocessableContent),
        (#"{"displayPriority":1001}"#, "/displayPriority", .unprocessableContent),
        (#"{"subtitle":"\u0000"}"#, "/subtitle", .unprocessableContent),
    ])
    func badPatchesAreProblemsAndChangeNothing(patch: String, pointer: String, status: HTTPResponse.Status) async throws {
        try await TestApp.withClient { client in
            let created = try await client.createAnnotation(shop)
            let response = try await client.send(.patch, "/v1/annotations/\(created.id)", json: patch, headers: [.contentType: "application/merge-patch+json"])
            #expect(try response.problem(status).pointers == [pointer])
            #expect(try await client.send(.get, "/v1/annotations/\(created.id)").decode(WireAnnotation.self) == created)
        }
    }

    @Test func concurrentPatchesWithIfMatchHaveOneWinnerPerVersion() async throws {
        let app = try await buildApplication(try await TestApp.configuration())
        try await app.test(.live) { client in
            let created = try await client.createAnnotation(shop)
            let (port, id) = (try #require(client.port), created.id)
            // Twelve clients on their own connections race for version 1.
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for task in 0..<12 {
                    group.addTask {
                        try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
                            let headers: HTTPFields = [.contentType: "application/merge-patch+json", .ifMatch: "\"1\""]
                            let request = TestClient.Request("/v1/annotations/\(id)", method: .patch, authority: "127.0.0.1", headers: headers, body: ByteBuffer(string: #"{"title":"task \#(task)"}"#))
                            return try await connection.execute(request).status
                        }
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 1)
            #expect(statuses.filter { $0 == .preconditionFailed }.count == 11)
            #expect(try await client.send(.get, "/v1/annotations/\(created.id)").decode(WireAnnotation.self).version == 2)
        }
    }

    @Test(.sqliteFile) func idsAreNeverHandedOutTwiceAcrossDeleteAndRestart() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }
        var configuration = try await TestApp.configuration()
        configuration.databasePath = database.path
        var seen: [String] = []
        var lastDeleted: String?
        for _ in 0..<2 {
            let app = try await buildApplication(configuration)
            let (issued, previous) = (seen, lastDeleted)
            let ids = try await app.test(.router) { client in
                // A deleted id from before the restart stays gone.
                if let previous { _ = try await client.send(.get, "/v1/annotations/\(previous)").problem(.gone) }
                var ids: [String] = []
                for _ in 0..<5 {
                    let annotation = try await client.createAnnotation(shop)  // same externalId: free again after each delete
                    #expect(!issued.contains(annotation.id) && !ids.contains(annotation.id))
                    ids.append(annotation.id)
                    #expect(try await client.send(.delete, "/v1/annotations/\(annotation.id)").status == .noContent)
                }
                return ids
            }
            seen += ids
            lastDeleted = ids.last
        }
        #expect(Set(seen).count == 10)
        #expect(seen == seen.sorted())  // time-ordered: every new id is greater
    }
}

/// A page of `GET /v1/annotations`.
struct Page: Decodable {
    var annotations: [WireAnnotation]
    var nextCursor: String?
}
