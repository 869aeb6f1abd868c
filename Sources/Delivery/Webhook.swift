public import Timeline

/// An endpoint that receives the tenant's events by `POST`, one event per request, in log order.
///
/// Its progress is one committed ``cursor``: the sequence of the last event it acknowledged (or
/// dead-lettered). Moving the cursor back (a replay) re-sends what follows it.
public struct Webhook: Hashable, Sendable, Identifiable {
    /// Whether the worker sends.
    public enum State: String, Hashable, Sendable, CaseIterable {
        /// Events are sent as they are logged.
        case active
        /// Nothing is sent: the receiver answered 410 Gone, or an operator paused it.
        case disabled
    }

    /// Server-assigned UUIDv7, never reused.
    public var id: String
    /// Where events are posted (`http` or `https`; checked by the ``OutboundGuard`` at every send).
    public var url: String
    /// The subscriptions whose events are sent; nil: every subscription of the tenant, also later ones.
    public var subscriptionIds: [String]?
    /// The signing secrets: the current one, and during a rotation the previous one.
    public var secrets: SigningSecrets
    public var state: State
    /// Why the webhook is disabled (`"receiver answered 410 Gone"`), nil while active.
    public var disabledReason: String?
    /// The sequence of the last event acknowledged or dead-lettered; 0 before the first.
    public var cursor: Int64
    /// Bumped by every replay, so a send that was in flight when the cursor moved back does not
    /// move it forward again (the cursor is committed only if the epoch is unchanged).
    public var epoch: Int64
    public var createdAt: Instant
    public var updatedAt: Instant

    public init(
        id: String, url: String, subscriptionIds: [String]?, secrets: SigningSecrets, state: State = .active,
        disabledReason: String? = nil, cursor: Int64, epoch: Int64 = 0, createdAt: Instant, updatedAt: Instant
    ) {
        self.id = id
        self.url = url
        self.subscriptionIds = subscriptionIds
        self.secrets = secrets
        self.state = state
        self.disabledReason = disabledReason
        self.cursor = cursor
        self.epoch = epoch
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether the webhook sends `subscriptionId`'s events.
    public func covers(_ subscriptionId: String) -> Bool {
        subscriptionIds.map { $0.contains(subscriptionId) } ?? true
    }
}

/// A webhook's signing secrets: requests are signed with the current one and with every one
/// rotated out less than ``SigningSecrets/rotationOverlap`` ago.
public struct SigningSecrets: Hashable, Sendable {
    /// A secret rotated out, and when it stops signing.
    public struct Retired: Hashable, Sendable {
        public var secret: WebhookSecret
        public var expiresAt: Instant

        public init(secret: WebhookSecret, expiresAt: Instant) {
            self.secret = secret
            self.expiresAt = expiresAt
        }
    }

    public var current: WebhookSecret
    /// Rotated-out secrets, newest first (expired ones are dropped at the next rotation).
    public var retired: [Retired]

    /// How long a rotated-out secret keeps signing: receivers have a day to switch.
    public static let rotationOverlap: Int64 = 24 * 3600 * 1_000_000

    public init(current: WebhookSecret, retired: [Retired] = []) {
        self.current = current
        self.retired = retired
    }

    /// The secrets that sign a request sent at `now`, current first, then the retired ones still valid.
    public func signing(at now: Instant) -> [WebhookSecret] {
        [current] + retired.filter { now < $0.expiresAt }.map(\.secret)
    }

    /// Until when a retired secret still signs at `now`; nil when none does.
    public func overlapEnds(at now: Instant) -> Instant? {
        retired.filter { now < $0.expiresAt }.map(\.expiresAt).max()
    }

    /// These secrets after `secret` replaces the current one at `now`: the current one (and any
    /// earlier one still valid) keeps signing until its day is up.
    public func rotated(to secret: WebhookSecret, at now: Instant) -> SigningSecrets {
        guard secret != current else { return self }
        let outgoing = Retired(secret: current, expiresAt: Instant(microseconds: now.microseconds + Self.rotationOverlap))
        return SigningSecrets(current: secret, retired: [outgoing] + retired.filter { now < $0.expiresAt && $0.secret != secret })
    }
}
