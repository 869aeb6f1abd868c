public import Annotations
public import MapGeometry
public import Timeline

extension ThinningIndex {
    /// The items of every grid cell `rect` touches: required annotations each by themselves,
    /// then per cell and clustering identifier one annotation or one cluster. At most `limit`
    /// items: required annotations first, then by count (higher priority, then older, first).
    ///
    /// With `options`, clusters carry the aggregates and weights it names (their columns must be
    /// held: ``MissingColumn`` otherwise), and past its `maxZoom` every annotation is an item.
    public func thin(
        _ rect: MapRect, grid: ThinningGrid, filter: ThinningFilter = ThinningFilter(), options: ThinningOptions, limit: Int = .max
    ) throws(MissingColumn) -> ThinningResult {
        try lock.reading { () throws(MissingColumn) -> ThinningResult in
            thin(rect, grid, filter, options, try PropertyReading(self, options), limit)
        }
    }

    /// ``thin(_:grid:filter:options:limit:)`` with no options.
    public func thin(_ rect: MapRect, grid: ThinningGrid, filter: ThinningFilter = ThinningFilter(), limit: Int = .max) -> ThinningResult {
        reading { thin(rect, grid, filter, ThinningOptions(), PropertyReading(), limit) }
    }

    private func thin(_ rect: MapRect, _ grid: ThinningGrid, _ filter: ThinningFilter, _ options: ThinningOptions, _ reading: PropertyReading, _ limit: Int) -> ThinningResult {
        let groups = selectedGroups(filter, only: nil, matchGroup: false)
        let rankLimit = filter.minDisplayPriority.map(Rank.limit(minimumPriority:))
        if let maxZoom = options.maxZoom, grid.zoom > maxZoom {
            return unclustered(rect, grid: grid, groups: groups, rankLimit: rankLimit, limit: limit)
        }
        var answer = Answer(grid: grid, filter: filter, options: options, groups: groups, reading: reading, rankLimit: rankLimit)
        var spans: [CellSpan] = []
        var tagged: [(partition: Int, span: CellSpan)] = []
        // Only the occupied cells are visited, each partition's found by walking its codes.
        for area in grid.areas(touching: rect) {
            for (g, group) in groups.enumerated() {
                for partition in group.required {
                    spans.removeAll(keepingCapacity: true)
                    partition.cells(level: grid.level, columns: area.columns, rows: area.rows, into: &spans)
                    for span in spans {
                        let range = grid.codes(column: ZOrder.column(of: span.cell), row: ZOrder.row(of: span.cell))
                        for member in partition.members(in: range, rankLimit: rankLimit) { answer.required.append((member.rank, annotationItem(member))) }
                    }
                }
                if group.clustered.count == 1, let partition = group.clustered.first?.partition, partition.hasNoAdditions, rankLimit == nil {
                    partition.forEachCell(level: grid.level, columns: area.columns, rows: area.rows) { cell, total, main in
                        if total.count > 0 { answer.cells.append(PendingCell(cell: cell, total: total, group: Int32(g), kinds: -1, main: main)) }
                    }
                    continue
                }
                if group.clustered.count == 1, let partition = group.clustered.first?.partition {
                    spans.removeAll(keepingCapacity: true)
                    partition.cells(level: grid.level, columns: area.columns, rows: area.rows, into: &spans)
                    for span in spans {
                        let total = partition.aggregate(span, rankLimit: rankLimit)
                        if total.count > 0 { answer.cells.append(PendingCell(cell: span.cell, total: total, group: Int32(g), kinds: -1, main: span.main)) }
                    }
                    continue
                }
                // Several kinds in the group: their cells merged, each cell's kinds counted.
                tagged.removeAll(keepingCapacity: true)
                for (p, (partition, _)) in group.clustered.enumerated() {
                    spans.removeAll(keepingCapacity: true)
                    partition.cells(level: grid.level, columns: area.columns, rows: area.rows, into: &spans)
                    tagged += spans.map { (p, $0) }
                }
                tagged.sort { ($0.span.cell, $0.partition) < ($1.span.cell, $1.partition) }
                var k = 0
                while k < tagged.count {
                    let cell = tagged[k].span.cell
                    var total = Aggregate()
                    var kindCounts: [String: Int] = [:]
                    while k < tagged.count, tagged[k].span.cell == cell {
                        let (partition, kind) = group.clustered[tagged[k].partition]
                        let part = partition.aggregate(tagged[k].span, rankLimit: rankLimit)
                        if part.count > 0 {
                            total.add(part)
                            if let kind { kindCounts[kind, default: 0] += part.count }
                        }
                        k += 1
                    }
                    if total.count > 0 {
                        answer.cells.append(PendingCell(cell: cell, total: total, group: Int32(g), kinds: Int32(answer.kindCounts.count), main: nil))
                        answer.kindCounts.append(KindCounts(kindCounts))
                    }
                }
            }
        }
        return result(answer, limit: limit)
    }

