import Annotations

/// One member of a partition: where it is in the shifted grid frame and how it ranks.
struct Member {
    /// Morton code of the shifted integer map point.
    var code: UInt64
    /// The annotation's slot; ordinals follow id order.
    var ordinal: UInt32
    /// Shifted map point (``ThinningGrid/shiftedX(_:)``), unrounded.
    var x: Double
    var y: Double
    /// Lower is better: `(1000 - displayPriority) << 32 | ordinal`; ``Rank/removed`` once removed.
    var rank: UInt64

    func precedes(_ code: UInt64, _ ordinal: UInt32) -> Bool {
        self.code < code || (self.code == code && self.ordinal < ordinal)
    }
}

enum Rank {
    static let removed = UInt64.max
    /// Bits a rank of a member uses: 10 for 1000 − priority, 32 for the ordinal (sort keys pack a count above them).
    static let bits = 42
    /// The best priority, 1000 (required): rank 0 in the high word.
    private static let top = AnnotationContent.requiredDisplayPriority

    static func make(priority: Int, ordinal: UInt32) -> UInt64 {
        assert((0...top).contains(priority) && top < 1 << (bits - 32), "a rank fits \(bits) bits")
        return UInt64(top - priority) << 32 | UInt64(ordinal)
    }

    /// The display priority a rank encodes.
    static func priority(of rank: UInt64) -> Int {
        top - Int(rank >> 32)
    }

    /// Ranks below this have a display priority of at least `priority`.
    static func limit(minimumPriority priority: Int) -> UInt64 {
        UInt64(top - priority + 1) << 32
    }
}

/// Bounding box, sums of x and y, and best rank of some members.
struct Summary {
    var minX = Double.infinity, minY = Double.infinity
    var maxX = -Double.infinity, maxY = -Double.infinity
    var sumX = 0.0, sumY = 0.0
    var best = Rank.removed

    mutating func add(x: Double, y: Double, rank: UInt64) {
        minX = min(minX, x); maxX = max(maxX, x)
        minY = min(minY, y); maxY = max(maxY, y)
        sumX += x; sumY += y
        best = min(best, rank)
    }

    mutating func add(_ other: Summary) {
        minX = min(minX, other.minX); maxX = max(maxX, other.maxX)
        minY = min(minY, other.minY); maxY = max(maxY, other.maxY)
        sumX += other.sumX; sumY += other.sumY
        best = min(best, other.best)
    }
}

/// What a range of codes holds: count, and in ``summary`` sums for the centroid, bounds and best
/// rank; the first and last member.
struct Aggregate {
    var count = 0
    var summary = Summary()
    /// The smallest and greatest (code, ordinal) among the members; meaningful when count > 0.
    var first = (code: UInt64.max, ordinal: UInt32.max)
    var last = (code: UInt64(0), ordinal: UInt32(0))

    init() {}

    /// The aggregate of one member.
    init(_ member: Member) {
        count = 1
        summary = Summary(minX: member.x, minY: member.y, maxX: member.x, maxY: member.y, sumX: member.x, sumY: member.y, best: member.rank)
        first = (member.code, member.ordinal)
        last = first
    }

    mutating func add(_ member: Member) {
        count += 1
        summary.add(x: member.x, y: member.y, rank: member.rank)
        if member.precedes(first.code, first.ordinal) { first = (member.code, member.ordinal) }
        if !member.precedes(last.code, last.ordinal) { last = (member.code, member.ordinal) }
    }

    mutating func add(_ other: Aggregate) {
        guard other.count > 0 else { return }
        count += other.count
        summary.add(other.summary)
        if (other.first.code, other.first.ordinal) < (first.code, first.ordinal) { first = other.first }
        if (other.last.code, other.last.ordinal) > (last.code, last.ordinal) { last = other.last }
    }
}

/// One occupied cell of a partition in a view: its Morton number at the grid's level and the
/// positions of its codes in the main run and in the additions.
struct CellSpan {
    var cell: UInt64
    var main: Range<Int>
    var added: Range<Int>
}

/// The members of one (clustering identifier, kind, required) class, sorted by (code, ordinal).
///
/// A *main* run holds a two-level summary (bounds, sums of x and y, best rank) per 64 and per
/// 4 096 members, so a cell's count, centroid, bounds and representative cost two binary searches,
/// a few summary reads and the members of at most two partial blocks (a summary per 64 members
/// instead of prefix sums per member: 16 bytes a point less). Writes since the last merge live beside it: `added` (sorted)
/// and `removed` (members still in the main run, marked removed and left out).
/// When the two grow past ``mergeThreshold`` they are merged into a new main run.
///
/// Its arrays are read and written only under the index's lock (``ThinningIndex``), and no access
/// to one overlaps another to the same array, so they skip Swift's dynamic exclusivity checks: a
/// thin answer reads them a few times per cell, and each check was a thread-local lookup.
final class ThinningPartition {
    static let blockSize = 64
    static let superblockSize = 4096

