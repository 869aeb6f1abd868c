import Synchronization

/// Reusable PROJ transformations, keyed by (source, target), each used by one caller at a time.
///
/// Creating a transformation opens PROJ's database and costs milliseconds; a pooled one costs
/// a dictionary look-up. Idle transformers are kept up to ``maxIdlePerPair`` per pair.
public final class CRSTransformerPool: Sendable {
    private struct Key: Hashable { let source: String, target: String }
    private let idle = Mutex<[Key: [CRSTransformer]]>([:])
    /// How many idle transformers of one pair are kept.
    public let maxIdlePerPair: Int
    /// How many distinct pairs are kept; transformers of further pairs are dropped after use.
    public let maxPairs: Int

    /// An empty pool.
    public init(maxIdlePerPair: Int = 4, maxPairs: Int = 64) {
        self.maxIdlePerPair = maxIdlePerPair
        self.maxPairs = maxPairs
    }

    /// Transforms `positions` (`[x, y]` or `[x, y, z]`, x = longitude or easting) from `source` to `target`.
    /// - Returns: the positions in order; nil for one outside the transformation's domain.
    /// - Throws: ``GeodesyError`` for an unknown CRS or a missing transformation.
    public func transform(_ positions: [[Double]], from source: String, to target: String) throws(GeodesyError) -> [[Double]?] {
        let key = Key(source: source, target: target)
        let pooled = idle.withLock { $0[key]?.popLast() }
        let transformer: CRSTransformer
        if let pooled { transformer = pooled } else { transformer = try CRSTransformer(source: source, target: target) }
        defer {
            idle.withLock { pool in
                guard pool[key] != nil || pool.count < maxPairs else { return }
                if pool[key, default: []].count < maxIdlePerPair { pool[key, default: []].append(transformer) }
            }
        }
        return transformer.transform(positions)
    }
}
