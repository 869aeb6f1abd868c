import MeridianHTTP
import Annotations
import Synchronization
import AnnotationIndex
import Timeline
import WireJSON

/// Each annotation's JSON as ``AnnotationJSON`` writes it, by id and version, up to a budget of
/// bytes per tenant: a query answering a thousand annotations copies their bytes instead of
/// reading a thousand rows and writing them again. SQLite stays the truth: a copy is used only
/// for the version the point index (or a row just read) names, so a changed annotation is never
/// answered stale; a newer version is appended and the older copy's bytes are left to age out.
///
/// Log-structured, so an answer of a thousand copies touches a few large blocks rather than a
/// thousand small arrays: copies are appended to blocks of ``defaultBlockSize`` bytes (written once,
/// never moved), an entry names its block and range, and past the budget the oldest block goes
/// with every entry in it. Filled as answers are written, and at a tenant's opening in the
/// background (``fill(_:from:)``, in the point index's order), until the budget.
final class EncodedAnnotations: Sendable {
    /// Bytes of one block unless told otherwise.
    static let defaultBlockSize = 8 << 20
    /// Per-entry overhead counted against the budget beside the JSON (key, slot, table).
    static let entryOverhead = 48
    /// Annotations read per transaction while filling.
    static let fillPage = 5_000

    /// A run of bytes written once; ranges below `used` (published under the state's lock) never change.
    final class Block: @unchecked Sendable {
        let memory: UnsafeMutableRawBufferPointer
        var used = 0
        /// The ids whose entries point here, so they go when it does.
        var ids: [AnnotationID] = []

        init(size: Int) { memory = .allocate(byteCount: size, alignment: 16) }
        deinit { memory.deallocate() }

        func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: memory[range]) }
    }

    /// Where a copy is: its version, block and range.
    private struct Entry {
        var version: Int
        var block: Block
        var range: Range<Int>
    }

    private struct State {
        var byID: [AnnotationID: Entry] = [:]
        /// Oldest first; the last takes new copies.
        var blocks: [Block] = []
        var bytes = 0
    }

    /// A copy found: the block (kept alive while it is read) and the range in it.
    struct Copy {
        let block: Block
        let range: Range<Int>
    }

    /// One annotation's JSON for an answer: a held copy, or bytes written just now.
    enum Piece {
        case held(Copy)
        case written([UInt8])

        func append(to json: inout JSONWriter) {
            switch self {
            case .held(let copy): json.bytes.append(contentsOf: copy.block.bytes(copy.range))
            case .written(let bytes): json.bytes += bytes
            }
        }

        var count: Int {
            switch self {
            case .held(let copy): copy.range.count
            case .written(let bytes): bytes.count
            }
        }
    }

    let budget: Int
    let blockSize: Int
    private let state = Mutex(State())

    /// - Parameter budget: bytes the copies may take; less than a block keeps none.
    init(budget: Int, blockSize: Int = EncodedAnnotations.defaultBlockSize) {
        self.budget = budget
        self.blockSize = blockSize
    }

    /// Bytes held now (blocks in use and entries).
    var bytes: Int { state.withLock { $0.bytes } }

    /// The copy of each reference whose version is held (nil where it is not), in order, under one lock.
    func copies(of references: [PointReference]) -> [Copy?] {
        state.withLock { state in
            references.map { reference in
                guard let entry = state.byID[reference.id], entry.version == reference.version else { return nil }
                return Copy(block: entry.block, range: entry.range)
            }
        }
    }

    /// The JSON of `annotation`: the held copy of its version, else written now and kept.
    func json(of annotation: Annotation) -> Piece {
        let held = state.withLock { state in
            state.byID[annotation.id].flatMap { $0.version == annotation.version ? Copy(block: $0.block, range: $0.range) : nil }
        }
        if let held { return .held(held) }
        let json = Self.write(annotation)
        keep([(annotation.id, annotation.version, json)])
        return .written(json)
    }

    /// Reads the annotations of `ids` from `store`, in that order, and keeps their JSON, until the
    /// budget is reached. Given in the point index's (Morton) order, the copies of neighbours lie
    /// side by side, so an answer about one place reads a few runs of memory, not a scatter.
    func fill(_ ids: [AnnotationID], from store: some AnnotationStore) async throws {
        var start = 0
        while !Task.isCancelled, start < ids.count, bytes + blockSize <= budget {
            let slice = Array(ids[start..<min(start + Self.fillPage, ids.count)])
            start += slice.count
            let rows = try await store.annotations(ids: slice)
            keep(slice.compactMap { rows[$0] }.map { ($0.id, $0.version, Self.write($0)) })
        }
    }

    private static func write(_ annotation: Annotation) -> [UInt8] {
        var writer = JSONWriter(capacity: 320)
        AnnotationJSON.write(annotation, to: &writer)
        return writer.bytes
    }

    private func keep(_ copies: [(id: AnnotationID, version: Int, json: [UInt8])]) {
        guard budget >= blockSize else { return }
        state.withLock { state in
            for copy in copies where copy.json.count <= blockSize {
                // A copy of the same or a newer version stays (a slow answer may have read an older row).
                if let old = state.byID[copy.id], old.version >= copy.version { continue }
                if state.blocks.last.map({ $0.used + copy.json.count > blockSize }) ?? true {
                    state.blocks.append(Block(size: blockSize))
                    state.bytes += blockSize
                }
                let block = state.blocks[state.blocks.count - 1]
                let start = block.used
                copy.json.withUnsafeBytes { block.memory.baseAddress!.advanced(by: start).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                block.used += copy.json.count
                block.ids.append(copy.id)
                if state.byID.updateValue(Entry(version: copy.version, block: block, range: start..<block.used), forKey: copy.id) == nil {
                    state.bytes += Self.entryOverhead
                }
            }
            // Past the budget the oldest block goes, with the entries whose copy is still in it.
            while state.bytes > budget, state.blocks.count > 1 {
                let oldest = state.blocks.removeFirst()
                state.bytes -= blockSize
                for id in oldest.ids where state.byID[id]?.block === oldest {
                    state.byID[id] = nil
                    state.bytes -= Self.entryOverhead
                }
            }
        }
    }
}
