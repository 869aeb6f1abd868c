import MapGeometry
import Synchronization
public import Annotations
public import Timeline

/// The thinning index: every live annotation's map point, sorted by Morton code within each
/// (clustering identifier, kind, required) partition, so any grid cell's count, centroid, bounds
/// and representative come from two binary searches (DESIGN.md, "Thinning").
///
/// Thread-safe: queries share a read lock, writes take the write lock for microseconds. It
/// follows the store's change feed; ``sequence`` is the last change it holds.
public final class ThinningIndex: @unchecked Sendable {
    struct PartitionKey: Hashable {
        var group: String?
        var kind: String?
        var required: Bool
    }

    let lock = ReadWriteLock()
    // The state marked `@exclusivity(unchecked)` is read and written under `lock` only (or in
    // `init`, before the index is shared): no dynamic exclusivity checks (a build placed a million
    // entries with six of them each).
    @exclusivity(unchecked) private(set) var keys: [PartitionKey] = []
    @exclusivity(unchecked) private var partitionIndex: [PartitionKey: Int] = [:]
    @exclusivity(unchecked) private(set) var partitions: [ThinningPartition] = []
    /// Per ordinal (ascending id order): the id, its partition (-1 once removed) and its code.
    @exclusivity(unchecked) private(set) var slotIDs: [AnnotationID] = []
    @exclusivity(unchecked) private var slotPartition: [Int32] = []
    @exclusivity(unchecked) private var slotCode: [UInt64] = []
    @exclusivity(unchecked) private var live = 0
    @exclusivity(unchecked) private var lastPlaced: (key: PartitionKey, partition: Int)?
    private var slotPartitionBytes: Int { slotPartition.capacity * 4 + slotCode.capacity * 8 }
    private var appliedSequence: Int64
    private let useClock = Atomic<UInt64>(0)
    /// Every partition by clustering identifier, as an unfiltered answer reads them; refreshed by
    /// every write (queries do not rebuild it each time).
    @exclusivity(unchecked) private(set) var everyGroup: [PartitionGroup] = []
    /// The numeric properties requests aggregate or weigh by, most recently used last; at most ``maxColumns``.
    @exclusivity(unchecked) private(set) var columns: [PropertyColumn] = []
    /// The most property columns kept; the least recently used goes first.
    public static let maxColumns = 16

    /// One clustering identifier's partitions (held directly: no index lookups per cell).
    struct PartitionGroup {
        var identifier: String?
        var clustered: [(partition: ThinningPartition, kind: String?)] = []
        var required: [ThinningPartition] = []
    }

    /// An index of `entries` (any order), current up to feed position `sequence`.
    public init(entries: [ThinningEntry], sequence: Int64) {
        appliedSequence = sequence
        rebuild(entries)
    }

    /// The last feed position applied.
    public var sequence: Int64 { reading { appliedSequence } }

    /// Live annotations held.
    public var count: Int { reading { live } }

    /// Runs `body` under the read lock: queries run side by side.
    func reading<T>(_ body: () throws -> T) rethrows -> T {
        try lock.reading(body)
    }

    /// Applies a batch of writes (what the ``IndexFollower`` read from the feed): `upserts` are
    /// current entries (created, moved or changed), `removals` deleted ids; afterwards the index is
    /// current up to `sequence`. One write lock per batch, so writers never queue behind queries
    /// one entry at a time.
    public func apply(upserts: [ThinningEntry], removals: [AnnotationID], through sequence: Int64) {
        lock.writing {
            for id in removals { _ = removeSlot(id) }
            if olderThanNewest(upserts) > Self.olderPerBatch {
                // Each would move the ordinals above it (a bulk of another instance's writes): renumber once.
                var entries = Dictionary(currentEntries().map { ($0.id, $0) }, uniquingKeysWith: { $1 })
                for entry in upserts { entries[entry.id] = entry }
                rebuild(Array(entries.values))
            } else {
                for entry in upserts.sorted(by: { $0.id < $1.id }) { upsertUnlocked(entry) }
            }
            if slotIDs.count > 1024, slotIDs.count > 2 * live { rebuild(currentEntries()) }
            appliedSequence = max(appliedSequence, sequence)
            refreshGroups()
            for partition in partitions { partition.syncColumns() }
        }
    }

