import Foundation
import MapGeometry
import Testing
import Tracking
@testable import Storage
import Timeline

/// The storage JSON of fixes and progress is written by hand; it must read back as JSONDecoder reads it.
@Suite struct TrackingRecordTests {
    static let fix = LocationFix(coordinate: Coordinate(latitude: -33.8688, longitude: 151.2093), timestamp: Instant(microseconds: 1_767_225_600_000_001),
                                 horizontalAccuracy: 4.5, speed: 0.1 + 0.2, course: nil, altitude: -12, verticalAccuracy: 1e-7)

    @Test func fixTextReadsBackExactly() throws {
        for fix in [Self.fix, LocationFix(coordinate: Coordinate(latitude: 0, longitude: -180), timestamp: Instant(microseconds: -5), horizontalAccuracy: 0)] {
            let text = StoredFix(fix).text
            #expect(try JSONDecoder().decode(StoredFix.self, from: Data(text.utf8)).fix == fix)
            #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
        }
    }

    @Test func progressTextReadsBackExactly() throws {
        let progress = [
            SubscriptionProgress(),
            SubscriptionProgress(lastEvaluated: Self.fix, lastNotified: Self.fix, inside: true, enteredAt: Instant(microseconds: 42), dwellNotified: true),
            SubscriptionProgress(lastEvaluated: Self.fix, inside: false),
        ]
        for value in progress {
            let text = StoredProgress(value).text
            #expect(try JSONDecoder().decode(StoredProgress.self, from: Data(text.utf8)).progress == value)
        }
    }
}
