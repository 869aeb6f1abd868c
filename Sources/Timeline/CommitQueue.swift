import Synchronization

/// Group commit for async callers: items submitted while a group is being committed make the
/// next group, committed by one call of `commit` (one transaction), in submission order; each
/// caller is answered once its group's commit returned. When a group of several fails with an
/// error `alone` accepts, each of its items is committed again alone, so an item the store refuses
/// fails alone and the others go on; with any other error (the database unreachable, a commit
/// whose outcome is unknown) every item gets it, and its caller may retry.
/// One group at a time per queue; callers wait without holding a thread.
public final class CommitQueue<Item: Sendable, Answer: Sendable>: Sendable {
    private struct Waiting: Sendable {
        var item: Item
        var continuation: CheckedContinuation<Answer, any Error>
    }

    /// Commits a group (all or none) and answers each of its items, in order.
    public typealias Commit = @Sendable ([Item]) async throws -> [Answer]

    private let committer = Mutex<Commit?>(nil)
    private let queue = Mutex<(waiting: [Waiting], draining: Bool)>(([], false))
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
    public var waiting: Int { queue.withLock { $0.waiting.count } }

    /// Commits `item` with whatever else waits, and returns its answer.
    public func submit(_ item: Item) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            let start = queue.withLock { queue in
                queue.waiting.append(Waiting(item: item, continuation: continuation))
                defer { queue.draining = true }
                return !queue.draining
            }
            if start { Task { await drain() } }
        }
    }

    /// Commits the waiting items a group at a time until none waits.
    private func drain() async {
        while true {
            let group = queue.withLock { queue in
                defer { queue.waiting.removeAll(keepingCapacity: true) }
                if queue.waiting.isEmpty { queue.draining = false }
                return queue.waiting
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
