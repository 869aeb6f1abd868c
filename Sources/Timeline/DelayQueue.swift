import Synchronization

/// Runs actions one fixed delay after they were scheduled, unless cancelled first, all from one
/// task that sleeps until the oldest is due: a request's time limit costs two short locked
/// updates (schedule, cancel), not a task and a timer of its own. One delay for all, so their
/// order is their arrival order.
///
/// ```swift
/// let limits = DelayQueue(delay: .seconds(30))
/// let token = limits.schedule { race.finish(.timedOut) }
/// defer { limits.cancel(token) }
/// ```
public final class DelayQueue: Sendable {
    public let delay: Duration

    private struct Entry {
        let id: Int
        let due: ContinuousClock.Instant
    }

    private struct State {
        var nextID = 0
        var actions: [Int: @Sendable () -> Void] = [:]
        /// Every scheduled entry in order of `due`, from `head` on; cancelled ones stay until they
        /// reach the head (most often at once: requests end in about the order they came).
        var entries: [Entry] = []
        var head = 0
        var running = false

        mutating func dropCancelledHead() {
            while head < entries.count, actions[entries[head].id] == nil { head += 1 }
            if head == entries.count {
                entries.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 1024, head * 2 > entries.count {
                entries.removeFirst(head)
                head = 0
            } else if entries.count - head > 2 * actions.count + 1024 {
                // A request that runs long holds the head, and the cancelled ones behind it pile up.
                let live = entries[head...].filter { actions[$0.id] != nil }
                entries = Array(live)
                head = 0
            }
        }
    }

    private let state = Mutex(State())

    public init(delay: Duration) { self.delay = delay }

    /// Runs `action` after ``delay`` unless ``cancel(_:)`` comes first; returns its token.
    public func schedule(_ action: @escaping @Sendable () -> Void) -> Int {
        let (id, start) = state.withLock { state -> (Int, Bool) in
            // Read under the lock: the entries stay in order of `due`.
            let due = ContinuousClock.now + delay
            state.nextID += 1
            state.actions[state.nextID] = action
            state.entries.append(Entry(id: state.nextID, due: due))
            defer { state.running = true }
            return (state.nextID, !state.running)
        }
        if start { Task.detached { await self.run() } }
        return id
    }

    /// Forgets the action of `token` (nothing when it ran already).
    public func cancel(_ token: Int) {
        state.withLock { state in
            guard state.actions.removeValue(forKey: token) != nil else { return }
            state.dropCancelledHead()
        }
    }

    /// The actions scheduled and not yet run or cancelled.
    public var pending: Int { state.withLock { $0.actions.count } }

    /// Runs what is due, sleeps until the next, and ends when nothing is left (the next
    /// ``schedule(_:)`` starts it again).
    private func run() async {
        while true {
            let now = ContinuousClock.now
            let (due, next) = state.withLock { state -> ([@Sendable () -> Void], ContinuousClock.Instant?) in
                var due: [@Sendable () -> Void] = []
                state.dropCancelledHead()
                while state.head < state.entries.count, state.entries[state.head].due <= now {
                    if let action = state.actions.removeValue(forKey: state.entries[state.head].id) { due.append(action) }
                    state.head += 1
                    state.dropCancelledHead()
                }
                guard state.head < state.entries.count else {
                    state.running = false
                    return (due, nil)
                }
                return (due, state.entries[state.head].due)
            }
            for action in due { action() }
            guard let next else { return }
            try? await Task.sleep(until: next, clock: .continuous)
        }
    }
}
