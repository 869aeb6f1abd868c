import Annotations
import Foundation
import MapGeometry
import Testing
import TestSupport
import AnnotationIndex
import Timeline
import WireJSON

@testable import MeridianServer

/// The JSON copies behind the query fast routes: a copy answers only its own version, the bytes
/// are the writer's, and past the budget the oldest block goes with its entries.
@Suite(.watchdog) struct EncodedAnnotationsTests {
    static func annotation(_ n: Int, version: Int = 1) -> Annotation {
        Annotation(
            id: UUIDv7(high: 0x0190_0000_0000_7000, low: 0x8000_0000_0000_0000 | UInt64(n)),
            content: AnnotationContent(coordinate: Coordinate(latitude: Double(n % 80), longitude: 1), title: "annotation \(n)"),
            version: version, createdAt: Date(timeIntervalSince1970: 1_700_000_000), updatedAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    static func text(_ piece: EncodedAnnotations.Piece) -> String {
        var json = JSONWriter()
        piece.append(to: &json)
        return json.text
    }

    @Test func aCopyAnswersOnlyItsVersionAndHoldsTheWritersBytes() {
        let cache = EncodedAnnotations(budget: 1 << 20, blockSize: 64 << 10)
        let first = Self.annotation(1)
        var expected = JSONWriter()
        AnnotationJSON.write(first, to: &expected)
        #expect(Self.text(cache.json(of: first)) == expected.text)  // written, then kept
        #expect(cache.copies(of: [PointReference(id: first.id, version: 1)]).first! != nil, "version 1 is held")
        #expect(cache.copies(of: [PointReference(id: first.id, version: 2)]).first! == nil, "another version is not")
        let second = Self.annotation(1, version: 2)
        #expect(Self.text(cache.json(of: second)).contains(#""version":2"#))
        #expect(cache.copies(of: [PointReference(id: first.id, version: 2)]).first! != nil)
        #expect(cache.copies(of: [PointReference(id: first.id, version: 1)]).first! == nil)
    }

    @Test func pastTheBudgetTheOldestBlockGoes() {
        let cache = EncodedAnnotations(budget: 16 << 10, blockSize: 4 << 10)
        for n in 0..<400 { _ = cache.json(of: Self.annotation(n)) }
        #expect(cache.bytes <= 16 << 10)
        let held = cache.copies(of: (0..<400).map { PointReference(id: Self.annotation($0).id, version: 1) })
        #expect(held.first! == nil, "the first kept went first")
        #expect(held.last! != nil, "the last kept stays")
        #expect(held.compactMap { $0 }.count > 20)
        #expect(EncodedAnnotations(budget: 1 << 10, blockSize: 4 << 10).json(of: Self.annotation(1)).count > 0, "a budget under a block keeps nothing but still writes")
    }
}
