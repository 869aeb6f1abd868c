import Annotations
import Testing
import Timeline

/// The page-filling loop every reader runs, over a list of ids standing for rows in id order.
@Suite struct PageFillingTests {
    let rows: [AnnotationID] = { let ids = UUIDv7Generator(); return (0..<10).map { _ in ids.next() } }()

    /// Runs the loop over `rows` with `keep`; returns the page and the limits each read asked for.
    func fill(limit: Int?, reads: PageFilling<AnnotationID>.Reads, keep: (AnnotationID) -> Bool = { _ in true })
        -> (items: [AnnotationID], next: AnnotationID?, asked: [Int?]) {
        var filling = PageFilling<AnnotationID>(limit: limit, reads: reads)
        var start = 0
        var asked: [Int?] = []
        while let read = filling.nextRead {
            asked.append(read.limit)
            let chunk = Array(rows[start..<min(start + (read.limit ?? rows.count), rows.count)])
            start += chunk.count
            filling.add(chunk) { keep($0) ? $0 : nil }
        }
        let (items, next) = filling.page { $0 }
        return (items, next, asked)
    }

    @Test func oneReadAsksForOneMoreThanThePageToKnowWhetherAnotherFollows() {
        let page = fill(limit: 3, reads: .once)
        #expect(page.items == Array(rows.prefix(3)) && page.next == rows[2] && page.asked == [4])
        let last = fill(limit: 10, reads: .once)
        #expect(last.items == rows && last.next == nil && last.asked == [11])
        #expect(fill(limit: nil, reads: .once).asked == [nil])
    }

    @Test func aFilterReadsChunksUntilThePageIsFull() {
        let even = { (id: AnnotationID) in rows.firstIndex(of: id).map { $0 % 2 == 0 } ?? false }
        let page = fill(limit: 2, reads: .chunks(of: 2), keep: even)
        #expect(page.items == [rows[0], rows[2]] && page.next == rows[2] && page.asked == [2, 2, 2])
    }

    @Test func aFilterStopsWhenTheRowsRunOut() {
        let page = fill(limit: 5, reads: .chunks(of: 4), keep: { $0 == rows[9] })
        #expect(page.items == [rows[9]] && page.next == nil && page.asked == [4, 4, 4])
    }

    @Test func chunksOfAtLeastAskForWhatThePageStillLacks() {
        #expect(fill(limit: 6, reads: .chunksOfAtLeast(2)).asked == [7])
        #expect(fill(limit: 1, reads: .chunksOfAtLeast(3), keep: { $0 == rows[7] }).asked == [3, 3, 3, 3])
        #expect(fill(limit: nil, reads: .chunksOfAtLeast(3)).asked == [nil])
    }
}