    /// The names of the property columns held.
    public var columnNames: Set<String> { reading { Set(columns.map(\.name)) } }

    /// Adds a column of `property` with these values (ids the index does not hold are skipped; the
    /// rest have none), then `corrections`' (entries newer than the values), dropping the least
    /// recently used beyond ``maxColumns``. Together they must be at least as new as
    /// ``sequence``: the writes after it bring the rest.
    public func addColumn(_ property: String, values: [(id: AnnotationID, value: Double)], corrections: [ThinningEntry] = []) {
        lock.writing {
            if let existing = columns.firstIndex(where: { $0.name == property }) { drop(columns[existing]) }
            // The least recently used that no answer holds goes; while answers hold them all, there are more for a while.
            let free = columns.filter { $0.pins.load(ordering: .relaxed) == 0 }
            var dropping = free.sorted { $0.used.load(ordering: .relaxed) < $1.used.load(ordering: .relaxed) }[...]
            while columns.count >= Self.maxColumns, let oldest = dropping.popFirst() { drop(oldest) }
            let column = PropertyColumn(name: property, slots: slotIDs.count)
            touch(column)
            for (id, value) in values where value.isFinite {
                if let ordinal = ordinalOf(id) { column.byOrdinal[Int(ordinal)] = value }
            }
            for entry in corrections {
                if let ordinal = ordinalOf(entry.id) { column.byOrdinal[Int(ordinal)] = column.value(of: entry) }
            }
            columns.append(column)
            for partition in partitions { partition.addColumn(column) }
        }
    }

    private func drop(_ column: PropertyColumn) {
        columns.removeAll { $0 === column }
        for partition in partitions { partition.removeColumn(column) }
    }

    /// Where the column of `property` is in ``columns`` (and in every partition's
    /// ``ThinningPartition/columnBlocks``), marked used; nil when none is held.
    func columnPlace(_ property: String) -> Int? {
        guard let place = columns.firstIndex(where: { $0.name == property }) else { return nil }
        touch(columns[place])
        return place
    }

    private func touch(_ column: PropertyColumn) {
        column.used.store(useClock.wrappingAdd(1, ordering: .relaxed).newValue, ordering: .relaxed)
    }

    /// Holds the columns of `properties` for an answer (none is dropped until ``release(_:)``);
    /// false, holding none, when one is not held.
    public func hold(_ properties: Set<String>) -> Bool {
        reading {
            let held = properties.compactMap { property in columns.first { $0.name == property } }
            guard held.count == properties.count else { return false }
            for column in held {
                column.pins.wrappingAdd(1, ordering: .relaxed)
                touch(column)
            }
            return true
        }
    }

    /// Lets the columns ``hold(_:)`` held go again.
    public func release(_ properties: Set<String>) {
        reading {
            for column in columns where properties.contains(column.name) { column.pins.wrappingSubtract(1, ordering: .relaxed) }
        }
    }

    // MARK: Inside the write lock

    private func upsertUnlocked(_ entry: ThinningEntry) {
        let ordinal: UInt32
        if let existing = ordinalOf(entry.id) {
            if slotPartition[Int(existing)] >= 0 { removeMember(existing) } else { live += 1 }
            ordinal = existing
        } else if slotIDs.last.map({ $0 < entry.id }) ?? true {
            ordinal = UInt32(slotIDs.count)
            slotIDs.append(entry.id)
            slotPartition.append(-1)
            slotCode.append(0)
            for column in columns { column.byOrdinal.append(.nan) }
            live += 1
        } else if let inserted = insertOrdinal(for: entry.id) {
            ordinal = inserted
            live += 1
        } else {
            rebuild(currentEntries() + [entry])
            return
        }
        for column in columns { column.byOrdinal[Int(ordinal)] = column.value(of: entry) }
        let (partition, member) = place(entry, ordinal: ordinal)
        partitions[partition].insert(member)
        slotPartition[Int(ordinal)] = Int32(partition)
        slotCode[Int(ordinal)] = member.code
    }