    /// A thin answer as it is gathered: required annotations, and each other cell's members
    /// (made into items only once they are in order, so no item is moved or made in vain).
    private struct Answer {
        let grid: ThinningGrid
        let groups: [PartitionGroup]
        var required: [(rank: UInt64, item: ThinnedItem)] = []
        var cells: [PendingCell] = []
        /// The kind counts of cells whose group has several kinds (``PendingCell/kinds``).
        var kindCounts: [KindCounts] = []

        /// Per group, what its clusters' ids carry besides their place (one instance for them all).
        let scopes: [ClusterID.Scope?]
        /// The columns the clusters' weights and aggregates come from.
        let reading: PropertyReading
        let rankLimit: UInt64?

        init(grid: ThinningGrid, filter: ThinningFilter, options: ThinningOptions, groups: [PartitionGroup], reading: PropertyReading, rankLimit: UInt64?) {
            (self.grid, self.groups, self.reading, self.rankLimit) = (grid, groups, reading, rankLimit)
            scopes = groups.map {
                ClusterID.Scope.make(ClusterID.Scope.Fields(
                    clusteringIdentifier: $0.identifier, kinds: filter.kinds, minDisplayPriority: filter.minDisplayPriority, filter: filter.matching,
                    maxZoom: options.maxZoom, weight: options.weight))
            }
            cells.reserveCapacity(256)
        }

        /// Which of ``cells`` come, in order: by count (descending), then by rank.
        func order() -> [PackedKey] {
            var keys: [PackedKey] = []
            keys.reserveCapacity(cells.count)
            if cells.allSatisfy({ $0.total.count < 1 << 22 }) {
                // Packed keys when every count fits 22 bits (above the rank's 42, ``Rank/bits``): one integer compare each.
                for (i, cell) in cells.enumerated() {
                    keys.append(PackedKey(key: UInt64((1 << 22) - 1 - cell.total.count) << 42 | cell.total.summary.best, index: Int32(i)))
                }
                keys.withUnsafeMutableBufferPointer { PackedKey.sort($0) }
            } else {
                let sorted = cells.indices.sorted { a, b in
                    let (x, y) = (cells[a].total, cells[b].total)
                    return x.count != y.count ? x.count > y.count : x.summary.best < y.summary.best
                }
                for (place, i) in sorted.enumerated() { keys.append(PackedKey(key: UInt64(place), index: Int32(i))) }
            }
            return keys
        }
    }

    /// One occupied cell of a group, before it becomes an item.
    private struct PendingCell {
        var cell: UInt64
        var total: Aggregate
        /// Its group in ``Answer/groups``.
        var group: Int32
        /// Its kinds in ``Answer/kindCounts``; -1 when the group has one partition (its kind, if any, has every member).
        var kinds: Int32
        /// Its positions in that one partition's main run, as the walk found them (-1: several partitions).
        var first: Int32
        var end: Int32

        init(cell: UInt64, total: Aggregate, group: Int32, kinds: Int32, main: Range<Int>?) {
            (self.cell, self.total, self.group, self.kinds) = (cell, total, group, kinds)
            (first, end) = main.map { (Int32($0.lowerBound), Int32($0.upperBound)) } ?? (-1, -1)
        }

        var main: Range<Int>? { first >= 0 ? Int(first)..<Int(end) : nil }
    }

    /// A sort key and the cell it orders.
    private struct PackedKey {
        var key: UInt64
        var index: Int32

