@testable import AnnotationIndex
import Testing

/// The arrays made in memory advised for huge pages hold what the standard library's would: the
/// advice changes where their pages come from, never their elements.
@Suite struct HugePagesTests {
    @Test(arguments: [0, 1, 1000, 3_000_000])
    func arraysHoldTheirElements(count: Int) {
        let made = [UInt64](hugeCount: count) { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 }
        #expect(made == (0..<count).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 })

        var grown = [UInt32](hugeCapacity: count)
        #expect(grown.isEmpty && grown.capacity >= count)
        let storage = grown.withUnsafeBufferPointer { $0.baseAddress }
        for k in 0..<count { grown.append(UInt32(truncatingIfNeeded: k)) }
        #expect(grown == (0..<count).map { UInt32(truncatingIfNeeded: $0) })
        // Filled where it was made: no reallocation on the way.
        if count > 0 { #expect(grown.withUnsafeBufferPointer { $0.baseAddress } == storage) }
    }
}
