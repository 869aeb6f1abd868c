import HTTPTypes
import MeridianHTTP
import MeridianAPI
import Timeline
import Tracking

// A device's track for a map.

extension APIHandler {
    func getTrack(_ input: Operations.GetTrack.Input) async throws -> Operations.GetTrack.Output {
        let deviceId = try Self.deviceID(input.path.deviceId)
        let from = try Self.time(input.query.from, parameter: "from")
        let to = try Self.time(input.query.to, parameter: "to")
        let tolerance = try Paging.check(input.query.tolerance ?? Track.defaultTolerance, parameter: "tolerance", in: Self.tolerances)
        let gap = try Paging.check(input.query.gap ?? Track.defaultGap, parameter: "gap", in: Self.gaps)
        let limit = try Paging.check(input.query.limit ?? Self.trackFixes.upperBound, parameter: "limit", in: Self.trackFixes)
        guard try await tracking.tracker.read({ $0.devices[deviceId] != nil }) else {
            throw ProblemError(.notFound, detail: "no fix of device \(deviceId) was ever accepted")
        }
        var fixes = try await tracking.tracker.log.fixes(deviceId: deviceId, from: from, to: to, limit: limit + 1)
        var next: Instant?
        if fixes.count > limit {
            fixes.removeLast()
            next = fixes.last.map { Instant(microseconds: $0.timestamp.microseconds + 1) }
        }
        let track = try Track(fixes: fixes, tolerance: tolerance, gap: gap)
        return .ok(.init(body: .applicationGeoJson(TrackFeatureBody(track, deviceId: deviceId, tolerance: tolerance, gap: gap, nextFrom: next))))
    }

    /// Metres a track's `tolerance` may be.
    static let tolerances = 0.0...1_000_000
    /// Seconds a track's `gap` may be.
    static let gaps = 0.0...10_000_000_000
    /// Fixes one track reads (`limit`; the default is the most).
    static let trackFixes = 1...10_000
}