    @exclusivity(unchecked) private(set) var codes: [UInt64] = []
    @exclusivity(unchecked) private(set) var ordinals: [UInt32] = []
    @exclusivity(unchecked) private(set) var xs: [Double] = []
    @exclusivity(unchecked) private(set) var ys: [Double] = []
    /// Per member, the high word of its rank (1000 − display priority), `UInt16.max` once removed:
    /// the rank's low word is the ordinal, already in `ordinals` (6 bytes a point less than whole ranks).
    @exclusivity(unchecked) private var rankHighs: [UInt16] = []
    @exclusivity(unchecked) private var blocks: [Summary] = []
    /// For large runs: `directory[b]` is the first position whose code's top 16 bits are ≥ b, so a
    /// search starts inside one of 65 536 buckets instead of the whole run.
    @exclusivity(unchecked) private var directory: [UInt32] = []
    static let directoryShift: UInt64 = 40
    static let directoryThreshold = 32_768
    @exclusivity(unchecked) private var superblocks: [Summary] = []
    @exclusivity(unchecked) private(set) var added: [Member] = []
    @exclusivity(unchecked) private var removed: [Member] = []
    /// The summaries of the index's property columns over the main run (``syncColumns()`` keeps
    /// them current after each batch of writes).
    @exclusivity(unchecked) var columnBlocks: [ColumnBlocks] = []
    /// Blocks resummarized, or the whole run rebuilt, since the columns were last synced.
    private var staleBlocks: [Int] = []
    private var rebuiltSinceSync = false

    /// Members, main run and additions, less removals.
    var count: Int { codes.count + added.count - removed.count }

    /// Pending writes before a merge: enough that a merge's O(n) is cheap per write, few enough
    /// that inserting into the sorted `added` stays cheap.
    var mergeThreshold: Int { max(256, min(4096, Int(Double(codes.count).squareRoot() * 2))) }

    init() {}

    /// A partition of `members`, sorted by (code, ordinal).
    init(sorted members: [Member]) {
        rebuild(from: members)
    }

    /// A partition of `members`, in ordinal order: its run sorted by (code, ordinal).
    init(unsorted members: [Member]) {
        // A stable sort by code keeps ordinal order among equal codes.
        let places = RadixSort.places(of: RadixSort.order(of: members.map(\.code)))
        rebuild(from: members) { Int(places[$0]) }
    }

    /// Bytes the arrays hold.
    var memoryFootprint: Int {
        codes.capacity * 8 + ordinals.capacity * 4 + xs.capacity * 8 + ys.capacity * 8 + rankHighs.capacity * 2
            + (blocks.capacity + superblocks.capacity) * MemoryLayout<Summary>.stride + directory.capacity * 4
            + (added.capacity + removed.capacity) * MemoryLayout<Member>.stride
            + columnBlocks.reduce(0) { bytes, column in
                bytes + column.values.capacity * 8
                    + (column.stats.blocks.capacity + column.stats.mids.capacity + column.stats.superblocks.capacity) * MemoryLayout<ValueStats>.stride
                    + (column.weights.blocks.capacity + column.weights.mids.capacity + column.weights.superblocks.capacity) * MemoryLayout<WeightSums>.stride
                    + (column.edges.from.capacity + column.edges.through.capacity) * MemoryLayout<ValueStats>.stride
            }
    }

    // MARK: Writes

    func insert(_ member: Member) {
        added.insert(member, at: Self.lowerBound(added, member.code, member.ordinal))
        mergeIfNeeded()
    }

    /// Removes the member with this code and ordinal and returns it; nil when there is none.
    @discardableResult
    func remove(code: UInt64, ordinal: UInt32) -> Member? {
        let a = Self.lowerBound(added, code, ordinal)
        if a < added.count, added[a].code == code, added[a].ordinal == ordinal {
            return added.remove(at: a)
        }
        let p = mainPosition(code: code, ordinal: ordinal)
        guard p < codes.count, codes[p] == code, ordinals[p] == ordinal, !isRemoved(p) else { return nil }
        let member = Member(code: code, ordinal: ordinal, x: xs[p], y: ys[p], rank: rank(at: p))
        rankHighs[p] = .max
        removed.insert(member, at: Self.lowerBound(removed, code, ordinal))
        resummarize(around: p)
        mergeIfNeeded()
        return member
    }

