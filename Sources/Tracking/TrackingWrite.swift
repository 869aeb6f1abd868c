/// One piece of planned tracking work as a store writes it, in one transaction: the writes
/// tracking makes, declared once for every engine. Committing one returns, per ingest plan, the
/// batch indexes of late fixes the device already had (duplicates, not stored again), and nothing
/// for the other writes.
public enum TrackingWrite: Sendable {
    /// The plans' fixes, events, devices and progress, in order (several when commits are grouped).
    case ingest([IngestPlan])
    /// A new subscription.
    case subscription(Subscription)
    /// A subscription marked deleted, the exits it emits, its progress dropped.
    case deletion(DeletionPlan)
    /// An edited subscription, the progress it changed and the events it emitted.
    case change(ChangePlan)
    /// The tenant's ingest filters, replaced whole.
    case ingestFilters(IngestFilters)
    /// A device's profile written, the progress its group change drops or starts.
    case profile(ProfilePlan)
    /// A group record written, or removed (nil).
    case group(name: String, DeviceGroup?)
    /// A device erased with its profile, fixes, progress and the events about it.
    case erasure(DeviceErasure)
    /// Status deadlines fired by the clock: their events, the statuses they leave.
    case deadlines(DeadlinePlan)

    /// The events this write appends to the log, in sequence order.
    public var events: [TrackingEvent] {
        switch self {
        case .ingest(let plans): plans.flatMap(\.events)
        case .subscription: []
        case .deletion(let plan): plan.events
        case .change(let plan): plan.events
        case .deadlines(let plan): plan.events
        case .ingestFilters, .profile, .group, .erasure: []
        }
    }

    /// Brings `state` to what it is once this write is committed.
    public func apply(to state: inout TrackingState) {
        switch self {
        case .ingest(let plans): for plan in plans { state.apply(plan) }
        case .subscription(let subscription): state.add(subscription)
        case .deletion(let plan): state.apply(plan)
        case .change(let plan): state.apply(plan)
        case .ingestFilters(let filters): state.ingestFilters = filters
        case .profile(let plan): state.apply(plan)
        case .group(let name, let group): state.setGroup(group, named: name)
        case .erasure(let erasure): state.apply(erasure)
        case .deadlines(let plan): state.apply(plan)
        }
    }
}