        /// Sorts `keys` in place (the keys are distinct): quicksort on the middle element, insertion
        /// sort below 16; no buffer and no closure, which the standard library's stable sort needs.
        static func sort(_ keys: UnsafeMutableBufferPointer<PackedKey>) {
            var low = 0, high = keys.count - 1
            while high - low >= 16 {
                let pivot = keys[low + (high - low) / 2].key
                var i = low, j = high
                while i <= j {
                    while keys[i].key < pivot { i += 1 }
                    while keys[j].key > pivot { j -= 1 }
                    if i <= j { keys.swapAt(i, j); i += 1; j -= 1 }
                }
                // Recurse into the smaller side, loop on the larger: stack depth stays logarithmic.
                if j - low < high - i {
                    sort(UnsafeMutableBufferPointer(rebasing: keys[low...j]))
                    low = i
                } else {
                    sort(UnsafeMutableBufferPointer(rebasing: keys[i...high]))
                    high = j
                }
            }
            guard low < high else { return }
            for k in (low + 1)...high {
                let key = keys[k]
                var m = k
                while m > low, keys[m - 1].key > key.key { keys[m] = keys[m - 1]; m -= 1 }
                keys[m] = key
            }
        }
    }

    /// Required annotations by rank, then the other cells' items in ``Answer/order()``, at most `limit`.
    private func result(_ answer: Answer, limit: Int) -> ThinningResult {
        let required = answer.required
        var items: [ThinnedItem] = []
        items.reserveCapacity(min(limit, required.count + answer.cells.count))
        if !required.isEmpty {
            var order = required.indices.map { (rank: required[$0].rank, index: $0) }
            order.sort { $0.rank < $1.rank }
            for entry in order where items.count < limit { items.append(required[entry.index].item) }
        }
        let keys = answer.order()
        let table = answer.reading.names.flatMap { aggregate(answer, keys.prefix(max(0, limit - items.count)), names: $0) }
        var row = 0
        for key in keys {
            guard items.count < limit else { break }
            let pending = answer.cells[Int(key.index)]
            let total = pending.total
            if total.count == 1 {
                items.append(annotationItem(ordinal: total.first.ordinal, shifted: MapPoint(x: total.summary.minX, y: total.summary.minY)))
            } else {
                let group = answer.groups[Int(pending.group)]
                let id = ClusterID(grid: answer.grid, column: ZOrder.column(of: pending.cell), row: ZOrder.row(of: pending.cell), scope: answer.scopes[Int(pending.group)])
                let kinds = pending.kinds >= 0 ? answer.kindCounts[Int(pending.kinds)] : KindCounts(kind: group.clustered.first?.kind, count: total.count)
                let aggregates = table.map { AggregateRow(table: $0, row: row) }
                row += 1
                items.append(.cluster(cluster(id, total, kinds, answer.reading, aggregates, group.clustered, answer.rankLimit, main: pending.main)))
            }
        }
        return ThinningResult(grid: answer.grid, items: items, truncated: required.count + answer.cells.count > limit)
    }

    /// The aggregates of the clusters among `keys`' cells, a row each in their order, in one pass
    /// before the clusters are made: each cluster's reads depend on no other's, so the misses of
    /// several overlap (made one by one between the clusters' other work, they came one at a time).
    /// Nil when none of them is a cluster.
    private func aggregate(_ answer: Answer, _ keys: ArraySlice<PackedKey>, names: [String]) -> AggregateTable? {
        let rankLimit = answer.rankLimit
        var table: AggregateTable?
        // The cells of one group of one partition without additions (the first such group found;
        // most answers have only one): their columns read cell after cell at the end, nothing
        // retained per cell. The rest, cell by cell here.
        var direct: Int32?
        withUnsafeTemporaryAllocation(of: ThinningPartition.TableSpan.self, capacity: keys.count) { spans in
            var count = 0
            for key in keys {
                let pending = answer.cells[Int(key.index)]
                guard pending.total.count > 1 else { continue }
                if table == nil { table = AggregateTable.make(names: names, rows: keys.count) }
                let row = table!.addRow()
                // A cell's positions are known only in a group of one partition.
                if rankLimit == nil, let main = pending.main {
                    if direct == nil, answer.groups[Int(pending.group)].clustered[0].partition.hasNoAdditions { direct = pending.group }
                    if direct == pending.group {
                        (spans.baseAddress! + count).initialize(to: ThinningPartition.TableSpan(row: Int32(row), first: Int32(main.lowerBound), end: Int32(main.upperBound)))
                        count += 1
                        continue
                    }
                }
                let clustered = answer.groups[Int(pending.group)].clustered
                let main = clustered.count == 1 ? pending.main : nil
                let grid = answer.grid
                table?.withRow(row) { stats in
                    // The cell's codes only when its positions are not known, or it has additions.
                    addStats(answer.reading.positions, of: clustered, in: grid.codes(column: ZOrder.column(of: pending.cell), row: ZOrder.row(of: pending.cell)),
                             main: main, rankLimit: rankLimit, to: stats)
                }
            }
            if let table, let direct {
                answer.groups[Int(direct)].clustered[0].partition.addStats(answer.reading.positions, spans: UnsafeBufferPointer(rebasing: spans[..<count]), to: table)
            }
        }
        return table
    }

