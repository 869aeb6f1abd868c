import HTTPTypes
import MeridianHTTP
import MeridianAPI
import OpenAPIRuntime
import Timeline
import Tracking

// Reports of a device's stops and trips, from its stored fixes.

extension APIHandler {
    func listStops(_ input: Operations.ListStops.Input) async throws -> Operations.ListStops.Output {
        let query = input.query
        let deviceId = try Self.deviceID(input.path.deviceId)
        let (from, to, rule, limit) = try Self.stayQuery(query.from, query.to, query.radius, query.minimumDuration, query.limit)
        let segmenter = try await StaySegmenter.read(
            rule: rule, from: from, to: to, fixes: { try await tracking.tracker.log.fixes(deviceId: deviceId, from: $0, to: to, limit: $1) },
            until: { $0.stops.count > limit })
        let stops = Array(segmenter.stops.prefix(limit))
        let next = segmenter.stops.count > limit ? segmenter.stops[limit].arrival : nil
        if Self.wantsCSV(query.format?.rawValue, input.headers.accept) { return .ok(.init(body: .csv(HTTPBody(StayCSV.stops(stops))))) }
        return .ok(.init(body: .json(.init(stops: stops.map(Components.Schemas.Stop.init), nextFrom: next?.rfc3339))))
    }

    func listTrips(_ input: Operations.ListTrips.Input) async throws -> Operations.ListTrips.Output {
        let query = input.query
        let deviceId = try Self.deviceID(input.path.deviceId)
        let (from, to, rule, limit) = try Self.stayQuery(query.from, query.to, query.radius, query.minimumDuration, query.limit)
        let segmenter = try await StaySegmenter.read(
            rule: rule, from: from, to: to, fixes: { try await tracking.tracker.log.fixes(deviceId: deviceId, from: $0, to: to, limit: $1) },
            until: { $0.trips.count > limit })
        let trips = Array(segmenter.trips.prefix(limit))
        let next = segmenter.trips.count > limit ? segmenter.trips[limit].startStopArrival : nil
        if Self.wantsCSV(query.format?.rawValue, input.headers.accept) { return .ok(.init(body: .csv(HTTPBody(StayCSV.trips(trips))))) }
        return .ok(.init(body: .json(.init(trips: trips.map(Components.Schemas.Trip.init), nextFrom: next?.rfc3339))))
    }

    /// The range, the rule and the page size of a stops or trips request.
    static func stayQuery(
        _ from: String?, _ to: String?, _ radius: Double?, _ minimumDuration: Double?, _ limit: Int?
    ) throws(ProblemError) -> (Instant?, Instant?, StayRule, Int) {
        let rule = StayRule(
            radius: try Paging.check(radius ?? StayRule.defaultRadius, parameter: "radius", in: StayRule.radii),
            minimumDuration: try Paging.check(minimumDuration ?? StayRule.defaultMinimumDuration, parameter: "minimumDuration", in: StayRule.minimumDurations))
        return (try time(from, parameter: "from"), try time(to, parameter: "to"), rule, try Paging.limit(limit))
    }

    /// Whether a report is asked for as CSV: `format=csv`, or without `format` an `Accept` whose
    /// first choice is `text/csv`.
    static func wantsCSV<T: AcceptableProtocol>(_ format: String?, _ accept: [AcceptHeaderContentType<T>]) -> Bool {
        if let format { return format == "csv" }
        return accept.sortedByQuality().first?.contentType.rawValue == "text/csv"
    }
}
