import Annotations
import Foundation
import MapGeometry
import TestSupport
import Testing
import Timeline
import WireJSON

/// CQL2 filters: the two encodings read alike, evaluation follows SQL's three-valued logic, and
/// every error points at its place.
@Suite struct FilterTests {
    static func annotation(_ latitude: Double, _ longitude: Double, kind: String? = "shop", priority: Int = 500, properties: [String: JSONValue] = [:]) -> Annotation {
        Annotation(
            id: UUIDv7Generator().next(),
            content: AnnotationContent(coordinate: Coordinate(latitude: latitude, longitude: longitude), title: "Shop", kind: kind, displayPriority: priority, properties: properties),
            version: 1, createdAt: Date(), updatedAt: Date())
    }

    static func json(_ text: String) throws -> JSONValue {
        try #require(Array(text.utf8).withUnsafeBytes { JSONValueParser.parse($0) })
    }

    static let shop = annotation(48.85, 2.35, properties: ["rating": .number(4.5), "open": .bool(true), "address": .object(["city": .string("Paris")])])

    @Test(arguments: [
        (#"{"op":"=","args":[{"property":"kind"},"shop"]}"#, "kind = 'shop'", true),
        (#"{"op":">=","args":[{"property":"rating"},4]}"#, "rating >= 4", true),
        (#"{"op":"<","args":[{"property":"displayPriority"},500]}"#, "displayPriority < 500", false),
        (#"{"op":"like","args":[{"property":"address.city"},"P_r%"]}"#, "address.city LIKE 'P_r%'", true),
        (#"{"op":"in","args":[{"property":"kind"},["cafe","shop"]]}"#, "kind IN ('cafe', 'shop')", true),
        (#"{"op":"between","args":[{"property":"rating"},4,5]}"#, "rating BETWEEN 4 AND 5", true),
        (#"{"op":"isNull","args":[{"property":"missing"}]}"#, "missing IS NULL", true),
        (#"{"op":"not","args":[{"op":"isNull","args":[{"property":"rating"}]}]}"#, "rating IS NOT NULL", true),
        (#"{"op":"=","args":[{"property":"open"},true]}"#, "open = TRUE", true),
        (#"{"op":"and","args":[{"op":"=","args":[{"property":"kind"},"shop"]},{"op":"s_intersects","args":[{"property":"geometry"},{"bbox":[2,48,3,49]}]}]}"#,
         "kind = 'shop' and S_INTERSECTS(geometry, BBOX(2, 48, 3, 49))", true),
        (#"{"op":"s_within","args":[{"property":"geometry"},{"type":"Polygon","coordinates":[[[2,48],[3,48],[3,49],[2,49],[2,48]]]}]}"#,
         "S_WITHIN(geometry, POLYGON((2 48, 3 48, 3 49, 2 49, 2 48)))", true),
        (#"{"op":"s_contains","args":[{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,1],[0,0]]]]},{"property":"geometry"}]}"#,
         "S_CONTAINS(MULTIPOLYGON(((0 0, 1 0, 1 1, 0 1, 0 0))), geometry)", false),
        (#"{"op":"or","args":[false,{"op":"<>","args":[{"property":"title"},"Cafe"]}]}"#, "FALSE OR title <> 'Cafe'", true),
    ])
    func bothEncodingsReadTheSameFilterAndEvaluateIt(json: String, text: String, expected: Bool) throws {
        let fromJSON = try Filter(json: try Self.json(json))
        let fromText = try Filter(text: text)
        #expect(fromJSON == fromText)
        #expect(fromJSON.matches(Self.shop) == expected)
        // Written back as CQL2-JSON (what a cluster id carries), it reads as the same filter.
        #expect(try Filter(json: fromText.json) == fromJSON)
    }

    /// Unknown (a missing property, or values of different types) is not a match, and `not` of
    /// unknown is still unknown; `or` with a true side is true.
    @Test func unknownFollowsThreeValuedLogic() throws {
        let bare = Self.annotation(0, 0)
        #expect(try !Filter(text: "rating > 3").matches(bare))
        #expect(try !Filter(text: "NOT rating > 3").matches(bare))
        #expect(try Filter(text: "rating > 3 OR kind = 'shop'").matches(bare))
        #expect(try !Filter(text: "rating > 3 AND kind = 'shop'").matches(bare))
        #expect(try !Filter(text: "address.city = 4").matches(Self.shop), "a string compared with a number")
    }

    @Test func likeHandlesWildcardsAndEscapes() throws {
        let cases: [(String, String, Bool)] = [("50%", #"50\%"#, true), ("500", #"50\%"#, false), ("abc", "a%c", true), ("ac", "a_c", false),
                                              ("", "%", true), ("a_b", #"a\_b"#, true), ("axb", #"a\_b"#, false), ("ÿé", "__", true)]
        for (text, pattern, expected) in cases {
            let annotation = Self.annotation(0, 0, properties: ["v": .string(text)])
            #expect(Filter.like(subject: "v", pattern: pattern).matches(annotation) == expected, "\(text) like \(pattern)")
        }
    }

    /// Random patterns over `%`, `_`, `\\` and two letters, against NSRegularExpression given the
    /// same pattern rewritten as a regular expression (an independent matcher that backtracks).
    @Test func likeAgreesWithARegularExpressionOnRandomPatterns() throws {
        var generator = SeededGenerator(seed: 32)
        let alphabet: [Character] = ["a", "b", "%", "_", "\\"]
        for round in 0..<6_000 {
            // Short patterns, then long ones (pieces past 64 positions take several words).
            let (longest, letters) = round < 3_000 ? (8, alphabet) : (160, Array("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab_%"))
            let pattern = String((0..<Int.random(in: 0...longest, using: &generator)).map { _ in letters.randomElement(using: &generator)! })
            let text = String((0..<Int.random(in: 0...(longest * 2), using: &generator)).map { _ in letters.randomElement(using: &generator)! })
            var regex = "^", escaped = false
            for character in pattern {
                if escaped { regex += NSRegularExpression.escapedPattern(for: String(character)); escaped = false }
                else if character == "\\" { escaped = true }
                else if character == "%" { regex += ".*" }
                else if character == "_" { regex += "." }
                else { regex += NSRegularExpression.escapedPattern(for: String(character)) }
            }
            if escaped { regex += "\\\\" }
            let expression = try NSRegularExpression(pattern: regex + "$", options: [.dotMatchesLineSeparators])
            let expected = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            #expect(LikePattern(pattern).matches(text) == expected, "'\(text)' like '\(pattern)'")
        }
    }

    @Test func likePatternsHaveALengthLimit() throws {
        let long = String(repeating: "%", count: LikePattern.maxLength) + "b"
        let error = try #require(throws: FieldError.self) { try Filter(json: try Self.json(#"{"op":"like","args":[{"property":"title"},""# + long + #""]}"#)) }
        #expect(error.path == ["args", "1"])
        #expect(throws: FieldError.self) { try Filter(text: "title LIKE '\(long)'") }
        // At the limit it is read, and `%%…%b` is one piece: it matches what ends in b.
        let filter = try Filter(text: "title LIKE '\(long.dropFirst())'")
        #expect(filter.matches(Self.annotation(0, 0)) == false)
        #expect(LikePattern(String(long.dropFirst())).matches(String(repeating: "a", count: 100_000) + "b"))
    }

    @Test func pointsOnABoundaryIntersectButAreNotWithin() throws {
        let corner = Self.annotation(48, 2)
        #expect(try Filter(text: "S_INTERSECTS(geometry, BBOX(2, 48, 3, 49))").matches(corner))
        #expect(try !Filter(text: "S_WITHIN(geometry, BBOX(2, 48, 3, 49))").matches(corner))
        // A hole excludes; a box across the antimeridian holds both sides.
        let holed = "S_INTERSECTS(geometry, POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (4 4, 6 4, 6 6, 4 6, 4 4)))"
        #expect(try !Filter(text: holed).matches(Self.annotation(5, 5)) && Filter(text: holed).matches(Self.annotation(2, 2)))
        #expect(try Filter(json: Self.json(#"{"op":"s_intersects","args":[{"property":"geometry"},{"bbox":[170,-10,-170,10]}]}"#)).matches(Self.annotation(0, -175)))
        #expect(try Filter(text: "S_INTERSECTS(geometry, POINT(2.35 48.85))").matches(Self.shop))
    }

    /// The box a store reads first: a MultiPolygon split at 180° gets a box across it, not the world.
    @Test func aSplitMultiPolygonIsBoundedAcrossTheAntimeridian() throws {
        let split = try Filter(text: "S_INTERSECTS(geometry, MULTIPOLYGON(((179 -18, 180 -18, 180 -17, 179 -17, 179 -18)), ((-180 -18, -179 -18, -179 -17, -180 -17, -180 -18))))")
        #expect(split.requiredBounds == BoundingBox(west: 179, south: -18, east: -179, north: -17))
        let apart = try Filter(text: "S_INTERSECTS(geometry, MULTIPOLYGON(((0 0, 1 0, 1 1, 0 1, 0 0)), ((10 5, 12 5, 12 6, 10 6, 10 5))))")
        #expect(apart.requiredBounds == BoundingBox(west: 0, south: 0, east: 12, north: 6))
        let both = try Filter(text: "kind = 'a' AND S_WITHIN(geometry, BBOX(170, -10, -170, 10))")
        #expect(both.requiredBounds == BoundingBox(west: 170, south: -10, east: -170, north: 10))
        #expect(try Filter(text: "kind = 'a' OR S_WITHIN(geometry, BBOX(0, 0, 1, 1))").requiredBounds == nil)
    }

    @Test(arguments: [
        (#"{"op":"~","args":[1,2]}"#, ["op"]),
        (#"{"op":"and","args":[{"op":"=","args":[{"property":"kind"},"a"]}]}"#, ["args"]),
        (#"{"op":"=","args":[{"property":"displayPriority"},"high"]}"#, ["args", "1"]),
        (#"{"op":"=","args":[{"property":"kind"},{"timestamp":"2026-01-01T00:00:00Z"}]}"#, ["args", "1"]),
        (#"{"op":"or","args":[true,{"op":"s_within","args":[{"property":"geometry"},{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0.5]]]}]}]}"#, ["args", "1", "args", "1", "coordinates", "0"]),
        (#"{"op":"s_intersects","args":[{"property":"geometry"},{"bbox":[0,10,1,5]}]}"#, ["args", "1", "bbox", "3"]),
        (#"{"op":"s_intersects","args":[{"property":"kind"},{"bbox":[0,0,1,1]}]}"#, ["args", "0"]),
        (#"{"op":"=","args":[{"property":"geometry"},"x"]}"#, ["args", "0"]),
        (#"{"op":"in","args":[{"property":"kind"},[]]}"#, ["args", "1"]),
        (#"{"op":"s_intersects","args":[{"property":"geometry"},{"type":"Point","coordinates":[200,0]}]}"#, ["args", "1", "coordinates", "0"]),
        (#""kind = 'shop'""#, []),
    ])
    func invalidJSONFiltersPointAtTheirPlace(json: String, path: [String]) throws {
        #expect(throws: FieldError.self) { try Filter(json: try Self.json(json)) }
        do { _ = try Filter(json: try Self.json(json)) } catch let error as FieldError { #expect(error.path == path, "\(error)") }
    }

    @Test(arguments: ["kind = ", "kind = 'shop", "kind == 'a'", "(kind = 'a'", "kind LIKE 4", "S_WITHIN(kind, BBOX(0,0,1,1))", "displayPriority = 'x'",
                      "geometry = 1", "BBOX(0, 0, 1, 1)", "kind = 'a' AND", "rating BETWEEN 1", "S_INTERSECTS(geometry, POINT(1 95))", "kind IN ()", "kind = 'a' ;"])
    func invalidTextFiltersSayWhere(text: String) {
        #expect(throws: FieldError.self) { try Filter(text: text) }
    }

    @Test func deepNestingIsRefusedNotRecursedInto() {
        let deep = String(repeating: "NOT ", count: 200) + "kind = 'a'"
        #expect(throws: FieldError.self) { try Filter(text: deep) }
        let json = String(repeating: #"{"op":"not","args":["#, count: 200) + "true" + String(repeating: "]}", count: 200)
        #expect(throws: FieldError.self) { try Filter(json: try Self.json(json)) }
    }
}

extension Filter {
    static func like(subject: String, pattern: String) -> Filter {
        try! Filter(text: "\(subject) LIKE '\(pattern.replacingOccurrences(of: "'", with: "''"))'")
    }
}

