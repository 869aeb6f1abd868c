import CMalloc

/// Gives freed memory's pages back to the system once an index is built: glibc keeps the freed
/// blocks of a build's temporaries (sort buffers of tens of megabytes for a million points) in
/// the process otherwise, and they count as the index's resident memory.
enum FreedMemory {
    static func release() {
        #if os(Linux)
        malloc_trim(0)
        #endif
    }
}
