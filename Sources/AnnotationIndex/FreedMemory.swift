import CMalloc

/// Gives freed memory's pages back to the system once the indexes are built (``IndexFollower``'s
/// load): glibc keeps the freed blocks of a build's temporaries (sort buffers of tens of megabytes
/// for a million points) in the process otherwise, and they count as the indexes' resident memory.
/// (Public for the benchmark, which builds the index as the follower does and measures its growth.)
public enum FreedMemory {
    public static func release() {
        #if os(Linux)
        malloc_trim(0)
        #endif
    }
}
