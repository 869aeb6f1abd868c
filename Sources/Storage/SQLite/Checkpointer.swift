import Dispatch
import Foundation
import GRDBSQLite

/// Moves the WAL into the database file from a connection and a thread of its own, a passive
/// checkpoint every ``interval``, so the writer never copies pages or waits for `fdatasync`
/// itself (its own automatic checkpoint stays as a backstop, at ``writerBackstopPages``).
/// A passive checkpoint takes no lock a writer or reader waits on.
final class Checkpointer: @unchecked Sendable {  // the timer is only resumed and cancelled
    /// How often the WAL is checkpointed.
    static let interval = DispatchTimeInterval.milliseconds(250)
    /// The writer's own automatic checkpoint threshold, in pages (SQLite's default is 1 000):
    /// reached only if the checkpointer falls behind.
    static let writerBackstopPages = 16_384

    private let timer: any DispatchSourceTimer
    private let queue = DispatchQueue(label: "meridian.checkpointer", qos: .utility)

    /// Starts checkpointing the database at `path` (nil when it cannot be opened: the writer's
    /// own checkpoints then do the work, as SQLite does by default).
    init?(path: String) {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            return nil
        }
        sqlite3_busy_timeout(handle, 1_000)
        let connection = UnsafeSendable(handle)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler {
            _ = sqlite3_wal_checkpoint_v2(connection.value, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
        timer.setCancelHandler { sqlite3_close_v2(connection.value) }
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
        timer.resume()
    }

    /// Stops checkpointing and waits for a checkpoint under way, so a final checkpoint (which
    /// needs the checkpoint lock a passive one holds) runs alone. The writer's own checkpoints go on.
    func stop() {
        timer.cancel()
        queue.sync {}
    }

    deinit {
        timer.cancel()
    }
}

/// A C handle used only on the checkpointer's serial queue.
private struct UnsafeSendable: @unchecked Sendable {
    let value: OpaquePointer
    init(_ value: OpaquePointer) { self.value = value }
}
