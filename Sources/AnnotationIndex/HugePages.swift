#if canImport(Glibc)
import Glibc
#endif

/// The indexes' large arrays in transparent huge pages (2 MB) where the system offers them on
/// request (`madvise` mode, as Debian's kernels ship; elsewhere the advice is a no-op). A world
/// view reads a few members at both ends of hundreds of cells spread over tens of megabytes: with
/// 4 KB pages nearly each of those reads missed the TLB as well as the cache. A build or a load
/// writes hundreds of megabytes of fresh memory, a page fault per 4 KB. Only arrays of a few
/// megabytes are advised, before they are first written (pages already there stay small).
enum HugePages {
    static let size = 2 << 20

    /// Advises the whole huge pages inside `bytes` bytes from `start`.
    static func advise(_ start: UnsafeMutableRawPointer?, bytes: Int) {
        #if os(Linux)
        guard let start, bytes >= 2 * size else { return }
        let address = Int(bitPattern: start)
        let first = (address + size - 1) & ~(size - 1), end = (address + bytes) & ~(size - 1)
        guard end > first else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: first), end - first, MADV_HUGEPAGE)
        #endif
    }
}

extension Array {
    /// An empty array with room for `capacity` elements, in huge pages when that is megabytes (``HugePages``).
    package init(hugeCapacity capacity: Int) {
        self.init(unsafeUninitializedCapacity: capacity) { buffer, count in
            HugePages.advise(UnsafeMutableRawPointer(buffer.baseAddress), bytes: buffer.count * MemoryLayout<Element>.stride)
            count = 0
        }
    }

    /// `count` elements, the one at `k` made by `element(k)`, in huge pages when that is megabytes (``HugePages``).
    package init(hugeCount count: Int, _ element: (Int) -> Element) {
        self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            HugePages.advise(UnsafeMutableRawPointer(buffer.baseAddress), bytes: buffer.count * MemoryLayout<Element>.stride)
            for k in 0..<count { (buffer.baseAddress! + k).initialize(to: element(k)) }
            initialized = count
        }
    }
}
