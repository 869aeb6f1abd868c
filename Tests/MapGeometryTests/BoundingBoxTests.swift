import MapGeometry
import Testing

@Suite struct BoundingBoxTests {
    @Test func parsesTheQueryFormAndKnowsTheAntimeridian() throws {
        let box = try BoundingBox(parsing: "170,-20,-170,-10")
        #expect(box == BoundingBox(west: 170, south: -20, east: -170, north: -10) && box.crossesAntimeridian)
        #expect(box.contains(Coordinate(latitude: -15, longitude: 179.99)))
        #expect(box.contains(Coordinate(latitude: -15, longitude: -179.99)))
        #expect(!box.contains(Coordinate(latitude: -15, longitude: 0)))
        #expect(!box.contains(Coordinate(latitude: -5, longitude: 180)))
        #expect(try BoundingBox(parsing: "-10,-10,10,10").contains(Coordinate(latitude: 10, longitude: -10)))
        // South north of north: a box that holds nothing, not an error.
        let empty = try BoundingBox(parsing: "0,5,1,4")
        #expect(empty.isEmpty && !empty.contains(Coordinate(latitude: 4.5, longitude: 0.5)))
    }

    @Test(arguments: [
        ("1,2,3", [String]()), ("a,b,c,d", []), ("0,0,200,1", []), ("0,-91,1,1", []), ("1e1,0,1,1", []), ("0x10,0,1,1", []), (" 1,0,1,1", []),
    ])
    func refusesMalformedBoxes(text: String, path: [String]) {
        #expect(throws: FieldError.self) { try BoundingBox(parsing: text) }
        do { _ = try BoundingBox(parsing: text) } catch { #expect(error.path == path) }
    }
}