    /// Adds a cell's aggregates of the columns at `positions` over its partitions `clustered` to a table row.
    @inline(__always)
    private func addStats(
        _ positions: ColumnPlaces, of clustered: [(partition: ThinningPartition, kind: String?)], in range: @autoclosure () -> ClosedRange<UInt64>,
        main: Range<Int>?, rankLimit: UInt64?, to stats: UnsafeMutablePointer<ValueStats>
    ) {
        for (partition, _) in clustered { partition.addStats(positions, in: range(), main: main, rankLimit: rankLimit, to: stats) }
    }

    /// The cluster an id names, as it is now, with the aggregates of `aggregates`; nil when that
    /// place holds fewer than two members. Its weight, as its id names it, and the aggregates need
    /// their columns held (``MissingColumn`` otherwise).
    public func cluster(_ id: ClusterID, aggregates: [String] = []) throws(MissingColumn) -> ThinnedCluster? {
        try lock.reading { () throws(MissingColumn) -> ThinnedCluster? in
            let reading = try PropertyReading(self, ThinningOptions(weight: id.weight, aggregates: aggregates))
            let clustered = selectedGroups(filterOf(id), only: id.clusteringIdentifier, matchGroup: true).flatMap(\.clustered)
            let rankLimit = id.minDisplayPriority.map(Rank.limit(minimumPriority:))
            let range = id.grid.codes(column: id.column, row: id.row)
            let (total, kindCounts) = aggregate(clustered, range, rankLimit)
            guard total.count > 1 else { return nil }
            let aggregates = reading.names.map { names in
                let table = AggregateTable.make(names: names, rows: 1)
                table.withRow(table.addRow()) { stats in addStats(reading.positions, of: clustered, in: range, main: nil, rankLimit: rankLimit, to: stats) }
                return AggregateRow(table: table, row: 0)
            }
            return cluster(id, total, KindCounts(kindCounts), reading, aggregates, clustered, rankLimit)
        }
    }

    /// Every annotation `rect` touches as its own item (a zoom past the answer's `maxZoom`): by
    /// rank (required first, then higher priority, then older), at most `limit`, kept in a heap of
    /// the `limit` best so far (a wide view past a low `maxZoom` may hold every annotation).
    private func unclustered(_ rect: MapRect, grid: ThinningGrid, groups: [PartitionGroup], rankLimit: UInt64?, limit: Int) -> ThinningResult {
        /// Ordered worst first, so the heap's top is the one to drop.
        struct Kept: Comparable {
            var member: Member
            static func < (a: Kept, b: Kept) -> Bool { a.member.rank > b.member.rank }
            static func == (a: Kept, b: Kept) -> Bool { a.member.rank == b.member.rank }
        }
        var best = MinHeap<Kept>()
        var found = 0
        var spans: [CellSpan] = [], members: [Member] = []
        for area in grid.areas(touching: rect) {
            for group in groups {
                for partition in group.required + group.clustered.map(\.partition) {
                    spans.removeAll(keepingCapacity: true)
                    partition.cells(level: grid.level, columns: area.columns, rows: area.rows, into: &spans)
                    for span in spans {
                        members.removeAll(keepingCapacity: true)
                        partition.members(of: span, rankLimit: rankLimit, into: &members)
                        found += members.count
                        for member in members {
                            if best.count < limit {
                                best.push(Kept(member: member))
                            } else if let worst = best.first, member.rank < worst.member.rank {
                                best.pop()
                                best.push(Kept(member: member))
                            }
                        }
                    }
                }
            }
        }
        var kept: [Member] = []
        kept.reserveCapacity(best.count)
        while let next = best.pop() { kept.append(next.member) }
        return ThinningResult(grid: grid, items: kept.reversed().map(annotationItem), truncated: found > limit)
    }

