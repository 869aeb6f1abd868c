import Synchronization

/// A summary of some members' values of one column, kept per block and added up per cell.
protocol ColumnSummary {
    init()
    /// Adds a member's value (NaN: it has none) at shifted point (x, y).
    mutating func add(_ value: Double, x: Double, y: Double)
    mutating func add(_ other: Self)
    /// Adds the members at `positions`, none of them removed.
    mutating func add(run positions: Range<Int>, values: UnsafeBufferPointer<Double>, xs: UnsafeBufferPointer<Double>, ys: UnsafeBufferPointer<Double>)
}

extension ColumnSummary {
    @inline(__always)
    mutating func add(run positions: Range<Int>, values: UnsafeBufferPointer<Double>, xs: UnsafeBufferPointer<Double>, ys: UnsafeBufferPointer<Double>) {
        for p in positions { add(values[p], x: xs[p], y: ys[p]) }
    }
}

/// The aggregates of some members' values: `count` of those that have one, their `sum`, `min` and `max`.
struct ValueStats: ColumnSummary {
    var count = 0
    var sum = 0.0
    var min = Double.infinity
    var max = -Double.infinity

    init() {}

    @inline(__always) init(count: Int, sum: Double, min: Double, max: Double) {
        (self.count, self.sum, self.min, self.max) = (count, sum, min, max)
    }

    /// The stats an aggregate says (a table row set by hand).
    init(aggregate: PropertyAggregate) {
        (count, sum, min, max) = (aggregate.count, aggregate.sum, aggregate.min ?? .infinity, aggregate.max ?? -.infinity)
    }

    @inline(__always) mutating func add(_ value: Double, x: Double, y: Double) {
        guard value == value else { return }  // NaN: no value
        count &+= 1
        sum += value
        min = value < min ? value : min
        max = value > max ? value : max
    }

    @inline(__always) mutating func add(_ other: ValueStats) {
        count &+= other.count
        sum += other.sum
        min = other.min < min ? other.min : min
        max = other.max > max ? other.max : max
    }

    /// Four independent lanes, so each value waits for no other (the run of a cell's partial
    /// block is most of an aggregate's cost); lanes add up in the order a single pass would not,
    /// so a sum may differ from one in the last bits.
    @inline(__always)
    mutating func add(run positions: Range<Int>, values: UnsafeBufferPointer<Double>, xs: UnsafeBufferPointer<Double>, ys: UnsafeBufferPointer<Double>) {
        var lanes = (ValueStats(), ValueStats(), ValueStats(), ValueStats())
        var p = positions.lowerBound
        while p + 4 <= positions.upperBound {
            lanes.0.add(values[p], x: 0, y: 0)
            lanes.1.add(values[p + 1], x: 0, y: 0)
            lanes.2.add(values[p + 2], x: 0, y: 0)
            lanes.3.add(values[p + 3], x: 0, y: 0)
            p += 4
        }
        while p < positions.upperBound { lanes.0.add(values[p], x: 0, y: 0); p += 1 }
        lanes.0.add(lanes.1)
        lanes.2.add(lanes.3)
        lanes.0.add(lanes.2)
        add(lanes.0)
    }
}

/// What some members' values add to their centroid as weights. A weight is the value when it is a
/// number ≥ 0; a member without one (absent, not a number, negative) weighs 1. Both kinds are
/// summed directly (Σw, Σw·x, Σw·y of the weighted; count, Σx, Σy of the others), not as a
/// difference from the plain sums, so tiny weights beside large coordinates lose nothing.
struct WeightSums: ColumnSummary {
    var weightSum = 0.0
    var weightedX = 0.0
    var weightedY = 0.0
    /// The members that weigh 1 for want of a weight.
    var others = 0
    var otherX = 0.0
    var otherY = 0.0

    init() {}

    /// Σw over all the members.
    var total: Double { weightSum + Double(others) }

    @inline(__always) mutating func add(_ value: Double, x: Double, y: Double) {
        if value >= 0 {
            weightSum += value
            weightedX += value * x
            weightedY += value * y
        } else {  // NaN and negatives weigh 1
            others &+= 1
            otherX += x
            otherY += y
        }
    }

    @inline(__always) mutating func add(_ other: WeightSums) {
        weightSum += other.weightSum
        weightedX += other.weightedX
        weightedY += other.weightedY
        others &+= other.others
        otherX += other.otherX
        otherY += other.otherY
    }
}

/// One numeric free property as the index keeps it: every slot's value (NaN when the annotation has
/// none), by ordinal, beside the slots' ids. Built on the first request that names the property,
/// then kept current by the writes (``ThinningEntry/numbers``).
final class PropertyColumn {
    let name: String
    @exclusivity(unchecked) var byOrdinal: [Double]
    /// The use clock's value when a request last read it (the least recently used goes first);
    /// set by readers side by side, so atomic.
    let used = Atomic<UInt64>(0)
    /// Answers holding it now (``ThinningIndex/hold(_:)``): it is not dropped meanwhile.
    let pins = Atomic<Int>(0)

    init(name: String, slots: Int) {
        self.name = name
        byOrdinal = Array(repeating: .nan, count: slots)
    }