    /// The most ordinals an id older than the newest held moves up before a rebuild is cheaper.
    static let shiftLimit = 4096
    /// The most new ids older than the newest held one batch places one at a time (each moves the
    /// ordinals above it); a batch with more renumbers once.
    static let olderPerBatch = 64

    /// How many of `upserts` are new ids older than the newest held.
    private func olderThanNewest(_ upserts: [ThinningEntry]) -> Int {
        guard let newest = slotIDs.last else { return 0 }
        return upserts.count { $0.id < newest && ordinalOf($0.id) == nil }
    }

    /// A slot for an id older than the newest held — another instance's, whose writes interleave
    /// with this one's in the feed, or one given by an import: the ordinals above its place move up
    /// one (highest first, so none meets another), keeping ordinals in id order, so ties between
    /// equal priorities break alike on every instance. Nil when more than ``shiftLimit`` would move.
    private func insertOrdinal(for id: AnnotationID) -> UInt32? {
        let position = firstOrdinal { $0 > id }
        guard slotIDs.count - position <= Self.shiftLimit else { return nil }
        for ordinal in stride(from: slotIDs.count - 1, through: position, by: -1) where slotPartition[ordinal] >= 0 {
            let partition = Int(slotPartition[ordinal])
            guard var member = partitions[partition].remove(code: slotCode[ordinal], ordinal: UInt32(ordinal)) else { continue }
            member.ordinal += 1
            member.rank = Rank.make(priority: Rank.priority(of: member.rank), ordinal: member.ordinal)
            partitions[partition].insert(member)
        }
        slotIDs.insert(id, at: position)
        slotPartition.insert(-1, at: position)
        slotCode.insert(0, at: position)
        // The columns' values shift with the ordinals; their summaries are synced after the batch.
        for column in columns { column.byOrdinal.insert(.nan, at: position) }
        return UInt32(position)
    }

    private func removeSlot(_ id: AnnotationID) -> Bool {
        guard let ordinal = ordinalOf(id), slotPartition[Int(ordinal)] >= 0 else { return false }
        removeMember(ordinal)
        slotPartition[Int(ordinal)] = -1
        live -= 1
        return true
    }

    private func removeMember(_ ordinal: UInt32) {
        let partition = Int(slotPartition[Int(ordinal)])
        partitions[partition].remove(code: slotCode[Int(ordinal)], ordinal: ordinal)
    }

    private func ordinalOf(_ id: AnnotationID) -> UInt32? {
        let first = firstOrdinal { $0 >= id }
        return first < slotIDs.count && slotIDs[first] == id ? UInt32(first) : nil
    }

    /// The first ordinal whose id passes `isPast` (ids ascend with ordinals), or the slot count.
    func firstOrdinal(where isPast: (AnnotationID) -> Bool) -> Int {
        slotIDs.partitioningIndex(where: isPast)
    }

    /// The partition of an entry (created on first use) and its member record.
    private func place(_ entry: ThinningEntry, ordinal: UInt32) -> (Int, Member) {
        let priority = min(max(entry.displayPriority, 0), AnnotationContent.requiredDisplayPriority)
        let key = PartitionKey(
            group: entry.clusteringIdentifier, kind: entry.kind,
            required: priority == AnnotationContent.requiredDisplayPriority)
        let partition: Int
        if let last = lastPlaced, last.key == key {
            // Rows of one class tend to come together: skip hashing the key.
            partition = last.partition
        } else if let known = partitionIndex[key] {
            partition = known
        } else {
            partition = partitions.count
            partitions.append(ThinningPartition())
            for column in columns { partitions[partition].addColumn(column) }
            keys.append(key)
            partitionIndex[key] = partition
        }
        lastPlaced = (key, partition)
        let x = ThinningGrid.shiftedX(entry.point.x)
        let member = Member(
            code: ThinningGrid.code(shiftedX: x, y: entry.point.y), ordinal: ordinal,
            x: x, y: entry.point.y, rank: Rank.make(priority: priority, ordinal: ordinal))
        return (partition, member)
    }

