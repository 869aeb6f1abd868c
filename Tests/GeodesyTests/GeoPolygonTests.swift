import Geodesy
import MapGeometry
import Testing

@Suite struct GeoPolygonTests {
    func ring(_ points: [(Double, Double)]) -> [Coordinate] {
        points.map { Coordinate(latitude: $0.1, longitude: $0.0) }
    }

    @Test func aSquareIsValidAndContainsItsCenter() throws {
        let square = GeoPolygon(exterior: ring([(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)]))
        try square.validate()
        #expect(try square.contains(Coordinate(latitude: 0.5, longitude: 0.5)))
        #expect(try !square.contains(Coordinate(latitude: 1.5, longitude: 0.5)))
    }

    @Test func aBowTieIsRefusedWithGEOSsReason() {
        let bowTie = GeoPolygon(exterior: ring([(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)]))
        do {
            try bowTie.validate()
            Issue.record("a self-intersecting polygon was accepted")
        } catch {
            guard case .invalidGeometry(let reason) = error else { Issue.record("wrong error \(error)"); return }
            #expect(reason.contains("Self-intersection"))
        }
    }

    @Test func anOpenRingIsRefused() {
        #expect(throws: GeodesyError.self) { try GeoPolygon(exterior: ring([(0, 0), (1, 0), (1, 1), (0, 1)])).validate() }
    }
}