    private func mergeIfNeeded() {
        if added.count + removed.count > mergeThreshold { merge() }
    }

    /// Folds additions and removals into a new main run.
    func merge() {
        rebuild(from: members)
    }

    /// Every member in (code, ordinal) order: the main run less removals, merged with the additions.
    var members: [Member] {
        var all: [Member] = []
        all.reserveCapacity(count)
        var a = 0
        for p in codes.indices where !isRemoved(p) {
            while a < added.count, added[a].precedes(codes[p], ordinals[p]) { all.append(added[a]); a += 1 }
            all.append(member(at: p))
        }
        all.append(contentsOf: added[a...])
        return all
    }

    /// The run of `members`, sorted by (code, ordinal) already.
    private func rebuild(from members: [Member]) {
        rebuild(from: members) { $0 }
    }

    /// The run of `members`, the one at `e` written at `place(e)` (a permutation): each member
    /// read once, in the list's order (``RadixSort/places(of:)``).
    private func rebuild(from members: [Member], place: (Int) -> Int) {
        let n = members.count
        (codes, ordinals, rankHighs) = (Array(repeating: 0, count: n), Array(repeating: 0, count: n), Array(repeating: 0, count: n))
        (xs, ys) = (Array(repeating: 0, count: n), Array(repeating: 0, count: n))
        codes.withUnsafeMutableBufferPointer { codes in
            ordinals.withUnsafeMutableBufferPointer { ordinals in
                xs.withUnsafeMutableBufferPointer { xs in
                    ys.withUnsafeMutableBufferPointer { ys in
                        rankHighs.withUnsafeMutableBufferPointer { rankHighs in
                            for (e, member) in members.enumerated() {
                                let k = place(e)
                                (codes[k], ordinals[k], xs[k], ys[k]) = (member.code, member.ordinal, member.x, member.y)
                                rankHighs[k] = Self.rankHigh(member.rank)
                            }
                        }
                    }
                }
            }
        }
        summarizeRun()
    }

    @inline(__always) private static func rankHigh(_ rank: UInt64) -> UInt16 {
        rank == Rank.removed ? .max : UInt16(rank >> 32)
    }

    /// The directory, the summaries and no writes pending, for a run just made.
    private func summarizeRun() {
        let n = codes.count
        directory = []
        if n >= Self.directoryThreshold {
            directory = [UInt32](repeating: UInt32(n), count: (1 << 16) + 1)
            var bucket = 0
            for (i, code) in codes.enumerated() {
                let top = Int(code >> Self.directoryShift)
                while bucket <= top { directory[bucket] = UInt32(i); bucket += 1 }
            }
        }
        blocks = (0..<(n + Self.blockSize - 1) / Self.blockSize).map(blockSummary)
        superblocks = (0..<(n + Self.superblockSize - 1) / Self.superblockSize).map(superblockSummary)
        added = []
        removed = []
        // A new partition gets its columns' summaries when they are added (``addColumn(_:)``).
        rebuiltSinceSync = !columnBlocks.isEmpty
    }

    private func blockSummary(_ b: Int) -> Summary {
        var summary = Summary()
        for i in b * Self.blockSize..<min((b + 1) * Self.blockSize, codes.count) where !isRemoved(i) {
            summary.add(x: xs[i], y: ys[i], rank: rank(at: i))
        }
        return summary
    }

    private func superblockSummary(_ s: Int) -> Summary {
        let perSuper = Self.superblockSize / Self.blockSize
        var summary = Summary()
        for b in s * perSuper..<min((s + 1) * perSuper, blocks.count) { summary.add(blocks[b]) }
        return summary
    }

    private func resummarize(around position: Int) {
        blocks[position / Self.blockSize] = blockSummary(position / Self.blockSize)
        superblocks[position / Self.superblockSize] = superblockSummary(position / Self.superblockSize)
        if !columnBlocks.isEmpty { staleBlocks.append(position / Self.blockSize) }
    }

    // MARK: Property columns

    /// Adds the summaries of `column` (its values by ordinal current).
    func addColumn(_ column: PropertyColumn) {
        columnBlocks.append(ColumnBlocks(column: column))
        summarize(column: columnBlocks.count - 1)
    }

    func removeColumn(_ column: PropertyColumn) {
        columnBlocks.removeAll { $0.column === column }
    }

