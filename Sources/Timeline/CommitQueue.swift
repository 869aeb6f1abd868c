import Synchronization

/// Group commit for async callers: items submitted while a group is being committed make the
/// next group (at most ``largestGroup`` items), committed by one call of `commit` (one
/// transaction), in submission order; each caller is answered once its group's commit returned.
/// When a group of several fails with an error `alone` accepts, each of its items is committed
/// again alone, so an item the store refuses fails alone and the others go on; with any other
/// error (the database unreachable, a commit whose outcome is unknown) every item gets it, and its
/// caller may retry. A caller whose task is cancelled while its item still waits (its request ran
/// out of time) leaves the queue with `CancellationError`; an item whose group has started is
/// committed. One group at a time per queue, on a task of its own (no caller's task-locals);
/// callers wait without holding a thread.
public final class CommitQueue<Item: Sendable, Answer: Sendable>: Sendable {
    private struct Waiting: Sendable {
        var ticket: UInt64
        var item: Item
        var continuation: CheckedContinuation<Answer, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var draining = false
        var nextTicket: UInt64 = 0
    }

    /// Commits a group (all or none) and answers each of its items, in order.
    public typealias Commit = @Sendable ([Item]) async throws -> [Answer]

    /// Items in one group at most: a burst is several transactions, none holding locks for long.
    public static var largestGroup: Int { 256 }

    private let committer = Mutex<Commit?>(nil)
    private let state = Mutex(State())
    private let alone: @Sendable (any Error) -> Bool

    /// - Parameter alone: whether a group that failed with this error is tried again item by item.
    public init(alone: @escaping @Sendable (any Error) -> Bool = { _ in true }, commit: @escaping Commit) {
        self.alone = alone
        committer.withLock { $0 = commit }
    }

    /// A queue whose commit is given later (``bind(_:)``), for an owner that commits with itself.
    public init(alone: @escaping @Sendable (any Error) -> Bool = { _ in true }) {
        self.alone = alone
    }

    /// Sets the commit (before the first ``submit(_:)``).
    public func bind(_ commit: @escaping Commit) {
        committer.withLock { $0 = commit }
    }

    /// Items waiting for the group under way to end (they make the next one).
    public var waiting: Int { state.withLock { $0.waiting.count } }

    /// Commits `item` with whatever else waits, and returns its answer.
    public func submit(_ item: Item) async throws -> Answer {
        let ticket = state.withLock { state in
            state.nextTicket += 1
            return state.nextTicket
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let start = state.withLock { state -> Bool? in
                    guard !Task.isCancelled else { return nil }
                    state.waiting.append(Waiting(ticket: ticket, item: item, continuation: continuation))
                    defer { state.draining = true }
                    return !state.draining
                }
                switch start {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: Task.detached { await self.drain() }
                case false?: break
                }
            }
        } onCancel: {
            let left = state.withLock { state -> Waiting? in
                guard let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                return state.waiting.remove(at: index)
            }
            left?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Commits the waiting items a group at a time until none waits.
    private func drain() async {
        while true {
            let group = state.withLock { state -> [Waiting] in
                if state.waiting.isEmpty { state.draining = false }
                let group = Array(state.waiting.prefix(Self.largestGroup))
                state.waiting.removeFirst(group.count)
                return group
            }
            guard !group.isEmpty else { return }
            await commit(group)
        }
    }

    /// Submitted before ``bind(_:)``.
    public struct Unbound: Error {}

    private func commit(_ group: [Waiting]) async {
        do {
            guard let commit = committer.withLock({ $0 }) else { throw Unbound() }
            let answers = try await commit(group.map(\.item))
            precondition(answers.count == group.count, "a commit answers each item of its group")
            for (waiting, answer) in zip(group, answers) { waiting.continuation.resume(returning: answer) }
        } catch {
            guard group.count > 1, alone(error) else {
                for waiting in group { waiting.continuation.resume(throwing: error) }
                return
            }
            for waiting in group { await commit([waiting]) }
        }
    }
}