    /// A page of the members of the cluster `id` names, in grid order, after `cursor`; nil when
    /// the cluster is gone. `next` is set when more follow.
    public func leaves(of id: ClusterID, after cursor: LeafCursor?, limit: Int) -> (ids: [AnnotationID], next: LeafCursor?)? {
        reading {
            guard members(of: id).total.count > 1 else { return nil }
            let range = id.grid.codes(column: id.column, row: id.row)
            let rankLimit = id.minDisplayPriority.map(Rank.limit(minimumPriority:))
            let start = cursor.map { (code: $0.code, ordinal: ordinalBound(after: $0.id)) } ?? (0, 0)
            var page: [Member] = []
            for (partition, _) in selectedGroups(filterOf(id), only: id.clusteringIdentifier, matchGroup: true).flatMap(\.clustered) {
                page += partition.members(in: range, from: start, rankLimit: rankLimit, limit: limit + 1)
            }
            page.sort { $0.precedes($1.code, $1.ordinal) }
            let more = page.count > limit
            let ids = page.prefix(limit).map { slotIDs[Int($0.ordinal)] }
            let next = more ? page[limit - 1] : nil
            return (ids, next.map { LeafCursor(code: $0.code, id: slotIDs[Int($0.ordinal)]) })
        }
    }

    // MARK: Inside the read lock

    /// The partitions the filter selects, by clustering identifier (sorted, nil first).
    func selectedGroups(_ filter: ThinningFilter, only identifier: String?, matchGroup: Bool) -> [PartitionGroup] {
        // The common case, no kinds or identifiers named: kept by the writes (``everyGroup``).
        if !matchGroup, filter.kinds == nil, filter.clusteringIdentifiers == nil { return everyGroup }
        return groups(filter, only: identifier, matchGroup: matchGroup)
    }

    /// ``selectedGroups(_:only:matchGroup:)`` made from the partitions' keys.
    func groups(_ filter: ThinningFilter, only identifier: String?, matchGroup: Bool) -> [PartitionGroup] {
        var groups: [String?: PartitionGroup] = [:]
        for (p, key) in keys.enumerated() {
            if matchGroup, key.group != identifier { continue }
            if let kinds = filter.kinds, !(key.kind.map(kinds.contains) ?? false) { continue }
            if let identifiers = filter.clusteringIdentifiers, !(key.group.map(identifiers.contains) ?? false) { continue }
            if key.required {
                groups[key.group, default: PartitionGroup(identifier: key.group)].required.append(partitions[p])
            } else {
                groups[key.group, default: PartitionGroup(identifier: key.group)].clustered.append((partitions[p], key.kind))
            }
        }
        return groups.values.sorted { ($0.identifier ?? "", $0.identifier == nil ? 0 : 1) < ($1.identifier ?? "", $1.identifier == nil ? 0 : 1) }
    }

    private func filterOf(_ id: ClusterID) -> ThinningFilter {
        ThinningFilter(kinds: id.kinds, clusteringIdentifiers: nil, minDisplayPriority: id.minDisplayPriority, matching: id.filter)
    }

    private func members(of id: ClusterID) -> (total: Aggregate, kindCounts: [String: Int]) {
        let clustered = selectedGroups(filterOf(id), only: id.clusteringIdentifier, matchGroup: true).flatMap(\.clustered)
        return aggregate(clustered, id.grid.codes(column: id.column, row: id.row), id.minDisplayPriority.map(Rank.limit(minimumPriority:)))
    }

    private func aggregate(_ clustered: [(partition: ThinningPartition, kind: String?)], _ range: ClosedRange<UInt64>, _ rankLimit: UInt64?) -> (Aggregate, [String: Int]) {
        var total = Aggregate()
        var kindCounts: [String: Int] = [:]
        for (partition, kind) in clustered {
            let part = partition.aggregate(range, rankLimit: rankLimit)
            guard part.count > 0 else { continue }
            total.add(part)
            if let kind { kindCounts[kind, default: 0] += part.count }
        }
        return (total, kindCounts)
    }

