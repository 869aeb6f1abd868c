/// A stable sort by 64-bit keys (least significant digit first, 11 bits a pass): how the indexes
/// order a million points by Morton code when they are built. A comparison sort took 0.23 s for
/// the point index's million; this takes a pass per digit that the keys do not all share.
enum RadixSort {
    /// Below this many items the standard library's sort is quicker than the passes' histograms.
    static let smallest = 512

    /// `items` by `key` ascending, items of equal keys in their given order.
    static func sorted<Item>(_ items: [Item], by key: (Item) -> UInt64) -> [Item] {
        guard items.count >= smallest else {
            return items.indices.map { (key(items[$0]), $0) }.sorted { $0 < $1 }.map { items[$0.1] }
        }
        let order = order(of: items.map(key))
        return order.map { items[Int($0)] }
    }

    /// Where each position of `order` (a permutation of 0..<n) goes: `places[order[k]] == k`. A
    /// build reads its input in order and writes each element at its place (a scatter): reading
    /// it in `order` instead (a gather) missed the cache at nearly every element.
    static func places(of order: [UInt32]) -> [UInt32] {
        var places = [UInt32](repeating: 0, count: order.count)
        places.withUnsafeMutableBufferPointer { places in
            for (k, position) in order.enumerated() { places[Int(position)] = UInt32(k) }
        }
        return places
    }

    /// Calls `body` with each range of two or more positions whose keys (`key(k)`, ascending in k) are equal.
    static func forEachTie(count: Int, key: (Int) -> UInt64, _ body: (Range<Int>) -> Void) {
        var start = 0
        while start < count {
            var end = start + 1
            while end < count, key(end) == key(start) { end += 1 }
            if end - start > 1 { body(start..<end) }
            start = end
        }
    }

    /// The positions of `keys` in ascending order of key, equal keys in their given order.
    static func order(of keys: [UInt64]) -> [UInt32] {
        let n = keys.count
        precondition(n <= Int(UInt32.max), "more keys than positions")
        guard let first = keys.first else { return [] }
        let bits = 11, mask = UInt64(1 << 11 - 1), digits = (64 + bits - 1) / bits
        // Every digit's histogram in one read of the keys, and the digits where some keys differ
        // (the others are skipped).
        var counts = [Int](repeating: 0, count: digits << bits)
        var differing = UInt64(0)
        keys.withUnsafeBufferPointer { keys in
            counts.withUnsafeMutableBufferPointer { counts in
                for key in keys {
                    differing |= key ^ first
                    for d in 0..<digits { counts[d << bits | Int((key >> UInt64(d * bits)) & mask)] += 1 }
                }
            }
        }
        typealias Pair = (key: UInt64, position: UInt32)
        var source: [Pair] = [], target = [Pair](repeating: (0, 0), count: n)
        for d in 0..<digits where (differing >> UInt64(d * bits)) & mask != 0 {
            let shift = UInt64(d * bits)
            counts.withUnsafeMutableBufferPointer { counts in
                target.withUnsafeMutableBufferPointer { target in
                    // The digit's counts become the first place of each of its values.
                    let offsets = UnsafeMutableBufferPointer(rebasing: counts[d << bits ..< (d + 1) << bits])
                    var total = 0
                    for v in offsets.indices { (offsets[v], total) = (total, total + offsets[v]) }
                    if source.isEmpty {
                        // The first pass reads the keys themselves, their positions in order.
                        keys.withUnsafeBufferPointer { keys in
                            for (position, key) in keys.enumerated() {
                                let v = offsets.startIndex + Int((key >> shift) & mask)
                                target[offsets[v]] = (key, UInt32(position))
                                offsets[v] += 1
                            }
                        }
                    } else {
                        source.withUnsafeBufferPointer { source in
                            for pair in source {
                                let v = offsets.startIndex + Int((pair.key >> shift) & mask)
                                target[offsets[v]] = pair
                                offsets[v] += 1
                            }
                        }
                    }
                }
            }
            if source.isEmpty { source = [Pair](repeating: (0, 0), count: n) }
            swap(&source, &target)
        }
        // All keys equal: their given order.
        return source.isEmpty ? Array(0..<UInt32(n)) : source.map(\.position)
    }
}
