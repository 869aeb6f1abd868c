import MapGeometry
import MeridianAPI
import Timeline
import Tracking

extension TrackFeatureBody {
    /// The Feature of a device's track: one part a LineString, several a MultiLineString, none a null geometry.
    init(_ track: Track, deviceId: String, tolerance: Double, gap: Double, nextFrom: Instant?) {
        let lines = track.parts.map { $0.map { [$0.coordinate.longitude, $0.coordinate.latitude] } }
        let geometry: Geometry? = switch lines.count {
        case 0: nil
        case 1: .lineString(lines[0])
        default: .multiLineString(lines)
        }
        self.init(geometry: geometry, properties: .init(
            deviceId: deviceId, times: track.parts.map { $0.map(\.timestamp.rfc3339) }, fixCount: track.fixCount,
            keptCount: track.keptCount, tolerance: tolerance, gap: gap, nextFrom: nextFrom?.rfc3339))
    }
}