    /// Brings the columns' summaries up to the main run after writes: the whole run after a merge,
    /// else the blocks whose members were removed. Called once the columns' values are current
    /// (the end of a batch), so a merge in the middle of one never leaves a summary of old values.
    func syncColumns() {
        defer { (staleBlocks, rebuiltSinceSync) = ([], false) }
        guard !columnBlocks.isEmpty else { return }
        if rebuiltSinceSync {
            for c in columnBlocks.indices { summarize(column: c) }
            return
        }
        for c in columnBlocks.indices {
            let values = columnBlocks[c].values
            resummarize(&columnBlocks[c].stats, values, blocks: staleBlocks)
            resummarize(&columnBlocks[c].weights, values, blocks: staleBlocks)
            makeEdges(c, blocks: staleBlocks)
        }
    }

    private func summarize(column c: Int) {
        let byOrdinal = columnBlocks[c].column.byOrdinal
        let values = ordinals.map { byOrdinal[Int($0)] }
        columnBlocks[c].values = values
        let all = Array(0..<(codes.count + Self.blockSize - 1) / Self.blockSize)
        columnBlocks[c].stats = Levels()
        columnBlocks[c].weights = Levels()
        resummarize(&columnBlocks[c].stats, values, blocks: all)
        resummarize(&columnBlocks[c].weights, values, blocks: all)
        columnBlocks[c].edges = BlockEdges(count: values.count)
        makeEdges(c, blocks: all)
    }

    /// Recomputes the ``BlockEdges`` of column `c` in `blocks`.
    private func makeEdges(_ c: Int, blocks: [Int]) {
        let n = codes.count
        var edges = BlockEdges()
        swap(&edges, &columnBlocks[c].edges)  // made in place, not copied
        columnBlocks[c].values.withUnsafeBufferPointer { values in
            for b in blocks { edges.make(b * Self.blockSize..<min((b + 1) * Self.blockSize, n), values: values, isRemoved: isRemoved) }
        }
        columnBlocks[c].edges = edges
    }

    /// Members per middle summary of a column (``Levels``).
    static let midSize = 512

    /// Recomputes `blocks` of `levels` (all of them when its arrays are empty) and the middle
    /// summaries and superblocks above them.
    private func resummarize<Summary: ColumnSummary>(_ levels: inout Levels<Summary>, _ values: [Double], blocks: [Int]) {
        let n = codes.count
        if levels.blocks.isEmpty {
            levels.blocks = [Summary](repeating: Summary(), count: (n + Self.blockSize - 1) / Self.blockSize)
            levels.mids = [Summary](repeating: Summary(), count: (n + Self.midSize - 1) / Self.midSize)
            levels.superblocks = [Summary](repeating: Summary(), count: (n + Self.superblockSize - 1) / Self.superblockSize)
        }
        for b in blocks {
            var summary = Summary()
            for i in b * Self.blockSize..<min((b + 1) * Self.blockSize, n) where !isRemoved(i) { summary.add(values[i], x: xs[i], y: ys[i]) }
            levels.blocks[b] = summary
        }
        func gather(_ parts: [Summary], _ whole: Int, _ part: Int, into summaries: inout [Summary], at indices: Set<Int>) {
            let per = whole / part
            for w in indices {
                var summary = Summary()
                for p in w * per..<min((w + 1) * per, parts.count) { summary.add(parts[p]) }
                summaries[w] = summary
            }
        }
        let mids = Set(blocks.map { $0 * Self.blockSize / Self.midSize })
        gather(levels.blocks, Self.midSize, Self.blockSize, into: &levels.mids, at: mids)
        gather(levels.mids, Self.superblockSize, Self.midSize, into: &levels.superblocks, at: Set(mids.map { $0 * Self.midSize / Self.superblockSize }))
    }

    /// Adds to `stats[k]` the aggregates of the column at `positions[k]` of ``columnBlocks`` over
    /// the members with codes in `range` (a cell) of display priority ≥ the one `rankLimit`
    /// encodes; `main` is the cell's positions in the main run when the walk found them already.
    func addStats(_ positions: ColumnPlaces, in range: @autoclosure () -> ClosedRange<UInt64>, main: Range<Int>?, rankLimit: UInt64?, to stats: UnsafeMutablePointer<ValueStats>) {
        let (i, j) = main.map { ($0.lowerBound, $0.upperBound) } ?? mainBounds(range())
        let additions: ArraySlice<Member> = added.isEmpty ? [] : Self.slice(added, range())
        for k in 0..<positions.count {
            let c = positions[k]
            let main: ValueStats = columnBlocks[c].values.withUnsafeBufferPointer { values in
                columnBlocks[c].edges.from.withUnsafeBufferPointer { from in
                    columnBlocks[c].edges.through.withUnsafeBufferPointer { through in
                        columnBlocks[c].stats.withBuffers { (levels: LevelBuffers<ValueStats>) -> ValueStats in
                            rankLimit == nil ? edgeStats(values, from, through, levels, i, j) : fold(values, levels, i, j, rankLimit)
                        }
                    }
                }
            }
            stats[k].add(main)
            addAdditions(additions, column: c, rankLimit: rankLimit, to: &stats[k])
        }
    }