    private func cluster(
        _ id: ClusterID, _ total: Aggregate, _ kinds: KindCounts, _ reading: PropertyReading, _ aggregates: AggregateRow?,
        _ clustered: [(partition: ThinningPartition, kind: String?)], _ rankLimit: UInt64?, main: Range<Int>? = nil
    ) -> ThinnedCluster {
        let s = total.summary
        var (sumX, sumY, weight) = (s.sumX, s.sumY, Double(total.count))
        var divisor = Double(total.count)
        if let place = reading.weight {
            // Members without a weight weigh 1 (``WeightSums``); all weighing 0 leaves the plain mean.
            let range = id.grid.codes(column: id.column, row: id.row)
            let main = clustered.count == 1 ? main : nil
            var sums = WeightSums()
            for (partition, _) in clustered { sums.add(partition.weights(at: place, in: range, main: main, rankLimit: rankLimit)) }
            let total = sums.total
            let (x, y) = (sums.weightedX + sums.otherX, sums.weightedY + sums.otherY)
            // Weights beyond a double's range (or all 0) leave the plain mean.
            if total > 0, total.isFinite, x.isFinite, y.isFinite { (sumX, sumY, divisor) = (x, y, total) }
            weight = total
        }
        let centroid = ThinningGrid.unshifted(x: sumX / divisor, y: sumY / divisor)
        let corner = ThinningGrid.unshifted(x: s.minX, y: s.minY)
        let bounds = MapRect(origin: corner, size: MapSize(width: s.maxX - s.minX, height: s.maxY - s.minY))
        var expansionZoom: Int?
        let differing = total.first.code ^ total.last.code
        if differing != 0 {
            let zoom = id.grid.zoomSplitting(highestDifferingBit: 63 - differing.leadingZeroBitCount)
            expansionZoom = zoom <= ThinningGrid.zoomLevels.upperBound ? zoom : nil
        }
        // Past the last zoom that clusters, every member is its own item.
        if let maxZoom = id.maxZoom { expansionZoom = min(expansionZoom ?? maxZoom + 1, maxZoom + 1) }
        // A weight sum beyond a double's range is left out (JSON has no infinity).
        return ThinnedCluster(
            id: id, count: total.count, centroid: centroid, bounds: bounds, expansionZoom: expansionZoom,
            kinds: kinds, representative: slotIDs[Int(UInt32(truncatingIfNeeded: s.best))],
            weight: reading.weight != nil && weight.isFinite ? weight : nil, aggregateRow: aggregates)
    }

    /// A property a request names has no column here yet (``IndexFollower/prepareColumns(_:)`` builds it).
    public struct MissingColumn: Error {
        public var property: String
    }

    /// The columns an answer reads its weights and aggregates from, found once per answer.
    struct PropertyReading {
        /// The weight's column's place, as ``positions``' are.
        var weight: Int?
        /// The aggregated properties' names (nil for none) and their columns' places in each
        /// partition's ``ThinningPartition/columnBlocks`` (the index's ``ThinningIndex/columns`` order).
        var names: [String]?
        var positions = ColumnPlaces()

        init() {}

        init(_ index: ThinningIndex, _ options: ThinningOptions) throws(MissingColumn) {
            func place(_ name: String) throws(MissingColumn) -> Int {
                guard let place = index.columnPlace(name) else { throw MissingColumn(property: name) }
                return place
            }
            if let name = options.weight { weight = try place(name) }
            for name in options.aggregates { positions.append(try place(name)) }
            names = options.aggregates.isEmpty ? nil : options.aggregates
        }
    }

    private func annotationItem(_ member: Member) -> ThinnedItem {
        annotationItem(ordinal: member.ordinal, shifted: MapPoint(x: member.x, y: member.y))
    }

    private func annotationItem(ordinal: UInt32, shifted point: MapPoint) -> ThinnedItem {
        let unshifted = ThinningGrid.unshifted(x: point.x, y: point.y)
        return .annotation(slotIDs[Int(ordinal)], MapPoint(x: Mercator.wrapX(unshifted.x), y: unshifted.y))
    }

    /// The first ordinal whose id is greater than `id`.
    private func ordinalBound(after id: AnnotationID) -> UInt32 {
        UInt32(firstOrdinal { $0 > id })
    }
}
