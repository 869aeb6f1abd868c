import Dispatch
import Synchronization
import Timeline
import Tracking

/// What the writers' fakes commit to: the tracking state with every committed write applied, the
/// event log and the revision (advanced by each commit), with switches that make the next commits
/// or loads fail (as a full disk or a lost connection would) and counts of both.
final class MemoryTracking: Sendable {
    struct Contents {
        var state = TrackingState()
        var log: [TrackingEvent] = []
        var revision: Int64 = 0
        /// Per ingest commit, how many plans it held.
        var plansPerCommit: [Int] = []
        var loads = 0
        var failCommits = false, failLoads = false
        /// An ingest commit holding a batch of this device fails (a batch the database refuses).
        var failDevice: String?
        /// When set, the next ingest commit waits for it (its committer is busy meanwhile).
        var holdNextCommit: DispatchSemaphore?
    }
    struct InjectedFailure: Error {}
    let contents = Mutex(Contents())

    /// The committed state, counted, or the injected failure.
    func load() throws -> (state: TrackingState, revision: Int64) {
        try contents.withLock { contents in
            contents.loads += 1
            if contents.failLoads { throw InjectedFailure() }
            return (contents.state, contents.revision)
        }
    }

    /// Checks `write` may be committed (an ingest commit counted, and held when asked); no duplicates.
    func check(_ write: TrackingWrite) throws -> [Set<Int>] {
        let (fail, hold, answer) = admit(write)
        hold?.wait()
        if fail { throw InjectedFailure() }
        return answer
    }

    /// ``check(_:)`` for a caller on the concurrency pool: a held commit waits without blocking a thread.
    func checkAwaiting(_ write: TrackingWrite) async throws -> [Set<Int>] {
        let (fail, hold, answer) = admit(write)
        if let hold { while hold.wait(timeout: .now()) == .timedOut { try await Task.sleep(for: .milliseconds(2)) } }
        if fail { throw InjectedFailure() }
        return answer
    }

    private func admit(_ write: TrackingWrite) -> (fail: Bool, hold: DispatchSemaphore?, answer: [Set<Int>]) {
        let plans = if case .ingest(let plans) = write { plans } else { [IngestPlan]?.none }
        let (fail, hold) = contents.withLock { contents -> (Bool, DispatchSemaphore?) in
            guard let plans else { return (contents.failCommits, nil) }
            contents.plansPerCommit.append(plans.count)
            defer { contents.holdNextCommit = nil }
            let poisoned = contents.failDevice.map { device in plans.contains { $0.deviceId == device } } ?? false
            return (contents.failCommits || poisoned, contents.holdNextCommit)
        }
        return (fail, hold, (plans ?? []).map { _ in [] })
    }

    /// Makes `writes` the committed truth, as one transaction.
    func commit(_ writes: [TrackingWrite]) {
        contents.withLock { contents in
            for write in writes {
                write.apply(to: &contents.state)
                contents.log += write.events
            }
            contents.revision += 1
        }
    }

    func events(subscriptionId: String?, after sequence: Int64, limit: Int) -> [TrackingEvent] {
        let log = contents.withLock { $0.log }
        return Array(log.filter { $0.sequence > sequence && (subscriptionId == nil || $0.subscriptionId == subscriptionId) }.prefix(limit))
    }
}

/// ``MemoryTracking`` as a store only this process writes (for the ``GroupCommitWriter``).
struct LocalMemoryStore: TrackingStore {
    let memory: MemoryTracking

    func loadState() throws -> TrackingState { try memory.load().state }

    func commit(_ write: TrackingWrite) throws -> [Set<Int>] {
        let duplicates = try memory.check(write)
        memory.commit([write])
        return duplicates
    }

    func events(subscriptionId: String?, after sequence: Int64, limit: Int) async throws -> [TrackingEvent] {
        memory.events(subscriptionId: subscriptionId, after: sequence, limit: limit)
    }
    func fixes(deviceId: String, from: Instant?, to: Instant?, limit: Int) async throws -> [LocationFix] { [] }
}

/// ``MemoryTracking`` as a store several instances write (for the ``ExclusiveWriter``): each
/// instance is its own writer over the same store; a transaction holds the tenant lock, and its
/// writes become the truth only when it commits (all or none).
struct SharedMemoryStore: SharedTrackingStore {
    let memory: MemoryTracking
    /// The tenant's tracking lock.
    let lock: AsyncGate

    init(_ memory: MemoryTracking) {
        self.memory = memory
        lock = AsyncGate()
    }

    final class Transaction: TrackingTransaction {
        let memory: MemoryTracking
        let revision: Int64
        let staged = Mutex<[TrackingWrite]>([])
        var wrote: Bool { staged.withLock { !$0.isEmpty } }

        init(memory: MemoryTracking, revision: Int64) { (self.memory, self.revision) = (memory, revision) }

        func loadState() async throws -> TrackingState { try memory.load().state }

        func commit(_ write: TrackingWrite) async throws -> [Set<Int>] {
            let duplicates = try await memory.checkAwaiting(write)
            staged.withLock { $0.append(write) }
            return duplicates
        }
    }

    func revision() async throws -> Int64 { memory.contents.withLock { $0.revision } }

    func loadState() async throws -> (state: TrackingState, revision: Int64) { try memory.load() }

    func exclusively<T: Sendable>(_ body: @escaping @Sendable (any TrackingTransaction) async throws -> T) async throws -> T {
        try await lock.run {
            let transaction = Transaction(memory: memory, revision: memory.contents.withLock { $0.revision })
            let result = try await body(transaction)
            if transaction.wrote { memory.commit(transaction.staged.withLock { $0 }) }
            return result
        }
    }

    func events(subscriptionId: String?, after sequence: Int64, limit: Int) async throws -> [TrackingEvent] {
        memory.events(subscriptionId: subscriptionId, after: sequence, limit: limit)
    }
    func fixes(deviceId: String, from: Instant?, to: Instant?, limit: Int) async throws -> [LocationFix] { [] }
}
