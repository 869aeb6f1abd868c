import Foundation
import Geodesy
import HTTPTypes
import MeridianHTTP
import WireJSON

// `filter-crs` (OGC 19-079r2 Part 3): a filter's geometry literals are given in another CRS and
// are moved into CRS84 before the filter is read, so the CQL2 engine only ever sees CRS84.

extension OGCCRS {
    /// The WKT keywords of CQL2-Text whose parenthesised numbers are positions, and `BBOX`.
    static let wktKeywords: Set<String> = ["POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "BBOX"]

    /// A CQL2-JSON filter with its geometry literals (GeoJSON `coordinates`, `{"bbox": […]}`)
    /// moved from this CRS into CRS84.
    /// - Throws: 400 naming `filter-crs` when a position is outside this CRS's domain.
    func filterInCRS84(json filter: JSONValue, with pool: CRSTransformerPool) throws(ProblemError) -> JSONValue {
        if self == .crs84 { return filter }
        var positions: [[Double]] = []
        func collect(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let members):
                if case .string(let type)? = members["type"], members["coordinates"] != nil || type == "GeometryCollection" {
                    Self.visitPositions(value) { positions.append($0); return $0 }
                    return value
                }
                if case .array(let box)? = members["bbox"], members.count == 1 {
                    let numbers = box.compactMap { v -> Double? in if case .number(let n) = v { return n.double } else { return nil } }
                    if numbers.count == box.count, numbers.count == 4 || numbers.count == 6 {
                        let half = numbers.count / 2
                        positions += [[numbers[0], numbers[1]], [numbers[half], numbers[half + 1]]]
                    }
                    return value
                }
                return .object(members.mapValues(collect))
            case .array(let items): return .array(items.map(collect))
            default: return value
            }
        }
        _ = collect(filter)
        var moved = try positionsInCRS84(positions, with: pool)[...]
        func replace(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let members):
                if case .string(let type)? = members["type"], members["coordinates"] != nil || type == "GeometryCollection" {
                    return Self.visitPositions(value) { _ in moved.popFirst() ?? [] }
                }
                if case .array(let box)? = members["bbox"], members.count == 1 {
                    let numbers = box.compactMap { v -> Double? in if case .number(let n) = v { return n.double } else { return nil } }
                    guard numbers.count == box.count, numbers.count == 4 || numbers.count == 6 else { return value }
                    let (lower, upper) = (moved.popFirst() ?? [], moved.popFirst() ?? [])
                    return .object(["bbox": .array((lower.prefix(2) + upper.prefix(2)).map { .number($0) })])
                }
                return .object(members.mapValues(replace))
            case .array(let items): return .array(items.map(replace))
            default: return value
            }
        }
        return replace(filter)
    }

    /// A CQL2-Text filter with the numbers of its WKT literals and `BBOX(…)` moved from this CRS
    /// into CRS84; text in quotes is left alone, and so is the rest of the filter, byte for byte.
    /// - Throws: 400 naming `filter-crs` when a position is outside this CRS's domain.
    func filterInCRS84(text filter: String, with pool: CRSTransformerPool) throws(ProblemError) -> String {
        if self == .crs84 { return filter }
        let scalars = Array(filter.unicodeScalars)
        // The literals' number runs: (range of each number, position index, axis) in order.
        var literals: [(numbers: [(range: Range<Int>, value: Double)], isBox: Bool)] = []
        var index = 0
        while index < scalars.count {
            let c = scalars[index]
            if c == "'" || c == "\"" {  // a quoted string or identifier: skip to its end ('' and "" escape)
                index += 1
                while index < scalars.count {
                    if scalars[index] == c { if index + 1 < scalars.count, scalars[index + 1] == c { index += 2; continue }; break }
                    index += 1
                }
                index += 1
                continue
            }
            guard c.properties.isAlphabetic else { index += 1; continue }
            let start = index
            while index < scalars.count, scalars[index].properties.isAlphabetic || scalars[index] == "_" || ("0"..."9").contains(scalars[index]) { index += 1 }
            let word = String(String.UnicodeScalarView(scalars[start..<index])).uppercased()
            guard Self.wktKeywords.contains(word) else { continue }
            var open = index
            while open < scalars.count, scalars[open].properties.isWhitespace || "ZzMm".unicodeScalars.contains(scalars[open]) { open += 1 }
            guard open < scalars.count, scalars[open] == "(" else { continue }
            // The literal runs to its matching parenthesis; its numbers are read in order.
            var depth = 0, cursor = open
            var numbers: [(range: Range<Int>, value: Double)] = []
            while cursor < scalars.count {
                let s = scalars[cursor]
                if s == "(" { depth += 1 } else if s == ")" { depth -= 1; if depth == 0 { break } }
                if s == "-" || s == "+" || s == "." || ("0"..."9").contains(s) {
                    let numberStart = cursor
                    cursor += 1
                    while cursor < scalars.count, ".eE+-0123456789".unicodeScalars.contains(scalars[cursor]) { cursor += 1 }
                    if let value = Double(String(String.UnicodeScalarView(scalars[numberStart..<cursor]))) { numbers.append((numberStart..<cursor, value)) }
                    continue
                }
                cursor += 1
            }
            literals.append((numbers, word == "BBOX"))
            index = cursor + 1
        }
        // Positions: pairs (or triples after a Z, read as pairs of the first two and a kept height) per literal.
        var positions: [[Double]] = []
        var slots: [(Range<Int>, Range<Int>)] = []
        for literal in literals {
            if literal.isBox {
                guard literal.numbers.count == 4 || literal.numbers.count == 6 else { continue }
                let half = literal.numbers.count / 2
                for start in [0, half] {
                    positions.append([literal.numbers[start].value, literal.numbers[start + 1].value])
                    slots.append((literal.numbers[start].range, literal.numbers[start + 1].range))
                }
            } else {
                // WKT positions are separated by commas or parentheses; the first two numbers of each are x and y.
                var group: [(range: Range<Int>, value: Double)] = []
                func flush() {
                    if group.count >= 2 { positions.append([group[0].value, group[1].value]); slots.append((group[0].range, group[1].range)) }
                    group = []
                }
                var previousEnd = literal.numbers.first?.range.lowerBound ?? 0
                for number in literal.numbers {
                    if scalars[previousEnd..<number.range.lowerBound].contains(where: { $0 == "," || $0 == "(" || $0 == ")" }) { flush() }
                    group.append(number)
                    previousEnd = number.range.upperBound
                }
                flush()
            }
        }
        let moved = try positionsInCRS84(positions, with: pool)
        var replacements: [(Range<Int>, String)] = []
        for (slot, position) in zip(slots, moved) {
            replacements += [(slot.0, Self.plainNumber(position[0])), (slot.1, Self.plainNumber(position[1]))]
        }
        var result = String.UnicodeScalarView()
        var at = 0
        for (range, text) in replacements.sorted(by: { $0.0.lowerBound < $1.0.lowerBound }) {
            result.append(contentsOf: scalars[at..<range.lowerBound])
            result.append(contentsOf: text.unicodeScalars)
            at = range.upperBound
        }
        result.append(contentsOf: scalars[at...])
        return String(result)
    }

    /// `positions` into CRS84, or 400 naming `filter-crs`.
    private func positionsInCRS84(_ positions: [[Double]], with pool: CRSTransformerPool) throws(ProblemError) -> [[Double]] {
        let parameter = "filter-crs"
        let moved: [[Double]?]
        do { moved = try toCRS84(positions, with: pool) } catch {
            throw ProblemError(.badRequest, detail: "\(parameter): \(error)", errors: [.init(parameter: parameter, detail: "\(error)")])
        }
        return try moved.map { p throws(ProblemError) in
            guard let p else {
                let detail = "names \(uri), and a position of the filter lies outside its domain"
                throw ProblemError.badParameter(parameter, detail)
            }
            return p
        }
    }

    /// A number as CQL2-Text reads it: plain decimals, no exponent, 12 places at most.
    static func plainNumber(_ value: Double) -> String {
        var text = String(format: "%.12f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
