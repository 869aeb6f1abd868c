import Annotations
import MapGeometry
import Testing
import WireJSON

@Suite struct MergePatchTests {
    let base = AnnotationContent(
        externalId: "shop-1", coordinate: Coordinate(latitude: 35.68, longitude: 139.76), title: "Shop",
        kind: "shop", properties: ["hours": .object(["mon": .string("9-17"), "tue": .string("9-17")]), "rating": .number(4)]
    )

    @Test func nullRemovesAndObjectsMerge() throws {
        let patched = try base.merging([
            "title": .null,
            "displayPriority": .number(1000),
            "properties": .object(["hours": .object(["tue": .null, "wed": .string("10-12")]), "rating": .null]),
            "coordinate": .object(["latitude": .number(35.7)]),
        ])
        #expect(patched.title == nil)
        #expect(patched.displayPriority == 1000)
        #expect(patched.properties == ["hours": .object(["mon": .string("9-17"), "wed": .string("10-12")])])
        #expect(patched.coordinate == Coordinate(latitude: 35.7, longitude: 139.76))
        #expect(patched.externalId == "shop-1")
    }

    @Test(arguments: ["id", "version", "createdAt", "updatedAt"])
    func serverFieldsAreRefused(_ field: String) {
        #expect(throws: FieldError.self) { try base.merging([field: .number(1)]) }
    }

    @Test func unknownFieldsWrongTypesAndBadValuesNameTheField() {
        func path(_ patch: [String: JSONValue]) -> [String]? {
            do { _ = try base.merging(patch); return nil } catch { return error.path }
        }
        #expect(path(["colour": .string("red")]) == ["colour"])
        #expect(path(["title": .number(3)]) == ["title"])
        #expect(path(["coordinate": .null]) == ["coordinate"])
        #expect(path(["coordinate": .object(["latitude": .number(91)])]) == ["coordinate", "latitude"])
        #expect(path(["displayPriority": .number(1001)]) == ["displayPriority"])
        #expect(path(["displayPriority": .number(1.5)]) == ["displayPriority"])
        #expect(path(["properties": .object(["blob": .string(String(repeating: "x", count: 17_000))])]) == ["properties"])
    }
}
