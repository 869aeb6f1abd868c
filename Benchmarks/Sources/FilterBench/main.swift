import Annotations
import Foundation
import MapGeometry
import Timeline
import WireJSON

// CQL2 evaluation cost at 1 M annotations: each insensitive or temporal filter beside the same
// question asked as a plain comparison, in one run (the target: within 2×). Prints one
// line per pair with both times and their ratio.

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1_000_000 : 1_000_000
let generator = UUIDv7Generator()
let base = Date(timeIntervalSince1970: 1_600_000_000)
let annotations: [Annotation] = (0..<count).map { index in
    let title = index % 10 == 0 ? "Café \(index)" : "Shop \(index)"
    let stamp = base.addingTimeInterval(Double(index))
    let properties: [String: JSONValue] = ["start": .string(Instant(secondsSince1970: stamp.timeIntervalSince1970).rfc3339), "rating": .number(Double(index % 50) / 10)]
    return Annotation(
        id: generator.next(),
        content: AnnotationContent(coordinate: Coordinate(latitude: Double(index % 170) - 85, longitude: Double(index % 360) - 180), title: title, kind: "shop", properties: properties),
        version: 1, createdAt: stamp, updatedAt: stamp)
}

/// Seconds for one pass of `filter` over every annotation, best of three, and how many matched.
func time(_ text: String) throws -> (seconds: Double, matched: Int) {
    let filter = try Filter(text: text)
    var best = Double.infinity
    var matched = 0
    for _ in 0..<3 {
        let start = ContinuousClock.now
        matched = annotations.reduce(0) { $0 + (filter.matches($1) ? 1 : 0) }
        let elapsed = ContinuousClock.now - start
        best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    return (best, matched)
}

let middle = Instant(secondsSince1970: base.timeIntervalSince1970 + Double(count / 2)).rfc3339
let pairs: [(String, String)] = [
    ("title = 'Shop 500001'", "CASEI(title) = CASEI('SHOP 500001')"),
    ("title = 'Shop 500001'", "ACCENTI(title) = ACCENTI('Shop 500001')"),
    ("title = 'Shop 500001'", "ACCENTI(CASEI(title)) = ACCENTI(CASEI('shop 500001'))"),
    ("title LIKE 'Shop 5%'", "CASEI(title) LIKE CASEI('shop 5%')"),
    ("updatedAt > TIMESTAMP('\(middle)')", "T_AFTER(updatedAt, TIMESTAMP('\(middle)'))"),
    ("start > '\(middle)'", "T_AFTER(start, TIMESTAMP('\(middle)'))"),
    ("updatedAt >= TIMESTAMP('\(middle)')", "T_INTERSECTS(updatedAt, INTERVAL('\(middle)', '..'))"),
]
print("annotations: \(count)")
for (plain, other) in pairs {
    let a = try time(plain), b = try time(other)
    print(String(format: "%.3f s %@ (%d)  |  %.3f s %@ (%d)  |  ratio %.2f", a.seconds, plain, a.matched, b.seconds, other, b.matched, b.seconds / a.seconds))
}