    /// Every live entry, rebuilt from the partitions.
    private func currentEntries() -> [ThinningEntry] {
        var entries: [ThinningEntry] = []
        entries.reserveCapacity(live)
        for (p, partition) in partitions.enumerated() {
            for member in partition.members {
                let shifted = ThinningGrid.unshifted(x: member.x, y: member.y)
                let point = MapPoint(x: Mercator.wrapX(shifted.x), y: shifted.y)
                // Only the map point counts here; the coordinate beyond ±85.05° is not kept.
                entries.append(ThinningEntry(
                    id: slotIDs[Int(member.ordinal)], point: point, coordinate: Mercator.coordinate(for: point),
                    kind: keys[p].kind, clusteringIdentifier: keys[p].group, displayPriority: Rank.priority(of: member.rank)))
            }
        }
        return entries
    }

    /// Replaces everything with `entries`, numbering ordinals in id order.
    private func rebuild(_ entries: [ThinningEntry]) {
        // Rows come from the database in rowid order, which is (nearly always) id order.
        // (Ids compared in place: a million entries copied out, each with its strings retained, cost more.)
        let inOrder = entries.withUnsafeBufferPointer { all in all.indices.dropFirst().allSatisfy { all[$0 - 1].id < all[$0].id } }
        let sorted = inOrder ? entries : entries.sorted { $0.id < $1.id }
        let oldIDs = slotIDs
        keys = []
        partitionIndex = [:]
        lastPlaced = nil
        partitions = []
        slotIDs = sorted.map(\.id)
        for column in columns { column.byOrdinal = Self.renumbered(column, from: oldIDs, to: sorted) }
        slotPartition = Array(repeating: -1, count: sorted.count)
        slotCode = Array(repeating: 0, count: sorted.count)
        live = sorted.count
        var members: [[Member]] = []
        sorted.withUnsafeBufferPointer { sorted in
            for ordinal in sorted.indices {
                let (partition, member) = place(sorted[ordinal], ordinal: UInt32(ordinal))
                if partition == members.count {
                    // Most tenants' annotations are of one kind: the first list has room for all the rest.
                    members.append([])
                    if partition == 0 { members[0].reserveCapacity(sorted.count - ordinal) }
                }
                members[partition].append(member)
                slotPartition[ordinal] = Int32(partition)
                slotCode[ordinal] = member.code
            }
        }
        // Each list is in ordinal order: a stable sort by code orders it by code, then ordinal.
        partitions = members.map(ThinningPartition.init(unsorted:))
        for partition in partitions { for column in columns { partition.addColumn(column) } }
        refreshGroups()
    }

    /// A column's values for the slots of `entries` (sorted by id): an entry's own numbers when it
    /// carries them, else the value its id had among `oldIDs` (sorted too).
    private static func renumbered(_ column: PropertyColumn, from oldIDs: [AnnotationID], to entries: [ThinningEntry]) -> [Double] {
        var values = [Double](repeating: .nan, count: entries.count)
        var old = 0
        for (ordinal, entry) in entries.enumerated() {
            if entry.numbers != nil { values[ordinal] = column.value(of: entry); continue }
            while old < oldIDs.count, oldIDs[old] < entry.id { old += 1 }
            if old < oldIDs.count, oldIDs[old] == entry.id { values[ordinal] = column.byOrdinal[old] }
        }
        return values
    }

    private func refreshGroups() {
        everyGroup = groups(ThinningFilter(), only: nil, matchGroup: false)
    }
}

extension ThinningIndex {
    /// Bytes the index's arrays hold (capacity × stride; dictionaries and strings not counted).
    public var memoryFootprint: Int {
        reading {
            var bytes = slotIDs.capacity * MemoryLayout<AnnotationID>.stride + slotPartitionBytes
            for column in columns { bytes += column.byOrdinal.capacity * 8 }
            for partition in partitions { bytes += partition.memoryFootprint }
            return bytes
        }
    }
}
