import Access
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// Two tenants on one server: neither sees the other's annotations, external ids, idempotency
/// keys, change feed, thinning answers, clusters, devices, fixes, subscriptions or events; the
/// other's ids are 404; each feed and event log is numbered 1, 2, 3… on its own.
@Suite(.watchdog) struct TenancyContractTests {
    struct Change: Decodable { var sequence: Int64; var id: String }
    struct Changes: Decodable { var changes: [Change] }
    struct Page: Decodable { var annotations: [WireAnnotation] }
    struct Thin: Decodable {
        struct Item: Decodable { var type: String; var id: String?; var count: Int? }
        var items: [Item]
    }

    @Test func annotationsFeedsAndThinningStayInTheirTenant() async throws {
        try await KeyedApp.withClient(keys: [("acme", .admin), ("globex", .admin)]) { client, tokens, _ in
            let (a, b) = (tokens["acme/admin"]!, tokens["globex/admin"]!)
            var acmeIds: [String] = []
            var globexIds: [String] = []
            // Interleaved writes: each tenant's feed must still be 1, 2, 3… with no holes.
            for index in 0..<6 {
                let pin = #"{"coordinate":{"latitude":\#(48 + Double(index) / 100),"longitude":2.35},"externalId":"shared-\#(index)"}"#
                let created = try await client.send(.post, "/v1/annotations", json: pin, key: a, headers: [.idempotencyKey: "same-key-\(index)"])
                #expect(created.status == .created)
                acmeIds.append(try created.decode(WireAnnotation.self).id)
                // The same external id and idempotency key in the other tenant: a new annotation, not a replay or a conflict.
                let other = try await client.send(.post, "/v1/annotations", json: pin, key: b, headers: [.idempotencyKey: "same-key-\(index)"])
                #expect(other.status == .created && other.headers[.idempotentReplayed] == nil)
                globexIds.append(try other.decode(WireAnnotation.self).id)
            }
            for id in acmeIds {
                #expect(try await client.send(.get, "/v1/annotations/\(id)", key: b).problem(.notFound).status == 404)
                _ = try await client.send(.patch, "/v1/annotations/\(id)", json: #"{"title":"x"}"#, key: b,
                                          headers: [.contentType: "application/merge-patch+json"]).problem(.notFound)
                _ = try await client.send(.delete, "/v1/annotations/\(id)", key: b).problem(.notFound)
            }
            // Deleting in one tenant leaves a tombstone only there.
            #expect(try await client.send(.delete, "/v1/annotations/\(acmeIds[0])", key: a).status == .noContent)
            _ = try await client.send(.get, "/v1/annotations/\(acmeIds[0])", key: b).problem(.notFound)
            _ = try await client.send(.get, "/v1/annotations/\(acmeIds[0])", key: a).problem(.gone)
            // An upsert by external id reaches the caller's annotation only.
            let put = try await client.send(.put, "/v1/annotations/by-external-id/shared-1", json: #"{"coordinate":{"latitude":1,"longitude":1},"title":"globex"}"#, key: b)
            #expect(put.status == .ok)
            #expect(try put.decode(WireAnnotation.self).id == globexIds[1])
            #expect(try await client.send(.get, "/v1/annotations/\(acmeIds[1])", key: a).decode(WireAnnotation.self).title == nil)

            let acmeList = try await client.send(.get, "/v1/annotations?limit=100", key: a).decode(Page.self).annotations.map(\.id)
            let globexList = try await client.send(.get, "/v1/annotations?limit=100", key: b).decode(Page.self).annotations.map(\.id)
            #expect(acmeList == Array(acmeIds.dropFirst()) && globexList == globexIds)
            let export = String(buffer: try await client.send(.get, "/v1/annotations/export", key: b).body)
            #expect(acmeIds.allSatisfy { !export.contains($0) } && globexIds.allSatisfy { export.contains($0) })

            let acmeFeed = try await client.send(.get, "/v1/annotations/changes?after=0", key: a).decode(Changes.self).changes
            let globexFeed = try await client.send(.get, "/v1/annotations/changes?after=0", key: b).decode(Changes.self).changes
            #expect(acmeFeed.map(\.sequence) == Array(1...7) && Set(acmeFeed.map(\.id)) == Set(acmeIds))
            #expect(globexFeed.map(\.sequence) == Array(1...7) && Set(globexFeed.map(\.id)) == Set(globexIds))

            // Thinning the whole world counts only the caller's annotations; the other's cluster ids are 404.
            let world = #"{"viewport":{"size":{"width":256,"height":256},"center":{"latitude":0,"longitude":0},"zoomLevel":0}}"#
            let acmeThin = try await client.send(.post, "/v1/annotations/thin", json: world, key: a).decode(Thin.self).items
            let globexThin = try await client.send(.post, "/v1/annotations/thin", json: world, key: b).decode(Thin.self).items
            #expect(acmeThin.reduce(0) { $0 + ($1.count ?? 1) } == 5 && globexThin.reduce(0) { $0 + ($1.count ?? 1) } == 6)
            // A cluster id names a place: the same id in the other tenant answers that tenant's members.
            let cluster = try #require(acmeThin.first { $0.type == "cluster" }?.id)
            let acmeLeaves = try await client.send(.get, "/v1/clusters/\(cluster)/leaves?limit=100", key: a).decode(Page.self).annotations.map(\.id)
            let globexLeaves = try await client.send(.get, "/v1/clusters/\(cluster)/leaves?limit=100", key: b).decode(Page.self).annotations.map(\.id)
            #expect(Set(acmeLeaves) == Set(acmeIds.dropFirst()) && Set(globexLeaves) == Set(globexIds))
            // Where only one tenant has annotations, the other has no cluster: 404.
            for index in 0..<3 {
                _ = try await client.createAnnotation(#"{"coordinate":{"latitude":-33.86,"longitude":151.2\#(index)}}"#, key: a)
            }
            let sydney = #"{"viewport":{"size":{"width":256,"height":256},"center":{"latitude":-33.86,"longitude":151.21},"zoomLevel":2}}"#
            let acmeSydney = try await client.send(.post, "/v1/annotations/thin", json: sydney, key: a).decode(Thin.self).items
            let lonely = try #require(acmeSydney.first { $0.type == "cluster" && $0.count == 3 }?.id)
            #expect(try await client.send(.get, "/v1/clusters/\(lonely)", key: a).status == .ok)
            _ = try await client.send(.get, "/v1/clusters/\(lonely)", key: b).problem(.notFound)
            _ = try await client.send(.get, "/v1/clusters/\(lonely)/leaves", key: b).problem(.notFound)
        }
    }

    /// A long poll waits for its own tenant's next entry: the other tenant's write neither ends it
    /// early nor shows in it. (The pauses only order the requests; the outcome is the same either way.)
    @Test func longPollsWakeOnlyForTheirOwnTenant() async throws {
        try await KeyedApp.withClient(keys: [("acme", .admin), ("globex", .admin)]) { client, tokens, _ in
            let (a, b) = (tokens["acme/admin"]!, tokens["globex/admin"]!)
            let pin = #"{"coordinate":{"latitude":48.85,"longitude":2.35}}"#
            async let changes = client.send(.get, "/v1/annotations/changes?after=0&wait=20", key: a)
            try await Task.sleep(for: .milliseconds(300))
            _ = try await client.createAnnotation(pin, key: b)
            try await Task.sleep(for: .milliseconds(300))
            let mine = try await client.createAnnotation(pin, key: a)
            let feed = try await changes.decode(Changes.self).changes
            #expect(feed.map(\.id) == [mine.id] && feed.map(\.sequence) == [1])

            let subscription = #"{"type":"significantChange","maxLocationAge":null}"#
            let acmeSub = try await client.send(.post, "/v1/subscriptions", json: subscription, key: a).decode(WireSubscription.self)
            _ = try await client.send(.post, "/v1/subscriptions", json: subscription, key: b)
            async let events = client.send(.get, "/v1/events?after=0&wait=20", key: a)
            try await Task.sleep(for: .milliseconds(300))
            let fix = Trace.batch([Trace.fix(Trace.at(0), 0)])
            #expect(try await client.send(.post, "/v1/devices/van-1/locations", json: fix, key: b).status == .ok)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await client.send(.post, "/v1/devices/van-1/locations", json: fix, key: a).status == .ok)
            let logged = try await events.decode(WireEventPage.self).events
            #expect(logged.map(\.sequence) == [1] && logged.map(\.subscriptionId) == [acmeSub.id])
        }
    }

    @Test func devicesSubscriptionsAndEventsStayInTheirTenant() async throws {
        try await KeyedApp.withClient(keys: [("acme", .admin), ("globex", .admin)]) { client, tokens, _ in
            let (a, b) = (tokens["acme/admin"]!, tokens["globex/admin"]!)
            let subscription = #"{"type":"significantChange","maxLocationAge":null}"#
            let acmeSub = try await client.send(.post, "/v1/subscriptions", json: subscription, key: a).decode(WireSubscription.self)
            let globexSub = try await client.send(.post, "/v1/subscriptions", json: subscription, key: b).decode(WireSubscription.self)
            // Same device id in both tenants, interleaved: two devices, two logs, each numbered from 1.
            for step in 0..<3 {
                let fix = Trace.batch([Trace.fix(Trace.at(Double(step) * 1_000), Double(step) * 400)])
                #expect(try await client.send(.post, "/v1/devices/van-1/locations", json: fix, key: a).status == .ok)
                #expect(try await client.send(.post, "/v1/devices/van-1/locations", json: fix, key: b).status == .ok)
            }
            let acmeEvents = try await client.send(.get, "/v1/events?after=0", key: a).decode(WireEventPage.self).events
            let globexEvents = try await client.send(.get, "/v1/events?after=0", key: b).decode(WireEventPage.self).events
            #expect(acmeEvents.map(\.sequence) == [1, 2, 3] && acmeEvents.allSatisfy { $0.subscriptionId == acmeSub.id })
            #expect(globexEvents.map(\.sequence) == [1, 2, 3] && globexEvents.allSatisfy { $0.subscriptionId == globexSub.id })

            _ = try await client.send(.get, "/v1/subscriptions/\(acmeSub.id)", key: b).problem(.notFound)
            _ = try await client.send(.get, "/v1/subscriptions/\(acmeSub.id)/events", key: b).problem(.notFound)
            _ = try await client.send(.get, "/v1/events?subscriptionId=\(acmeSub.id)", key: b).problem(.notFound)
            _ = try await client.send(.get, "/v1/events/stream?subscriptionId=\(acmeSub.id)", key: b).problem(.notFound)
            _ = try await client.send(.delete, "/v1/subscriptions/\(acmeSub.id)", key: b).problem(.notFound)
            struct Subscriptions: Decodable { var subscriptions: [WireSubscription] }
            #expect(try await client.send(.get, "/v1/subscriptions", key: b).decode(Subscriptions.self).subscriptions.map(\.id) == [globexSub.id])

            // A device only one tenant has is 404 for the other, and its history is not shared.
            #expect(try await client.send(.post, "/v1/devices/acme-only/locations", json: Trace.batch([Trace.fix(Trace.origin, 0)]), key: a).status == .ok)
            _ = try await client.send(.get, "/v1/devices/acme-only", key: b).problem(.notFound)
            let history = String(buffer: try await client.send(.get, "/v1/devices/acme-only/locations", key: b).body)
            #expect(!history.contains(Trace.time(0)))
        }
    }
}
