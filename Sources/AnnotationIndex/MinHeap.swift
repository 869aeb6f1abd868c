/// A binary min-heap: the least element first.
struct MinHeap<Element: Comparable> {
    private var elements: [Element] = []

    var first: Element? { elements.first }
    var isEmpty: Bool { elements.isEmpty }
    var count: Int { elements.count }

    mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func pop() -> Element? {
        guard let top = elements.first else { return nil }
        let last = elements.removeLast()
        guard !elements.isEmpty else { return top }
        elements[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var least = parent
            if left < elements.count, elements[left] < elements[least] { least = left }
            if right < elements.count, elements[right] < elements[least] { least = right }
            guard least != parent else { return top }
            elements.swapAt(parent, least)
            parent = least
        }
    }
}