    /// A cell's place in an answer's ``AggregateTable`` and its positions in the main run.
    struct TableSpan {
        var row: Int32
        var first: Int32
        var end: Int32
    }

    /// Adds to each span's row of `table` the aggregates of the columns at `positions` over its
    /// positions (the partition has no additions, every member counts): a column at a time, its
    /// arrays opened once for all the cells. Nothing in the loop over the cells retains or
    /// releases, so their edges' cache misses overlap (a retain is a locked instruction, which
    /// waits for every load before it).
    func addStats(_ positions: ColumnPlaces, spans: UnsafeBufferPointer<TableSpan>, to table: AggregateTable) {
        precondition(added.isEmpty, "a cell with additions adds them (addStats(_:in:main:rankLimit:to:))")
        let width = positions.count
        table.withUnsafeMutablePointerToElements { rows in
            for k in 0..<width {
                let c = positions[k]
                columnBlocks[c].values.withUnsafeBufferPointer { values in
                    columnBlocks[c].edges.from.withUnsafeBufferPointer { from in
                        columnBlocks[c].edges.through.withUnsafeBufferPointer { through in
                            // The ends of every cell first: a short loop of independent reads,
                            // whose misses overlap; then the levels between (mostly cached).
                            for span in spans { rows[Int(span.row) * width + k].add(edgeEnds(values, from, through, Int(span.first), Int(span.end))) }
                            columnBlocks[c].stats.withBuffers { (levels: LevelBuffers<ValueStats>) in
                                for span in spans { rows[Int(span.row) * width + k].add(edgeMiddle(levels, Int(span.first), Int(span.end))) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The weight sums of the column at `place` of ``columnBlocks`` over the members with codes in `range` (a cell).
    func weights(at place: Int, in range: ClosedRange<UInt64>, main: Range<Int>? = nil, rankLimit: UInt64?) -> WeightSums {
        let (i, j) = main.map { ($0.lowerBound, $0.upperBound) } ?? mainBounds(range)
        var sums: WeightSums = columnBlocks[place].values.withUnsafeBufferPointer { values in
            columnBlocks[place].weights.withBuffers { (levels: LevelBuffers<WeightSums>) -> WeightSums in fold(values, levels, i, j, rankLimit) }
        }
        if !added.isEmpty { addAdditions(Self.slice(added, range), column: place, rankLimit: rankLimit, to: &sums) }
        return sums
    }

    /// Adds the values of column `c` of the members written since the main run was built (`additions`,
    /// a cell's) of display priority ≥ the one `rankLimit` encodes.
    @inline(__always)
    private func addAdditions<Summary: ColumnSummary>(_ additions: ArraySlice<Member>, column c: Int, rankLimit: UInt64?, to summary: inout Summary) {
        guard !additions.isEmpty else { return }
        let byOrdinal = column(c).byOrdinal
        for member in additions where member.rank < (rankLimit ?? Rank.removed) {
            summary.add(byOrdinal[Int(member.ordinal)], x: member.x, y: member.y)
        }
    }

    /// The aggregates of a column over the main run's members in [i, j): the partial blocks at
    /// either end from their ``BlockEdges`` (a cell inside one block that touches neither of its
    /// ends from its members), whole blocks between from `level`'s summaries.
    @inline(__always)
    private func edgeStats(
        _ values: UnsafeBufferPointer<Double>, _ from: UnsafeBufferPointer<ValueStats>, _ through: UnsafeBufferPointer<ValueStats>,
        _ level: LevelBuffers<ValueStats>, _ i: Int, _ j: Int
    ) -> ValueStats {
        var stats = edgeEnds(values, from, through, i, j)
        stats.add(edgeMiddle(level, i, j))
        return stats
    }

    /// ``edgeStats`` but for the whole blocks between the ends: the ends' edges (two reads from
    /// arrays of a million, each a likely cache miss), or the whole range when it lies in one block.
    @inline(__always)
    private func edgeEnds(_ values: UnsafeBufferPointer<Double>, _ from: UnsafeBufferPointer<ValueStats>, _ through: UnsafeBufferPointer<ValueStats>, _ i: Int, _ j: Int) -> ValueStats {
        guard i < j else { return ValueStats() }
        let size = Self.blockSize
        let first = i / size * size
        guard first == (j - 1) / size * size else {
            var ends = from[i]
            ends.add(through[j - 1])
            return ends
        }
        if j == min(first + size, codes.count) { return from[i] }
        if i == first { return through[j - 1] }
        var summary = ValueStats()
        if removed.isEmpty {
            summary.add(run: i..<j, values: values, xs: values, ys: values)
        } else {
            for p in i..<j where !isRemoved(p) { summary.add(values[p], x: 0, y: 0) }
        }
        return summary
    }

    /// ``edgeStats`` of the whole blocks between [i, j)'s first and last (none when they are one):
    /// from both ends up the levels into separate sums, so the two chains of additions wait for
    /// each other only once.
    @inline(__always)
    private func edgeMiddle(_ level: LevelBuffers<ValueStats>, _ i: Int, _ j: Int) -> ValueStats {
        let size = Self.blockSize
        guard i < j else { return ValueStats() }
        var (k, m) = (i / size * size + size, (j - 1) / size * size)
        var left = ValueStats(), right = ValueStats()
        while k < m, k % Self.midSize != 0 { left.add(level.blocks[k / size]); k += size }
        while k < m, m % Self.midSize != 0 { m -= size; right.add(level.blocks[m / size]) }
        while k < m, k % Self.superblockSize != 0 { left.add(level.mids[k / Self.midSize]); k += Self.midSize }
        while k < m, m % Self.superblockSize != 0 { m -= Self.midSize; right.add(level.mids[m / Self.midSize]) }
        var middle = ValueStats()
        while k < m { middle.add(level.superblocks[k / Self.superblockSize]); k += Self.superblockSize }
        left.add(middle)
        left.add(right)
        return left
    }

    /// A summary of a column over the main run's members in [i, j), of display priority ≥ the
    /// one `rankLimit` encodes: whole blocks from `level`'s summaries, the members of at most two
    /// partial blocks (their values in main-run order, read in sequence).
    @inline(__always)
    private func fold<Summary: ColumnSummary>(_ values: UnsafeBufferPointer<Double>, _ level: LevelBuffers<Summary>, _ i: Int, _ j: Int, _ rankLimit: UInt64?) -> Summary {
        var summary = Summary()
        xs.withUnsafeBufferPointer { xs in
            ys.withUnsafeBufferPointer { ys in
                if let rankLimit {
                    for p in i..<j where rank(at: p) < rankLimit { summary.add(values[p], x: xs[p], y: ys[p]) }
                    return
                }
                // The members of partial blocks: as one run when none is removed (the common case).
                func members(_ run: Range<Int>) {
                    if removed.isEmpty {
                        summary.add(run: run, values: values, xs: xs, ys: ys)
                    } else {
                        for k in run where !isRemoved(k) { summary.add(values[k], x: xs[k], y: ys[k]) }
                    }
                }
                var k = min(j, (i + Self.blockSize - 1) / Self.blockSize * Self.blockSize)
                members(i..<k)
                while k + Self.blockSize <= j, k % Self.midSize != 0 { summary.add(level.blocks[k / Self.blockSize]); k += Self.blockSize }
                while k + Self.midSize <= j, k % Self.superblockSize != 0 { summary.add(level.mids[k / Self.midSize]); k += Self.midSize }
                while k + Self.superblockSize <= j { summary.add(level.superblocks[k / Self.superblockSize]); k += Self.superblockSize }
                while k + Self.midSize <= j { summary.add(level.mids[k / Self.midSize]); k += Self.midSize }
                while k + Self.blockSize <= j { summary.add(level.blocks[k / Self.blockSize]); k += Self.blockSize }
                members(k..<j)
            }
        }
        return summary
    }

    private func column(_ c: Int) -> PropertyColumn { columnBlocks[c].column }

    // MARK: Reads

    /// Appends the cells of `columns` × `rows` (cell coordinates at `level`) that hold members
    /// (a cell whose members are all removed may come too: its aggregate is empty), in Morton
    /// order, found by walking the codes (``ZOrder/walk``) rather than visiting every cell.
    func cells(level: Int, columns: ClosedRange<Int>, rows: ClosedRange<Int>, into spans: inout [CellSpan]) {
        let start = spans.count
        codes.withUnsafeBufferPointer { codes in
            ZOrder.walk(level: level, columns: columns, rows: rows, count: codes.count, code: { codes[$0] },
                        firstAtLeast: { code, from in firstPosition(atLeast: code, from: from) }) { cell, i, j in
                spans.append(CellSpan(cell: cell, main: i..<j, added: 0..<0))
            }
        }
        guard !added.isEmpty else { return }
        // Rare beside the main run: merge the additions' cells into the main run's.
        var extra: [CellSpan] = []
        let added = self.added
        ZOrder.walk(level: level, columns: columns, rows: rows, count: added.count, code: { added[$0].code },
                    firstAtLeast: { code, from in added.partitioningIndex(in: from..<added.count) { $0.code >= code } }) { cell, i, j in
            extra.append(CellSpan(cell: cell, main: 0..<0, added: i..<j))
        }
        guard !extra.isEmpty else { return }
        var merged: [CellSpan] = []
        merged.reserveCapacity(spans.count - start + extra.count)
        var m = start, e = 0
        while m < spans.count || e < extra.count {
            if e == extra.count || (m < spans.count && spans[m].cell < extra[e].cell) {
                merged.append(spans[m]); m += 1
            } else if m == spans.count || extra[e].cell < spans[m].cell {
                merged.append(extra[e]); e += 1
            } else {
                merged.append(CellSpan(cell: spans[m].cell, main: spans[m].main, added: extra[e].added)); m += 1; e += 1
            }
        }
        spans.replaceSubrange(start..., with: merged)
    }

    /// Calls `body` with each cell of `columns` × `rows` holding members of the main run and their
    /// aggregate (empty for a cell of removed members only), in Morton order: the walk of
    /// ``cells(level:columns:rows:into:)`` without its list, for a partition with no additions.
    func forEachCell(level: Int, columns: ClosedRange<Int>, rows: ClosedRange<Int>, _ body: (UInt64, Aggregate, Range<Int>) -> Void) {
        precondition(added.isEmpty, "additions are merged by cells(level:columns:rows:into:)")
        codes.withUnsafeBufferPointer { codes in
            ZOrder.walk(level: level, columns: columns, rows: rows, count: codes.count, code: { codes[$0] },
                        firstAtLeast: { code, from in firstPosition(atLeast: code, from: from) }) { cell, i, j in
                body(cell, mainAggregate(i, j), i..<j)
            }
        }
    }

    /// Whether every member is in the main run (no writes since the last merge).
    var hasNoAdditions: Bool { added.isEmpty }

    /// The members of one cell ``cells(level:columns:rows:into:)`` found, of display priority ≥
    /// the one `rankLimit` encodes.
    func aggregate(_ span: CellSpan, rankLimit: UInt64?) -> Aggregate {
        var result = Aggregate()
        let (i, j) = (span.main.lowerBound, span.main.upperBound)
        if i < j {
            if let rankLimit {
                for p in i..<j where rank(at: p) < rankLimit { result.add(member(at: p)) }
            } else {
                result.add(mainAggregate(i, j))
            }
        }
        for member in added[span.added] where member.rank < (rankLimit ?? Rank.removed) {
            result.add(member)
        }
        return result
    }


    /// The members with codes in `range` (a cell), of display priority ≥ the one `rankLimit` encodes.
    func aggregate(_ range: ClosedRange<UInt64>, rankLimit: UInt64? = nil) -> Aggregate {
        let (i, j) = mainBounds(range)
        return aggregate(CellSpan(cell: 0, main: i..<j, added: Self.slice(added, range).indices), rankLimit: rankLimit)
    }

    /// Members in `range` ordered by (code, ordinal), from the first at or after (`code`, `ordinal`), at most `limit`.
    func members(in range: ClosedRange<UInt64>, from start: (code: UInt64, ordinal: UInt32) = (0, 0),
                 rankLimit: UInt64? = nil, limit: Int = .max) -> [Member] {
        var result: [Member] = []
        let limitRank = rankLimit ?? Rank.removed
        var (p, j) = mainBounds(range)
        p = max(p, mainPosition(code: start.code, ordinal: start.ordinal))
        let addedSlice = Self.slice(added, range)
        var a = max(addedSlice.startIndex, Self.lowerBound(added, start.code, start.ordinal))
        while result.count < limit {
            while p < j, rank(at: p) >= limitRank { p += 1 }
            while a < addedSlice.endIndex, added[a].rank >= limitRank { a += 1 }
            let haveMain = p < j, haveAdded = a < addedSlice.endIndex
            if haveMain && (!haveAdded || !added[a].precedes(codes[p], ordinals[p])) {
                result.append(member(at: p)); p += 1
            } else if haveAdded {
                result.append(added[a]); a += 1
            } else {
                break
            }
        }
        return result
    }

    /// The members of one cell ``cells(level:columns:rows:into:)`` found, of display priority ≥
    /// the one `rankLimit` encodes, in no particular order.
    func members(of span: CellSpan, rankLimit: UInt64?, into list: inout [Member]) {
        let limit = rankLimit ?? Rank.removed
        for p in span.main where rank(at: p) < limit { list.append(member(at: p)) }
        for member in added[span.added] where member.rank < limit { list.append(member) }
    }

    private func member(at p: Int) -> Member {
        Member(code: codes[p], ordinal: ordinals[p], x: xs[p], y: ys[p], rank: rank(at: p))
    }

    /// The rank of the main run's member at `p` (``Rank/removed`` once removed).
    @inline(__always) private func rank(at p: Int) -> UInt64 {
        let high = rankHighs[p]
        return high == .max ? Rank.removed : UInt64(high) << 32 | UInt64(ordinals[p])
    }

    @inline(__always) private func isRemoved(_ p: Int) -> Bool { rankHighs[p] == .max }

    /// The main run's members in [i, j), less removals.
    private func mainAggregate(_ i: Int, _ j: Int) -> Aggregate {
        if j == i + 1, removed.isEmpty {
            // A cell of one member, as most are in a close view.
            return Aggregate(member(at: i))
        }
        var result = Aggregate()
        // The summaries leave removed members out; only the count must step over them.
        result.summary = rangeSummary(i, j)
        let removedHere = Self.slice(removed, codes[i]...codes[j - 1]).count
        result.count = j - i - removedHere
        guard result.count > 0 else { return Aggregate() }
        if removedHere > 0 {
            // Rare: the first or last may be a removed one; step over the marks.
            var f = i; while isRemoved(f) { f += 1 }
            var l = j - 1; while isRemoved(l) { l -= 1 }
            result.first = (codes[f], ordinals[f]); result.last = (codes[l], ordinals[l])
        } else {
            result.first = (codes[i], ordinals[i]); result.last = (codes[j - 1], ordinals[j - 1])
        }
        return result
    }

    private func rangeSummary(_ i: Int, _ j: Int) -> Summary {
        var summary = Summary()
        var k = i
        while k < j, k % Self.blockSize != 0 {
            if !isRemoved(k) { summary.add(x: xs[k], y: ys[k], rank: rank(at: k)) }
            k += 1
        }
        while k + Self.blockSize <= j, k % Self.superblockSize != 0 { summary.add(blocks[k / Self.blockSize]); k += Self.blockSize }
        while k + Self.superblockSize <= j { summary.add(superblocks[k / Self.superblockSize]); k += Self.superblockSize }
        while k + Self.blockSize <= j { summary.add(blocks[k / Self.blockSize]); k += Self.blockSize }
        while k < j {
            if !isRemoved(k) { summary.add(x: xs[k], y: ys[k], rank: rank(at: k)) }
            k += 1
        }
        return summary
    }

    // MARK: Searching

    /// [i, j) of the main run's codes inside `range`.
    private func mainBounds(_ range: ClosedRange<UInt64>) -> (Int, Int) {
        let i = firstPosition(atLeast: range.lowerBound)
        let j = range.upperBound == .max ? codes.count : max(i, firstPosition(atLeast: range.upperBound + 1))
        return (i, j)
    }

    /// The first position whose code is ≥ `code`.
    private func firstPosition(atLeast code: UInt64, from: Int = 0) -> Int {
        codes.withUnsafeBufferPointer { codes in
            var lo = from, hi = codes.count
            guard lo < hi, codes[lo] < code else { return lo }
            if !directory.isEmpty {
                let bucket = Int(min(code >> Self.directoryShift, 1 << 16))
                lo = max(lo, Int(directory[bucket]))
                hi = max(lo, bucket < 1 << 16 ? Int(directory[bucket + 1]) : codes.count)
            } else {
                // Galloping from `from`: the next cell of a walk mostly starts a few codes on.
                var step = 1
                while lo + step < hi, codes[lo + step] < code { lo += step; step <<= 1 }
                hi = min(hi, lo + step + 1)
            }
            return codes.partitioningIndex(in: lo..<hi) { $0 >= code }
        }
    }

    private func mainPosition(code: UInt64, ordinal: UInt32) -> Int {
        let i = firstPosition(atLeast: code)
        let end = code == .max ? codes.count : max(i, firstPosition(atLeast: code + 1))
        return ordinals.partitioningIndex(in: i..<end) { $0 >= ordinal }
    }

    private static func lowerBound(_ members: [Member], _ code: UInt64, _ ordinal: UInt32) -> Int {
        members.partitioningIndex { !$0.precedes(code, ordinal) }
    }

    private static func slice(_ members: [Member], _ range: ClosedRange<UInt64>) -> ArraySlice<Member> {
        guard !members.isEmpty else { return [] }
        let i = lowerBound(members, range.lowerBound, 0)
        let j = range.upperBound == .max ? members.count : lowerBound(members, range.upperBound + 1, 0)
        return members[i..<j]
    }
}
