public import Timeline
/// What tracking needs from storage. Writes are synchronous and each is one transaction: the
/// ``Tracker`` holds its lock across them, so evaluation, commit and the in-memory state move together.
public protocol TrackingStore: Sendable {
    /// Everything ``TrackingState`` is rebuilt from.
    func loadState() throws -> TrackingState
    /// Stores the plans' fixes, events, devices and progress in one transaction, in order; returns
    /// per plan the batch indexes of late fixes the device already had (duplicates, not stored again).
    func commit(_ plans: [IngestPlan]) throws -> [Set<Int>]
    /// Stores a new subscription.
    func insert(_ subscription: Subscription) throws
    /// Marks a subscription deleted, stores the exits it emits and drops its progress, in one transaction.
    func commit(_ plan: DeletionPlan) throws
    /// Stores an edited subscription, the progress it changed and the events it emitted, in one transaction.
    func commit(_ plan: ChangePlan) throws

    /// Events after `sequence` in sequence order, of one subscription or of all (`nil`).
    func events(subscriptionId: String?, after sequence: Int64, limit: Int) async throws -> [TrackingEvent]
    /// A device's stored fixes (accepted and late) from `from` to `to` inclusive, in time order.
    func fixes(deviceId: String, from: Instant?, to: Instant?, limit: Int) async throws -> [LocationFix]
}
