import Annotations
import Synchronization
import Thinning
import Timeline
import WireJSON

/// Each annotation's JSON as ``AnnotationJSON`` writes it, by id and version, up to a budget of
/// bytes per tenant: a query answering a thousand annotations copies their bytes instead of
/// reading a thousand rows and writing them again. SQLite stays the truth: an entry is used only
/// for the version the point index (or a row just read) names, so a changed annotation is never
/// answered stale; an entry of an older version is replaced when the new one is written.
///
/// Filled as answers are written, and at a tenant's opening in the background (``fill(from:)``),
/// until the budget; past it, the entries kept first make room.
final class EncodedAnnotations: Sendable {
    private struct Entry {
        var version: Int
        var json: [UInt8]
    }

    private struct State {
        var byID: [AnnotationID: Entry] = [:]
        var bytes = 0
        /// Ids in the order they were first kept, from `head`: the order entries make room in.
        var order: [AnnotationID] = []
        var head = 0
    }

    /// Per-entry overhead counted against the budget beside the JSON (key, header, table slot).
    static let entryOverhead = 64
    /// Annotations read per transaction while filling.
    static let fillPage = 5_000

    let budget: Int
    private let state = Mutex(State())

    /// - Parameter budget: bytes the entries may take; 0 keeps none.
    init(budget: Int) {
        self.budget = budget
    }

    /// Bytes held now (JSON and overhead).
    var bytes: Int { state.withLock { $0.bytes } }

    /// The JSON of each reference whose version is held (nil where it is not), in order, under one lock.
    func json(of references: [PointReference]) -> [[UInt8]?] {
        state.withLock { state in
            references.map { reference in
                guard let entry = state.byID[reference.id], entry.version == reference.version else { return nil }
                return entry.json
            }
        }
    }

    /// The JSON of `annotation`: the held copy of its version, else written now and kept.
    func json(of annotation: Annotation) -> [UInt8] {
        let held = state.withLock { state in state.byID[annotation.id].flatMap { $0.version == annotation.version ? $0.json : nil } }
        if let held { return held }
        var writer = JSONWriter(capacity: 320)
        AnnotationJSON.write(annotation, to: &writer)
        keep([annotation.id: Entry(version: annotation.version, json: writer.bytes)])
        return writer.bytes
    }

    /// Reads every annotation of `store` in id order and keeps its JSON, until the budget is reached.
    func fill(from store: some AnnotationStore) async throws {
        var after: AnnotationID?
        while !Task.isCancelled, bytes < budget {
            let page = try await store.annotations(matching: AnnotationQuery(after: after, limit: Self.fillPage))
            var entries: [AnnotationID: Entry] = [:]
            for annotation in page.annotations {
                var writer = JSONWriter(capacity: 320)
                AnnotationJSON.write(annotation, to: &writer)
                entries[annotation.id] = Entry(version: annotation.version, json: writer.bytes)
            }
            // A newer version written meanwhile by an answer stays.
            keep(entries, replacingNewer: false)
            guard let next = page.next else { return }
            after = next
        }
    }

    private func keep(_ entries: [AnnotationID: Entry], replacingNewer: Bool = true) {
        guard budget > 0 else { return }
        state.withLock { state in
            for (id, entry) in entries {
                if let old = state.byID[id] {
                    guard replacingNewer || old.version < entry.version else { continue }
                    state.bytes -= old.json.count + Self.entryOverhead
                } else {
                    state.order.append(id)
                }
                state.byID[id] = entry
                state.bytes += entry.json.count + Self.entryOverhead
            }
            while state.bytes > budget, state.head < state.order.count {
                let victim = state.order[state.head]
                state.head += 1
                if let old = state.byID.removeValue(forKey: victim) { state.bytes -= old.json.count + Self.entryOverhead }
            }
            if state.head > 4096, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }
}
