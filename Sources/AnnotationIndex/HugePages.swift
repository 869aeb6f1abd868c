#if canImport(Glibc)
import CMalloc
import Glibc
#endif

/// The indexes' large arrays in transparent huge pages (2 MB) where the system offers them on
/// request (`madvise` mode, as Debian's kernels ship; elsewhere the advice is a no-op). A world
/// view reads a few members at both ends of hundreds of cells spread over tens of megabytes: with
/// 4 KB pages nearly each of those reads missed the TLB as well as the cache.
///
/// Only arrays of ``threshold`` bytes or more are advised, before they are first written, and
/// each of those is a mapping of its own: glibc's mmap threshold, which otherwise rises after
/// each large free (up to 32 MB) so that large blocks come from the heap, is fixed at the same
/// size the first time an array is made here. The advice then goes with the array's mapping when
/// it is freed, and is not left on heap memory that other allocations reuse (where the kernel
/// could fill freed pages back in as whole huge pages).
enum HugePages {
    static let size = 2 << 20
    static let threshold = 4 << 20

    /// Fixes glibc's mmap threshold at ``threshold``, once, and its trim threshold at twice that,
    /// as glibc itself sets it when it moves the mmap threshold: fixed by hand, the trim threshold
    /// would stay at 128 KB, and the heap's top would go back to the system and be faulted in
    /// again (pages cleared) at nearly every thin answer.
    private static let ownMappings: Void = {
        #if canImport(Glibc)
        _ = mallopt(M_MMAP_THRESHOLD, Int32(threshold))
        _ = mallopt(M_TRIM_THRESHOLD, Int32(2 * threshold))
        #endif
    }()

    /// Called before an array of `bytes` bytes is allocated.
    @inline(__always) static func prepare(bytes: Int) {
        if bytes >= threshold { _ = ownMappings }
    }

    /// Advises the whole huge pages inside `bytes` bytes from `start` (an array's new buffer).
    static func advise(_ start: UnsafeMutableRawPointer?, bytes: Int) {
        #if canImport(Glibc)
        guard let start, bytes >= threshold else { return }
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
        HugePages.prepare(bytes: capacity * MemoryLayout<Element>.stride)
        self.init(unsafeUninitializedCapacity: capacity) { buffer, count in
            HugePages.advise(UnsafeMutableRawPointer(buffer.baseAddress), bytes: buffer.count * MemoryLayout<Element>.stride)
            count = 0
        }
    }

    /// `count` elements, the one at `k` made by `element(k)`, in huge pages when that is megabytes (``HugePages``).
    package init(hugeCount count: Int, _ element: (Int) -> Element) {
        HugePages.prepare(bytes: count * MemoryLayout<Element>.stride)
        self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            HugePages.advise(UnsafeMutableRawPointer(buffer.baseAddress), bytes: buffer.count * MemoryLayout<Element>.stride)
            for k in 0..<count { (buffer.baseAddress! + k).initialize(to: element(k)) }
            initialized = count
        }
    }
}
