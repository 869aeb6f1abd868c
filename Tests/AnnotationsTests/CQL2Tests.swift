import Annotations
import Foundation
import MapGeometry
import Testing
import Timeline
import WireJSON

/// All of CQL2 beyond the basics: arithmetic and its precedence, the tokenizer's binary minus,
/// errors with their place and kind, CASEI/ACCENTI folding, every S_* (expectations derived by
/// hand from DE-9IM), every T_* on interval edges, the A_* functions.
@Suite struct CQL2Tests {
    static func feature(_ latitude: Double = 5, _ longitude: Double = 5, title: String? = "Shop", properties: [String: JSONValue] = [:]) -> Annotation {
        Annotation(
            id: UUIDv7Generator().next(),
            content: AnnotationContent(coordinate: Coordinate(latitude: latitude, longitude: longitude), title: title, kind: "shop", properties: properties),
            version: 1, createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 86_400))
    }

    static func matches(_ text: String, _ feature: Annotation = feature(), sourceLocation: SourceLocation = #_sourceLocation) throws -> Bool {
        let filter = try Filter(text: text)
        // Written as CQL2-JSON and read back, it is the same filter.
        #expect(try Filter(json: filter.json) == filter, "\(text) → \(filter.json.canonicalText)", sourceLocation: sourceLocation)
        return filter.matches(feature)
    }

    @Test(arguments: [
        ("n = 1038290-21", 1038269.0), ("n = 1038280+8", 1038288), ("n = 2+3*4^2", 50), ("n = 2^3^2", 512), ("n = 7 div 2", 3),
        ("n = -7 div 2", -3), ("n = 7 % 3", 1), ("n = -7 % 3", -1), ("n = -1-1", -2), ("n = 10 - -2", 12), ("(1+2)*3 = n", 9),
        ("n = 20/10-2", 0), ("n = -(2+3)", -5), ("n BETWEEN 4000000/4 AND (3*(900000+100000))", 3_000_000), ("n IN (1+1, 4)", 2), ("n = 3 -1", 2),
    ])
    func arithmeticFollowsTheGrammarsPrecedence(_ text: String, _ n: Double) throws {
        #expect(try Self.matches(text, Self.feature(properties: ["n": .number(n)])), "\(text) with n = \(n)")
        #expect(try !Self.matches(text, Self.feature(properties: ["n": .number(n + 1)])), "\(text) with n = \(n + 1)")
    }

    @Test func aMinusWithoutSpacesIsArithmeticAfterAnOperand() throws {
        let json = try FilterTests.json(#"{"op":"=","args":[{"property":"n"},{"op":"-","args":[1038290,21]}]}"#)
        #expect(try Filter(text: "n=1038290-21") == Filter(json: json))
        #expect(try Filter(text: "n = -21") == Filter(json: FilterTests.json(#"{"op":"=","args":[{"property":"n"},-21]}"#)))
        // Division by zero is unknown, not an error.
        #expect(try !Self.matches("n = 1/0", Self.feature(properties: ["n": .number(1)])))
        #expect(try !Self.matches("NOT n = 1/0", Self.feature(properties: ["n": .number(1)])))
    }

    @Test(arguments: [
        ("n = 1 +", FilterError.Kind.syntax, 8), ("(n = 1", .syntax, 7), ("n = 'a", .syntax, 5), ("FOO(n) = 1", .invalid, 1),
        ("title = DATE('2021-02-30')", .invalid, 9), ("title + 1 = 2", .invalid, 7), ("CASEI(displayPriority) = 'a'", .invalid, 1),
        ("S_INTERSECTS(title, POINT(0 0))", .invalid, 1), ("T_AFTER(title, DATE('2021-01-01'))", .invalid, 1), ("geometry = 1", .invalid, 1),
        ("n LIKE 4", .invalid, 8), ("S_INTERSECTS(geometry, LINESTRING(0 0))", .invalid, 34), ("kind = TIMESTAMP('2021-01-01T00:00:00Z')", .invalid, 1),
    ])
    func errorsSayWhereAndWhetherTheFilterParsed(_ text: String, _ kind: FilterError.Kind, _ character: Int) {
        do {
            _ = try Filter.parse(text: text)
            Issue.record("\(text) was read")
        } catch {
            #expect(error.kind == kind, "\(text): \(error)")
            #expect(error.field.message.hasPrefix("at character \(character):"), "\(text): \(error)")
        }
    }

    @Test func jsonErrorsSayTheirPathAndKind() throws {
        let unknown = #"{"op":"t_meetings","args":[{"property":"a"},{"property":"b"}]}"#
        #expect(throws: FilterError(.invalid, FieldError(path: ["op"], message: "t_meetings is not a supported predicate (comparisons, like, in, between, isNull, and, or, not, S_*, T_*, A_*)"))) {
            try Filter.parse(json: FilterTests.json(unknown))
        }
        let short = try FilterTests.json(#"{"op":"and","args":[true]}"#)
        do { _ = try Filter.parse(json: short) } catch { #expect(error.kind == .syntax && error.field.path == ["args"]) }
        let number = try FilterTests.json(#"{"op":"=","args":[{"property":"n"},{"op":"casei","args":[3]}]}"#)
        do { _ = try Filter.parse(json: number) } catch {
            #expect(error.kind == .invalid && error.field.path == ["args", "1", "args", "0"], "\(error)")
        }
    }

    @Test func caseAndAccentFoldingFollowUnicode() throws {
        #expect(TextFolding.casei.apply("Straße") == "strasse")
        #expect(TextFolding.casei.apply("KØBENHAVN") == "københavn")
        // The Turkish dotless ı is its own letter, and İ folds to i with a dot above.
        #expect(TextFolding.casei.apply("ı") == "ı")
        #expect(TextFolding.casei.apply("İ").unicodeScalars.map(\.value) == [0x69, 0x307])
        #expect(TextFolding.accenti.apply(TextFolding.casei.apply("İ")) == "i")
        #expect(TextFolding.accenti.apply("Chișinău") == "Chisinau")
        #expect(TextFolding.accenti.apply("e\u{301}") == "e" && TextFolding.accenti.apply("\u{e9}") == "e")
        #expect(TextFolding.accenti.apply("Ærø") == "Ærø", "no decomposition, nothing to drop")
        #expect(TextFolding.casei.apply("ABC") == "abc" && TextFolding.accenti.apply("ABC") == "ABC")
        let place = Self.feature(title: "Chișinău")
        #expect(try Self.matches("CASEI(title) = CASEI('CHIȘINĂU')", place))
        #expect(try !Self.matches("CASEI(title) = CASEI('CHISINAU')", place))
        #expect(try Self.matches("ACCENTI(CASEI(title)) = ACCENTI(CASEI('CHISINAU'))", place))
        #expect(try Self.matches("ACCENTI(CASEI(title)) LIKE ACCENTI(CASEI('chis%'))", place))
        #expect(try Self.matches("title LIKE ACCENTI('Chi%')", place))
        #expect(try Self.matches("CASEI(title) IN (CASEI('x'), CASEI('chișinău'))", place))
        #expect(try Self.matches("CASEI(title) = CASEI('STRASSE')", Self.feature(title: "Straße")))
    }

    /// The fast paths of the folding agree with Foundation's full folding and NFD on every
    /// scalar of the first two planes, alone and between ASCII letters; except where Foundation
    /// (ICU) departs from Unicode's CaseFolding.txt, which the fast path follows: it lowercases the
    /// uppercase Cherokee letters (which fold to themselves), and it predates Unicode 16's letters.
    @Test func foldingAgreesWithFoundationOnEveryScalar() {
        func accentless(_ text: String) -> String {
            String(String.UnicodeScalarView(text.decomposedStringWithCanonicalMapping.unicodeScalars.filter {
                ![.nonspacingMark, .spacingMark, .enclosingMark].contains($0.properties.generalCategory)
            }))
        }
        var differences: [String] = []
        for value in UInt32(0x80)..<0x20000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let icuDeparts = (0x13A0...0x13F5).contains(value) || (scalar.properties.age.map { $0.major >= 16 } ?? false)
            for text in [String(scalar), "Ab\(scalar)Z"] {
                let casei = text.folding(options: .caseInsensitive, locale: nil)
                if !icuDeparts, TextFolding.casei.apply(text) != casei { differences.append("casei U+\(String(value, radix: 16))") }
                if TextFolding.accenti.apply(text) != accentless(text) { differences.append("accenti U+\(String(value, radix: 16))") }
            }
        }
        #expect(differences.isEmpty, "\(differences.count): \(differences.prefix(20))")
    }

    /// A point at (5, 5) against each geometry; the DE-9IM answer by hand: the point's interior
    /// is itself, its boundary empty.
    @Test(arguments: [
        ("POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))", 5.0, 5.0, ["s_intersects", "s_within"]),
        ("POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))", 5, 0, ["s_intersects", "s_touches"]),
        ("POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))", 5, 20, ["s_disjoint"]),
        ("LINESTRING(0 0, 10 10)", 5, 5, ["s_intersects", "s_within"]),
        ("LINESTRING(0 0, 10 10)", 0, 0, ["s_intersects", "s_touches"]),
        ("LINESTRING(0 0, 10 10, 0 0)", 0, 0, ["s_intersects", "s_within"]),
        ("POINT(5 5)", 5, 5, ["s_intersects", "s_equals", "s_within", "s_contains"]),
        ("MULTIPOINT((5 5), (6 6))", 5, 5, ["s_intersects", "s_within"]),
        ("MULTILINESTRING((0 0, 5 5), (5 5, 10 0))", 5, 5, ["s_intersects", "s_within"]),
        ("MULTILINESTRING((0 0, 5 5), (5 5, 10 0))", 0, 0, ["s_intersects", "s_touches"]),
        ("BBOX(170, -10, -170, 10)", 175, 0, ["s_intersects", "s_within"]),
        ("BBOX(170, -10, -170, 10)", -175, 0, ["s_intersects", "s_within"]),
        ("BBOX(170, -10, -170, 10)", 0, 0, ["s_disjoint"]),
        ("GEOMETRYCOLLECTION(POINT(5 5), LINESTRING(0 0, 1 1))", 5, 5, ["s_intersects", "s_within"]),
        ("GEOMETRYCOLLECTION(POINT(1 1), LINESTRING(0 0, 1 1))", 5, 5, ["s_disjoint"]),
    ])
    func everySpatialFunctionOnAPoint(_ wkt: String, _ longitude: Double, _ latitude: Double, _ holding: [String]) throws {
        let point = Self.feature(latitude, longitude)
        for predicate in Filter.SpatialPredicate.allCases {
            let expected = holding.contains(predicate.rawValue)
            #expect(try Self.matches("\(predicate.rawValue)(geometry, \(wkt))", point) == expected, "\(predicate.rawValue) (\(longitude) \(latitude)) \(wkt)")
        }
    }

    @Test(arguments: [
        ("S_OVERLAPS(POLYGON((0 0, 2 0, 2 2, 0 2, 0 0)), POLYGON((1 1, 3 1, 3 3, 1 3, 1 1)))", true),
        ("S_OVERLAPS(POLYGON((0 0, 2 0, 2 2, 0 2, 0 0)), POLYGON((0.5 0.5, 1 0.5, 1 1, 0.5 1, 0.5 0.5)))", false),
        ("S_CROSSES(LINESTRING(0 0, 2 2), LINESTRING(0 2, 2 0))", true),
        ("S_CROSSES(LINESTRING(0 0, 2 2), LINESTRING(2 2, 3 3))", false),
        ("S_TOUCHES(POLYGON((0 0, 1 0, 1 1, 0 1, 0 0)), POLYGON((1 0, 2 0, 2 1, 1 1, 1 0)))", true),
        ("S_EQUALS(POLYGON((0 0, 1 0, 1 1, 0 1, 0 0)), POLYGON((1 0, 1 1, 0 1, 0 0, 1 0)))", true),
        ("S_WITHIN(LINESTRING(0.5 0.5, 0.6 0.6), POLYGON((0 0, 1 0, 1 1, 0 1, 0 0)))", true),
        ("S_CONTAINS(POLYGON((0 0, 1 0, 1 1, 0 1, 0 0)), LINESTRING(0.5 0.5, 0.6 0.6))", true),
        ("S_DISJOINT(BBOX(0, 0, 1, 1), BBOX(2, 2, 3, 3))", true),
        ("S_INTERSECTS(BBOX(170, -10, -170, 10), POINT(-175 0))", true),
        ("S_INTERSECTS(BBOX(170, -10, -170, 10), POINT(0 0))", false),
    ])
    func literalsAgainstLiteralsAreDecidedByGEOS(_ text: String, _ expected: Bool) throws {
        #expect(try Self.matches(text) == expected, "\(text)")
    }

    @Test func theIndexFirstCutKnowsDisjointHoldsAwayFromTheLiteral() throws {
        let disjoint = try Filter(text: "S_DISJOINT(geometry, BBOX(0, 0, 1, 1))")
        #expect(disjoint.requiredBounds == nil && disjoint.readsOnlyThePoint)
        #expect(!disjoint.admits(Coordinate(latitude: 0.5, longitude: 0.5)) && disjoint.admits(Coordinate(latitude: 5, longitude: 5)))
        let touches = try Filter(text: "S_TOUCHES(geometry, POLYGON((0 0, 2 0, 2 2, 0 2, 0 0))) AND kind = 'shop'")
        #expect(touches.requiredBounds == BoundingBox(west: 0, south: 0, east: 2, north: 2) && !touches.readsOnlyThePoint)
    }

    static let span: [String: JSONValue] = ["start": .string("2020-01-01T00:00:00Z"), "end": .string("2020-12-31T00:00:00Z"), "date": .string("2021-04-16")]

    /// The span is [2020-01-01, 2020-12-31]; each row names the functions that hold against the other period.
    @Test(arguments: [
        ("interval('2020-12-31T00:00:00Z','..')", ["t_meets", "t_intersects"]),
        ("interval('..','2020-01-01T00:00:00Z')", ["t_metBy", "t_intersects"]),
        ("interval('2020-06-01T00:00:00Z','2021-06-01T00:00:00Z')", ["t_overlaps", "t_intersects"]),
        ("interval('2019-06-01T00:00:00Z','2020-06-01T00:00:00Z')", ["t_overlappedBy", "t_intersects"]),
        ("interval('..','..')", ["t_during", "t_intersects"]),
        ("interval('2020-01-01T00:00:00Z','2020-12-31T00:00:00Z')", ["t_equals", "t_intersects"]),
        ("interval('2020-01-01T00:00:00Z','2021-01-01T00:00:00Z')", ["t_starts", "t_intersects"]),
        ("interval('2020-01-01T00:00:00Z','2020-06-01T00:00:00Z')", ["t_startedBy", "t_intersects"]),
        ("interval('2019-01-01T00:00:00Z','2020-12-31T00:00:00Z')", ["t_finishes", "t_intersects"]),
        ("interval('2020-06-01T00:00:00Z','2020-12-31T00:00:00Z')", ["t_finishedBy", "t_intersects"]),
        ("interval('2020-03-01T00:00:00Z','2020-04-01T00:00:00Z')", ["t_contains", "t_intersects"]),
        ("timestamp('2020-12-31T00:00:00.000001Z')", ["t_before", "t_disjoint"]),
        ("timestamp('2019-12-31T23:59:59.999999Z')", ["t_after", "t_disjoint"]),
        ("date('2020-06-01')", ["t_contains", "t_intersects"]),
    ])
    func everyTemporalFunctionOnIntervalEdges(_ other: String, _ holding: [String]) throws {
        let feature = Self.feature(properties: Self.span)
        for predicate in Filter.TemporalPredicate.allCases {
            let expected = holding.contains(predicate.rawValue)
            #expect(try Self.matches("\(predicate.rawValue)(interval(start, end), \(other))", feature) == expected, "\(predicate.rawValue) \(other)")
        }
    }

    @Test func datesAndTimestampsReadStringsAndTheBuiltInTimes() throws {
        let feature = Self.feature(properties: Self.span)
        #expect(try Self.matches("\"date\" = DATE('2021-04-16') AND \"date\" < DATE('2021-04-17') AND start < TIMESTAMP('2020-01-01T00:00:01Z')", feature))
        #expect(try Self.matches("T_EQUALS(\"date\", DATE('2021-04-16')) AND T_DURING(start, INTERVAL('2019-01-01', '2021-01-01'))", feature))
        #expect(try Self.matches("createdAt = TIMESTAMP('1970-01-01T00:00:00Z') AND T_BEFORE(createdAt, updatedAt)", feature))
        #expect(try Self.matches("T_AFTER(updatedAt, DATE('1970-01-01')) AND createdAt < '1970-01-01T00:00:01Z'", feature))
        // A missing end is unknown, and so is its negation.
        #expect(try !Self.matches("T_INTERSECTS(INTERVAL(start, missing), DATE('2020-06-01'))", feature))
        #expect(try !Self.matches("NOT T_INTERSECTS(INTERVAL(start, missing), DATE('2020-06-01'))", feature))
        #expect(try !Self.matches("start = DATE('2020-01-01') OR \"date\" = TIMESTAMP('2021-04-16T00:00:00Z')", Self.feature(properties: ["start": .string("not a time")])))
    }

    @Test func arrayFunctionsCompareElementsAsEqualsDoes() throws {
        let tagged = Self.feature(properties: ["tags": .array([.string("a"), .string("b"), .string("c")]), "other": .array([.string("c"), .number(1)])])
        #expect(try Self.matches("A_CONTAINS(tags, ('a', 'c'))", tagged) && !Self.matches("A_CONTAINS(tags, ('a', 'z'))", tagged))
        #expect(try Self.matches("A_CONTAINEDBY(tags, ('a', 'b', 'c', 'd'))", tagged) && !Self.matches("A_CONTAINEDBY(tags, ('a', 'b'))", tagged))
        #expect(try Self.matches("A_OVERLAPS(tags, ('z', 'c'))", tagged) && !Self.matches("A_OVERLAPS(tags, ('z'))", tagged))
        #expect(try Self.matches("A_EQUALS(tags, ('a', 'b', 'c'))", tagged) && !Self.matches("A_EQUALS(tags, ('a', 'b'))", tagged))
        #expect(try Self.matches("A_OVERLAPS(tags, other) AND NOT A_CONTAINS(tags, other)", tagged))
        #expect(try !Self.matches("A_CONTAINS(missing, ('a'))", tagged) && !Self.matches("NOT A_CONTAINS(missing, ('a'))", tagged))
        let json = try FilterTests.json(#"{"op":"a_contains","args":[{"property":"tags"},["a","c"]]}"#)
        #expect(try Filter(json: json) == Filter(text: "A_CONTAINS(tags, ('a', 'c'))"))
    }

    @Test func aFreePropertyNamedLikeAFieldIsReachedThroughProperties() throws {
        let shadow = Self.feature(properties: ["kind": .string("free"), "rating": .number(4)])
        #expect(try Self.matches("kind = 'shop' AND properties.kind = 'free' AND rating = 4", shadow))
        #expect(try Self.matches("title = nameOf OR title <> 'x'", shadow), "property-property, one missing: the OR's other side decides")
        #expect(try Self.matches("displayPriority - 500 = rating - 4", shadow))
    }
}
