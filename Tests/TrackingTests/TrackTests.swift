import MapGeometry
import Testing
import Timeline
import Tracking

/// A device's track: cut at gaps and at the antimeridian, simplified, times kept beside positions.
@Suite struct TrackTests {
    private func fix(_ seconds: Int64, _ latitude: Double, _ longitude: Double) -> LocationFix {
        LocationFix(coordinate: Coordinate(latitude: latitude, longitude: longitude),
                    timestamp: Instant(microseconds: 1_800_000_000_000_000 + seconds * 1_000_000), horizontalAccuracy: 5)
    }

    private func positions(_ track: Track) -> [[[Double]]] {
        track.parts.map { $0.map { [$0.coordinate.latitude, $0.coordinate.longitude] } }
    }

    @Test func aStraightWalkIsItsEnds() throws {
        let fixes = (0..<10).map { fix(Int64($0) * 10, 0, Double($0) * 0.0001) }
        let track = try Track(fixes: fixes, tolerance: 5, gap: 3600)
        #expect(positions(track) == [[[0, 0], [0, fixes[9].coordinate.longitude]]])
        #expect(track.parts[0].map(\.timestamp) == [fixes[0].timestamp, fixes[9].timestamp])
        #expect((track.fixCount, track.keptCount) == (10, 2))
    }

    @Test func aGapLongerThanTheLimitCutsTheLine() throws {
        let fixes = [fix(0, 0, 0), fix(60, 0, 0.001), fix(60 + 3600, 0, 0.002), fix(60 + 3600 + 3601, 0, 0.003), fix(60 + 3600 + 3601 + 10, 0, 0.004)]
        let track = try Track(fixes: fixes, tolerance: 5, gap: 3600)
        // 3600 s apart is not more than the gap; 3601 s is.
        #expect(positions(track) == [[[0, 0], [0, 0.002]], [[0, 0.003], [0, 0.004]]])
        #expect(track.keptCount == 4)
    }

    @Test func aFixAloneBetweenGapsIsAPartOfItsPositionTwice() throws {
        let fixes = [fix(0, 1, 1), fix(10_000, 2, 2), fix(20_000, 3, 3), fix(20_010, 3, 3.001)]
        let track = try Track(fixes: fixes, tolerance: 5, gap: 3600)
        #expect(positions(track) == [[[1, 1], [1, 1]], [[2, 2], [2, 2]], [[3, 3], [3, 3.001]]])
        #expect(track.keptCount == 4)
    }

    @Test func noFixesIsNoParts() throws {
        let track = try Track(fixes: [], tolerance: 5, gap: 3600)
        #expect(track.parts.isEmpty && track.fixCount == 0 && track.keptCount == 0)
    }

    @Test func crossingTheAntimeridianEndsOnePartAndStartsTheNextThere() throws {
        // GeographicLib: the geodesic (10, 179.5)–(12, −179.5) crosses at latitude 11.003 815 631 590,
        // 123 790.349 m along its 246 748.795 m.
        let fixes = [fix(0, 10, 179.5), fix(1000, 12, -179.5), fix(1010, 12, -179.4)]
        let track = try Track(fixes: fixes, tolerance: 5, gap: 3600)
        #expect(track.parts.count == 2)
        let (end, start) = (track.parts[0].last!, track.parts[1].first!)
        #expect(end.coordinate.longitude == 180 && start.coordinate.longitude == -180)
        #expect(abs(end.coordinate.latitude - 11.003_815_631_590) < 1e-9 && start.coordinate.latitude == end.coordinate.latitude)
        #expect(track.parts[0].first!.coordinate == fixes[0].coordinate && track.parts[1].last!.coordinate == fixes[2].coordinate)
        let seconds = end.timestamp.seconds(since: fixes[0].timestamp)
        #expect(abs(seconds - 1000 * 123_790.349_489_044 / 246_748.795_0) < 0.01, "\(seconds)")
        #expect(start.timestamp == end.timestamp)
        #expect(track.keptCount == 3)
    }

    @Test func goingWestCrossesFromMinusToPlus180() throws {
        let track = try Track(fixes: [fix(0, -20, -170), fix(100, -10, 175)], tolerance: 5, gap: 3600)
        #expect(track.parts.map { $0.map(\.coordinate.longitude) } == [[-170, -180], [180, 175]])
        #expect(abs(track.parts[0][1].coordinate.latitude - -13.543_702_450_048) < 1e-9)
    }

    @Test func aFixOnTheMeridianIsWrittenOnTheSideItIsReachedFromAndTheLineGoesOnFromTheOtherSide() throws {
        let east = try Track(fixes: [fix(0, 0, 179.5), fix(100, 0, -180), fix(200, 0, -179.5)], tolerance: 0, gap: 3600)
        #expect(east.parts.map { $0.map(\.coordinate.longitude) } == [[179.5, 180], [-180, -179.5]])
        let west = try Track(fixes: [fix(0, 5, -179.5), fix(100, 5, 180), fix(200, 5, 179.5)], tolerance: 0, gap: 3600)
        #expect(west.parts.map { $0.map(\.coordinate.longitude) } == [[-179.5, -180], [180, 179.5]])
        // Standing on the meridian, reported as 180 and then −180: one place (simplified away), one part.
        let still = try Track(fixes: [fix(0, 10, 179.9), fix(100, 10, 180), fix(200, 10, -180)], tolerance: 0, gap: 3600)
        #expect(still.parts.map { $0.map(\.coordinate.longitude) } == [[179.9, 180]])
    }

    @Test func aCancelledTaskStopsSimplifying() async throws {
        let zigzag = (0..<300).map { fix(Int64($0), Double($0 % 2) * 0.01, Double($0) * 0.0001) }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }  // as a timed-out request's task is
            return try Track(fixes: zigzag, tolerance: 0, gap: 3600)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try Track(fixes: zigzag, tolerance: 0, gap: 3600).keptCount == 300)
    }
}
