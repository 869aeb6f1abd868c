import MeridianHTTP
import Foundation
import HTTPTypes
import MapGeometry
import MeridianAPI
import OpenAPIRuntime
import Tracking
import Timeline

// Subscriptions and the event log: create, read, list, delete; events by long poll and SSE.

extension APIHandler {
    func createSubscription(_ input: Operations.CreateSubscription.Input) async throws -> Operations.CreateSubscription.Output {
        let body = switch input.body { case .json(let body): body }
        let request = try SubscriptionRequest(body)
        let subscription = try await tracking.tracker.subscribe { id, createdAt in
            Subscription(id: id, name: request.name, properties: request.properties, deviceIds: request.deviceIds, maxLocationAge: request.maxLocationAge,
                         maxHorizontalAccuracy: request.maxHorizontalAccuracy, rule: request.rule, createdAt: createdAt, groups: request.groups)
        }
        return .created(.init(headers: .init(location: "/v1/subscriptions/\(subscription.id)"), body: .json(.init(subscription))))
    }

    func getSubscription(_ input: Operations.GetSubscription.Input) async throws -> Operations.GetSubscription.Output {
        .ok(.init(body: .json(.init(try await liveSubscription(input.path.subscriptionId)))))
    }

    func listSubscriptions(_ input: Operations.ListSubscriptions.Input) async throws -> Operations.ListSubscriptions.Output {
        let limit = try Paging.limit(input.query.limit)
        let (deviceId, cursor) = (input.query.deviceId, input.query.cursor)
        let page = try await tracking.tracker.read { state in
            let groups = deviceId.flatMap { state.profiles[$0]?.groups } ?? []
            return state.subscriptions.values
                .filter { subscription in
                    subscription.deletedAt == nil && (deviceId.map { subscription.covers($0, groups: groups) } ?? true) && (cursor.map { subscription.id > $0 } ?? true)
                }
                .sorted { $0.id < $1.id }
                .prefix(limit + 1)
        }
        let subscriptions = page.prefix(limit)
        return .ok(.init(body: .json(.init(
            subscriptions: subscriptions.map(Components.Schemas.Subscription.init),
            nextCursor: page.count > limit ? subscriptions.last?.id : nil
        ))))
    }

    func updateSubscription(_ input: Operations.UpdateSubscription.Input) async throws -> Operations.UpdateSubscription.Output {
        let body = switch input.body {
        case .applicationMergePatchJson(let body): body
        case .json(let body): body
        }
        let id = input.path.subscriptionId
        let change = try SubscriptionChange(body)
        // A subscription's type never changes, so this holds until the edit: a field of the other
        // type conflicts with the subscription, not with the contract.
        if let misfit = change.misfit(for: try await liveSubscription(id)) {
            let pointer = JSONPointer.make(misfit.path)
            throw ProblemError(.conflict, detail: "\(pointer) \(misfit.message)", errors: [.init(pointer: pointer, detail: misfit.message)])
        }
        switch try await tracking.tracker.update(id, change) {
        case .changed(let plan):
            return .ok(.init(body: .json(.init(subscription: .init(plan.subscription), events: plan.events.map(Components.Schemas.Event.init)))))
        case .deleted(let subscription):
            throw Self.deleted(subscription)
        case .notFound:
            throw Self.unknownSubscription(id)
        }
    }

    func deleteSubscription(_ input: Operations.DeleteSubscription.Input) async throws -> Operations.DeleteSubscription.Output {
        let id = input.path.subscriptionId
        switch try await tracking.tracker.unsubscribe(id) {
        case .deleted(let plan):
            return .ok(.init(body: .json(.init(subscription: .init(plan.subscription), events: plan.events.map(Components.Schemas.Event.init)))))
        case .alreadyDeleted(let subscription):
            throw Self.deleted(subscription)
        case .notFound:
            throw Self.unknownSubscription(id)
        }
    }

    func listSubscriptionEvents(_ input: Operations.ListSubscriptionEvents.Input) async throws -> Operations.ListSubscriptionEvents.Output {
        let id = try await liveSubscription(input.path.subscriptionId).id
        let query = input.query
        return .ok(.init(body: .json(try await eventPage(subscriptionId: id, after: query.after, limit: query.limit, wait: query.wait))))
    }

    func listEvents(_ input: Operations.ListEvents.Input) async throws -> Operations.ListEvents.Output {
        let query = input.query
        if let id = query.subscriptionId, try await tracking.tracker.read({ $0.subscriptions[id] }) == nil {
            throw ProblemError(.notFound, detail: "no subscription has id \(id)", errors: [.init(parameter: "subscriptionId", detail: "names no subscription")])
        }
        return .ok(.init(body: .json(try await eventPage(subscriptionId: query.subscriptionId, after: query.after, limit: query.limit, wait: query.wait))))
    }

    /// A page of the event log (one subscription's, or all), waiting up to `wait` for a first event.
    private func eventPage(subscriptionId: String?, after: Int64?, limit: Int?, wait: Double?) async throws -> Components.Schemas.EventPage {
        let after = try Paging.after(after)
        let wait = try limits.wait(wait)
        let lease = wait > .zero ? try streams.enter() : nil
        defer { lease?.end() }
        let (tracking, limit) = (try await tracking, try Paging.limit(limit))
        let read = { @Sendable in try await tracking.events(subscriptionId: subscriptionId, after: after, limit: limit, wait: wait) }
        let events = if let lease { try await lease.whileValidOrRefused(read) } else { try await read() }
        return .init(events: events.map(Components.Schemas.LoggedEvent.init), nextAfter: events.last?.sequence ?? after)
    }

    func streamEvents(_ input: Operations.StreamEvents.Input) async throws -> Operations.StreamEvents.Output {
        var start = try await tracking.feed.latest
        if input.query.after != nil { start = try Paging.after(input.query.after) }
        // Empty, as the SSE reconnection rules allow, is no event yet.
        if let lastEventID = input.headers.lastEventID?.trimmingCharacters(in: .whitespaces), !lastEventID.isEmpty {
            start = try Paging.count(lastEventID, parameter: "Last-Event-ID")
        }
        if let id = input.query.subscriptionId, try await tracking.tracker.read({ $0.subscriptions[id] }) == nil {
            throw ProblemError(.notFound, detail: "no subscription has id \(input.query.subscriptionId ?? "")", errors: [.init(parameter: "subscriptionId", detail: "names no subscription")])
        }
        try await tracking.checkCursor(start)
        let stream = EventStream(lease: try streams.enter(), hub: try await tracking, heartbeat: limits.heartbeat, ends: limits.maxWait.map { ContinuousClock.now + $0 }, after: start, subscriptionId: input.query.subscriptionId)
        return .ok(.init(body: .textEventStream(stream.body)))
    }

    /// The subscription with `id`: 404 when there never was one, 410 once deleted.
    func liveSubscription(_ id: String) async throws -> Subscription {
        guard let subscription = try await tracking.tracker.read({ $0.subscriptions[id] }) else { throw Self.unknownSubscription(id) }
        if subscription.deletedAt != nil { throw Self.deleted(subscription) }
        return subscription
    }

    private static func deleted(_ subscription: Subscription) -> ProblemError {
        let id = subscription.id
        return ProblemError(.gone, detail: "subscription \(id) was deleted at \(subscription.deletedAt?.rfc3339 ?? "?"); its events stay in the event log, /v1/events?subscriptionId=\(id)")
    }

    private static func unknownSubscription(_ id: String) -> ProblemError {
        ProblemError(.notFound, detail: "no subscription has id \(id)")
    }
}
