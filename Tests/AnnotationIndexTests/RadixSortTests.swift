@testable import AnnotationIndex
import TestSupport
import Testing

/// The indexes' radix sort against a comparison sort of (key, position): every order, stable.
@Suite struct RadixSortTests {
    @Test(arguments: [0, 1, 7, RadixSort.smallest - 1, RadixSort.smallest, 5_000, 70_000])
    func ordersAsAComparisonSortOfKeyThenPosition(count: Int) {
        var random = SeededGenerator(seed: UInt64(count) + 3)
        for (spread, shift) in [(UInt64(3), UInt64(0)), (1 << 20, 0), (.max, 0), (7, 33), (0, 0)] {
            // Few distinct keys (ties everywhere), keys in low bits only, keys over all 64 bits,
            // keys that share their low digits and differ in high ones, one key for all.
            let keys = (0..<count).map { _ in UInt64.random(in: 0...spread, using: &random) << shift }
            let expected = keys.indices.map { (keys[$0], $0) }.sorted { $0 < $1 }.map(\.1)
            let items = keys.indices.map { (key: keys[$0], position: $0) }
            #expect(RadixSort.sorted(items) { $0.key }.map(\.position) == expected, "\(count) keys up to \(spread) << \(shift)")
        }
    }
}
