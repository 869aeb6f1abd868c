import CMalloc

/// Gives freed memory's pages back to the system once an index is built: glibc keeps the freed
/// blocks of a build's temporaries (sort buffers of tens of megabytes for a million points) in
/// the process otherwise, and they count as the index's resident memory. (Public for the benchmark,
/// which measures the resident growth of a build from a process with nothing freed held.)
public enum FreedMemory {
    public static func release() {
        #if os(Linux)
        malloc_trim(0)
        #endif
    }
}
