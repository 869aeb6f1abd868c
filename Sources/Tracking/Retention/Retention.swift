public import Timeline

/// How long a tenant keeps its history: fixes by their `timestamp`, events by their `recordedAt`.
/// nil keeps everything. The server's defaults come from `--keep-fixes` and `--keep-events`; a
/// tenant's own settings (``RetentionOverrides``) replace them member by member.
public struct RetentionPolicy: Sendable, Equatable {
    /// Seconds a fix is kept after its timestamp; nil: forever.
    public var keepFixes: Int64?
    /// Seconds an event is kept after it was recorded; nil: forever.
    public var keepEvents: Int64?

    public init(keepFixes: Int64? = nil, keepEvents: Int64? = nil) {
        (self.keepFixes, self.keepEvents) = (keepFixes, keepEvents)
    }

    /// The policy in force: each of `overrides`' members that is set, else this (the server's default).
    public func overridden(by overrides: RetentionPolicy) -> RetentionPolicy {
        RetentionPolicy(keepFixes: overrides.keepFixes ?? keepFixes, keepEvents: overrides.keepEvents ?? keepEvents)
    }

    /// Fixes with a timestamp before this instant are expired at `now`; nil when fixes are kept forever.
    public func fixHorizon(now: Instant) -> Instant? {
        keepFixes.map { Instant(microseconds: now.microseconds - $0 * 1_000_000) }
    }

    /// Events recorded before this instant are expired at `now`; nil when events are kept forever.
    public func eventHorizon(now: Instant) -> Instant? {
        keepEvents.map { Instant(microseconds: now.microseconds - $0 * 1_000_000) }
    }

    /// The longest period a setting may name: 100 years, in seconds.
    public static let longest: Int64 = 100 * 366 * 86_400
}

/// What retention has removed from a tenant's history so far.
public struct RetentionMarks: Sendable, Equatable {
    /// The last event sequence deleted (0: none); the log starts at the one after it.
    public var eventsThrough: Int64
    /// Fixes before this instant are gone or about to be (the horizon of the latest sweep); nil: none was swept.
    public var fixesBefore: Instant?

    public init(eventsThrough: Int64 = 0, fixesBefore: Instant? = nil) {
        (self.eventsThrough, self.fixesBefore) = (eventsThrough, fixesBefore)
    }

    /// The first sequence the event log still holds (or will, when the next event is appended).
    public var firstAvailableSequence: Int64 { eventsThrough + 1 }
}

/// A tenant's retention as its engine keeps it: the tenant's own settings, the marks, and the
/// deletion of expired rows in small transactions (each one short, so ingest never waits long).
public protocol RetentionStore: Sendable {
    /// The tenant's own settings (a nil member: the server's default applies).
    func overrides() async throws -> RetentionPolicy
    /// Replaces the tenant's own settings.
    func setOverrides(_ overrides: RetentionPolicy) async throws
    /// What was removed so far.
    func marks() async throws -> RetentionMarks
    /// Hides the log's prefix recorded before `horizon`: raises `eventsThrough` to the event before
    /// the first one recorded at or after it (the log only loses a prefix). Readers never read
    /// behind the mark, and compare their cursor with it after each read (``marks()``).
    func markEvents(recordedBefore horizon: Instant) async throws
    /// Deletes the oldest events behind the mark recorded before `horizon`, at most `limit`; an
    /// engine that drops whole months leaves the rows of `horizon`'s month to the drop. nil when
    /// another instance holds the tenant's retention lock now.
    func deleteEvents(recordedBefore horizon: Instant, limit: Int) async throws -> Int?
    /// Deletes fixes with a timestamp before `horizon` (at most the mark), at most `limit`, of the
    /// devices from `device` on (in id order, "" for the first), visiting at most `devices` of them;
    /// an engine that drops whole months leaves the rows of `horizon`'s month to the drop.
    /// - Returns: how many were deleted and the device to go on from (nil: the sweep is done);
    ///   nil when another instance holds the tenant's retention lock now.
    func deleteFixes(before horizon: Instant, from device: String, limit: Int, devices: Int) async throws -> (deleted: Int, next: String?)?
    /// Raises `fixesBefore` to `horizon`: readers no longer read a fix before it.
    func markFixes(before horizon: Instant) async throws
}