    /// The value an entry's numbers give this property (NaN: none).
    func value(of entry: ThinningEntry) -> Double {
        entry.numbers?[name] ?? .nan
    }
}

/// A partition's values of one column in the order of its main run (read in sequence, as its x
/// and y are), and their aggregates and weight sums per 64, 512 and 4 096 members (``Levels``).
/// Members written since the main run was built read the column by ordinal.
struct ColumnBlocks {
    let column: PropertyColumn
    var values: [Double] = []
    var stats = Levels<ValueStats>()
    var weights = Levels<WeightSums>()
    /// Per member, its block's aggregates on either side of it: a cell's partial blocks cost one
    /// read each instead of a pass over their members.
    var edges = BlockEdges()
}

/// What each member's block holds of a column on either side of it (members without a value, and
/// removed ones, left out): the aggregates of the members from it to the block's end (``from``)
/// and from the block's start through it (``through``): 64 bytes a member, 64 MB for a column of a
/// million points beside its values' 16 MB. Min and max are held as values: held as the places of
/// their members in the block (24 bytes a member), each was a second read that waited for the
/// first, and those two misses in a row were half of an aggregate's cost on a world view.
struct BlockEdges {
    var from: [ValueStats] = []
    var through: [ValueStats] = []

    /// Room for `count` members, each empty until ``make(_:values:isRemoved:)`` makes its block's.
    init(count: Int = 0) {
        from = Array(repeating: ValueStats(), count: count)
        through = Array(repeating: ValueStats(), count: count)
    }

    /// Makes the edges of the members at `positions` (one block, starting at its first member).
    mutating func make(_ positions: Range<Int>, values: UnsafeBufferPointer<Double>, isRemoved: (Int) -> Bool) {
        /// Stores at each position of `order` the aggregates of the members up to it.
        func accumulate(_ order: some Sequence<Int>, into edges: inout [ValueStats]) {
            edges.withUnsafeMutableBufferPointer { edges in
                var stats = ValueStats()
                for p in order {
                    if !isRemoved(p) { stats.add(values[p], x: 0, y: 0) }
                    edges[p] = stats
                }
            }
        }
        accumulate(positions, into: &through)
        accumulate(positions.reversed(), into: &from)
    }
}

/// One kind of summary per 64, per 512 and per 4 096 members: a cell of a few thousand members
/// (a world view's) reads a few of each instead of one per 64.
struct Levels<Summary: ColumnSummary> {
    var blocks: [Summary] = []
    var mids: [Summary] = []
    var superblocks: [Summary] = []

    /// Calls `body` with the three levels as buffers (a fold reads them without copying them).
    @inline(__always)
    func withBuffers<R>(_ body: (LevelBuffers<Summary>) -> R) -> R {
        blocks.withUnsafeBufferPointer { blocks in
            mids.withUnsafeBufferPointer { mids in
                superblocks.withUnsafeBufferPointer { superblocks in body(LevelBuffers(blocks: blocks, mids: mids, superblocks: superblocks)) }
            }
        }
    }
}

/// ``Levels`` as a fold reads them.
struct LevelBuffers<Summary: ColumnSummary> {
    let blocks: UnsafeBufferPointer<Summary>
    let mids: UnsafeBufferPointer<Summary>
    let superblocks: UnsafeBufferPointer<Summary>
}

/// The aggregates a request may ask for of a property.
public enum AggregateKind: String, CaseIterable, Hashable, Sendable, Comparable {
    case count, sum, min, max, mean

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// What a cluster's members' values of one property come to (``ValueStats`` as the wire needs it).
public struct PropertyAggregate: Hashable, Sendable {
    /// Members with a numeric value.
    public var count: Int
    public var sum: Double
    /// Nil when no member has a value (so are ``max`` and ``mean``).
    public var min: Double?
    public var max: Double?
    public var mean: Double? { count > 0 ? sum / Double(count) : nil }

    public init(count: Int, sum: Double, min: Double?, max: Double?) {
        (self.count, self.sum, self.min, self.max) = (count, sum, min, max)
    }

    /// What one member weighs: its value when that is a number ≥ 0, else 1 (``WeightSums``).
    public static func weight(of value: Double?) -> Double {
        if let value, value >= 0 { value } else { 1 }
    }

    /// The aggregate of one value (an annotation shown by itself answers its own).
    public init(_ value: Double?) {
        self.init(count: value == nil ? 0 : 1, sum: value ?? 0, min: value, max: value)
    }

    init(stats: ValueStats) {
        self.init(count: stats.count, sum: stats.sum, min: stats.count > 0 ? stats.min : nil, max: stats.count > 0 ? stats.max : nil)
    }

    /// The value of `kind`: nil for min, max and mean when no member has one, and for a sum (and
    /// so a mean) beyond a double's range (JSON has no infinity).
    public func value(_ kind: AggregateKind) -> Double? {
        let value: Double? = switch kind {
        case .count: Double(count)
        case .sum: sum
        case .min: min
        case .max: max
        case .mean: mean
        }
        return value.flatMap { $0.isFinite ? $0 : nil }
    }
}
