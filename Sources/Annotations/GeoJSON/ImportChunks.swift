import Foundation

/// Hands chunks of an import from the task that reads them to the transaction that writes them,
/// so reading and writing run on two cores at once. The writer blocks in ``next()`` (it runs on
/// the database's own thread, not on Swift's cooperative pool).
public final class ImportChunks: @unchecked Sendable {
    private let condition = NSCondition()  // guards everything below
    private var chunks: [[ImportedFeature]] = []
    private var end: Result<Void, any Error>?
    private var takenCount = 0

    public init() {}

    /// Chunks holding `features`, ready to read, then the end.
    public convenience init(_ features: [ImportedFeature]) {
        self.init()
        send(features)
        finish()
    }

    /// Counts `count` more features taken by the writer; returns the total so far.
    func taken(_ count: Int) -> Int {
        condition.withLock {
            takenCount += count
            return takenCount
        }
    }

    /// Adds a chunk for the writer.
    public func send(_ chunk: [ImportedFeature]) {
        condition.withLock {
            chunks.append(chunk)
            condition.signal()
        }
    }

    /// No more chunks: the writer commits after the last.
    public func finish() {
        close(.success(()))
    }

    /// The import is abandoned: the writer throws `error` and its transaction rolls back.
    public func fail(_ error: any Error) {
        close(.failure(error))
    }

    /// The next chunk, waiting for one; nil after the last; throws after ``fail(_:)``.
    public func next() throws -> [ImportedFeature]? {
        try condition.withLock {
            while chunks.isEmpty && end == nil { condition.wait() }
            if case .failure(let error)? = end { throw error }
            return chunks.isEmpty ? nil : chunks.removeFirst()
        }
    }

    private func close(_ result: Result<Void, any Error>) {
        condition.withLock {
            if end == nil { end = result }
            condition.signal()
        }
    }
}
