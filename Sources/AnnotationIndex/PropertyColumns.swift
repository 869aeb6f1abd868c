/// What some members' values of one numeric property add up to: the aggregates (`count` of the
/// members that have a value, their `sum`, `min` and `max`) and, for the property as a weight, the
/// sums a weighted centroid needs. A weight is the value when it is a number ≥ 0; a member without
/// one (absent, not a number, negative) weighs 1, so over n members of shifted points (x, y):
/// Σw = ``weightSum`` + (n − ``weighted``), Σw·x = ``weightedXExcess`` + Σx (likewise y).
struct ValueSummary {
    var count = 0
    var sum = 0.0
    var min = Double.infinity
    var max = -Double.infinity
    /// Members whose value is a weight (≥ 0), and the sum of those values.
    var weighted = 0
    var weightSum = 0.0
    /// Σ (w − 1)·x and Σ (w − 1)·y over the weighted members: what their weights add to the plain sums.
    var weightedXExcess = 0.0
    var weightedYExcess = 0.0

    /// Adds a member's value (NaN: it has none) at shifted point (x, y).
    @inline(__always) mutating func add(_ value: Double, x: Double, y: Double) {
        guard !value.isNaN else { return }
        count += 1
        sum += value
        min = Swift.min(min, value)
        max = Swift.max(max, value)
        if value >= 0 {
            weighted += 1
            weightSum += value
            weightedXExcess += (value - 1) * x
            weightedYExcess += (value - 1) * y
        }
    }

    mutating func add(_ other: ValueSummary) {
        count += other.count
        sum += other.sum
        min = Swift.min(min, other.min)
        max = Swift.max(max, other.max)
        weighted += other.weighted
        weightSum += other.weightSum
        weightedXExcess += other.weightedXExcess
        weightedYExcess += other.weightedYExcess
    }
}

/// One numeric free property as the index keeps it: every slot's value (NaN when the annotation has
/// none), by ordinal, beside the slots' ids. Built on the first request that names the property,
/// then kept current by the writes (``ThinningEntry/numbers``).
final class PropertyColumn {
    let name: String
    @exclusivity(unchecked) var byOrdinal: [Double]
    /// The use clock's value when a request last read it (the least recently used goes first).
    var used: UInt64 = 0

    init(name: String, slots: Int) {
        self.name = name
        byOrdinal = [Double](repeating: .nan, count: slots)
    }

    /// The value an entry's numbers give this property (NaN: none).
    func value(of entry: ThinningEntry) -> Double {
        entry.numbers?[name] ?? .nan
    }
}

/// A partition's per-64 and per-4 096 ``ValueSummary`` of one column, aligned with its main run
/// like its other summaries.
struct ColumnBlocks {
    let column: PropertyColumn
    var blocks: [ValueSummary] = []
    var superblocks: [ValueSummary] = []
}

/// The aggregates a request asks for: per property, which of them.
public enum AggregateKind: String, CaseIterable, Hashable, Sendable, Comparable {
    case count, sum, min, max, mean

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// What a cluster's members' values of one property come to (``ValueSummary`` as the wire needs it).
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

    /// What one member weighs: its value when that is a number ≥ 0, else 1 (``ValueSummary``).
    public static func weight(of value: Double?) -> Double {
        if let value, value >= 0 { value } else { 1 }
    }

    /// The aggregate of one value (an annotation shown by itself answers its own).
    public init(_ value: Double?) {
        self.init(count: value == nil ? 0 : 1, sum: value ?? 0, min: value, max: value)
    }

    init(_ summary: ValueSummary) {
        self.init(count: summary.count, sum: summary.sum, min: summary.count > 0 ? summary.min : nil, max: summary.count > 0 ? summary.max : nil)
    }

    /// The value of `kind` (nil: no member has one, for min, max and mean).
    public func value(_ kind: AggregateKind) -> Double? {
        switch kind {
        case .count: Double(count)
        case .sum: sum
        case .min: min
        case .max: max
        case .mean: mean
        }
    }
}
