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
        // The digits where some keys differ: the others are skipped.
        let differing = keys.reduce(UInt64(0)) { $0 | ($1 ^ first) }
        typealias Pair = (key: UInt64, position: UInt32)
        var source: [Pair] = keys.indices.map { (keys[$0], UInt32($0)) }
        var target = source
        let bits = 11, mask = UInt64(1 << 11 - 1)
        var offsets = [Int](repeating: 0, count: 1 << bits)
        for shift in stride(from: 0, to: 64, by: bits) where (differing >> UInt64(shift)) & mask != 0 {
            source.withUnsafeBufferPointer { source in
                target.withUnsafeMutableBufferPointer { target in
                    offsets.withUnsafeMutableBufferPointer { offsets in
                        for d in offsets.indices { offsets[d] = 0 }
                        for pair in source { offsets[Int((pair.key >> UInt64(shift)) & mask)] += 1 }
                        var total = 0
                        for d in offsets.indices { (offsets[d], total) = (total, total + offsets[d]) }
                        for pair in source {
                            let d = Int((pair.key >> UInt64(shift)) & mask)
                            target[offsets[d]] = pair
                            offsets[d] += 1
                        }
                    }
                }
            }
            swap(&source, &target)
        }
        return source.map(\.position)
    }
}
