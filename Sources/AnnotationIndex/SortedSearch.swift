extension RandomAccessCollection where Index == Int {
    /// The first index in `range` (the whole collection when nil) whose element passes `isPast`,
    /// or the range's end: the elements are ordered so that once one passes, all after it do.
    /// The one binary search of the indexes (ids, codes, ordinals and members all search with it).
    @inline(__always)
    func partitioningIndex(in range: Range<Int>? = nil, where isPast: (Element) -> Bool) -> Int {
        var low = range?.lowerBound ?? startIndex, high = range?.upperBound ?? endIndex
        while low < high {
            let middle = (low + high) / 2
            if isPast(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
