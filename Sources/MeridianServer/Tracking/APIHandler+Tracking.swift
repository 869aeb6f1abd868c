import MeridianHTTP
import Access
import Foundation
import HTTPTypes
import MapGeometry
import MeridianAPI
import OpenAPIRuntime
import Tracking
import Timeline

// Location feeds: ingest, a device's state, its history.

extension APIHandler {
    func postLocations(_ input: Operations.PostLocations.Input) async throws -> Operations.PostLocations.Output {
        let deviceId = try Self.deviceID(input.path.deviceId)
        let body = switch input.body { case .json(let body): body }
        guard body.locations.count <= RequestRules.maxFixesPerRequest else {
            throw ProblemError.invalid(pointer: "/locations", "holds \(body.locations.count) fixes; at most \(RequestRules.maxFixesPerRequest) per request")
        }
        var unreadable = FieldErrors()
        var invalid: [ProblemDetails.FieldError] = []
        var fixes: [LocationFix] = []
        fixes.reserveCapacity(body.locations.count)
        for (index, wire) in body.locations.enumerated() {
            if let fix = LocationFix(wire, at: ["locations", String(index)]) {
                if let problem = LocationFix.problem(withAttributes: fix.attributes) {
                    invalid.append(.init(pointer: "/locations/\(index)/attributes", detail: problem))
                }
                fixes.append(fix)
            } else {
                unreadable.record(at: ["locations", String(index), "timestamp"], "must be an RFC 3339 date-time such as 2026-11-23T08:15:30.123Z")
            }
        }
        if !unreadable.isEmpty {
            // Unreadable input is 400, not 422: the body is not what the contract describes.
            let subject = unreadable.total == 1 ? "\(JSONPointer.make(unreadable.errors[0].path)) is" : "\(unreadable.total) timestamps are"
            throw ProblemError(.badRequest, detail: "\(subject) not an RFC 3339 date-time", errors: ProblemMapping.fields(unreadable))
        }
        if !invalid.isEmpty { throw ProblemError.invalid(invalid, several: "fixes' attributes are invalid") }
        let result = try await Self.ingest(fixes, deviceId: deviceId, tracking: tracking, metrics: metrics)
        return .ok(.init(body: .json(.init(result))))
    }

    /// Ingests a device's batch (committed before this returns) and counts the fixes stored and
    /// those the ingest filters dropped; the handler and the fast route (``IngestRoute``) both come here.
    static func ingest(_ fixes: [LocationFix], deviceId: String, tracking: TrackingHub, metrics: ServerMetrics) async throws -> Tracker.IngestResult {
        let result = try await tracking.tracker.ingest(deviceId: deviceId, fixes: fixes)
        let tenant = try RequestScope.current().tenant.description
        var stored = 0
        for fix in result.results {
            switch fix.status {
            case .accepted, .late: stored += 1
            case .filtered(let rule): metrics.fixFiltered(by: rule.rawValue, tenant: tenant)
            case .duplicate, .rejected: break
            }
        }
        metrics.fixesIngested(stored, tenant: tenant)
        return result
    }

    func listLocations(_ input: Operations.ListLocations.Input) async throws -> Operations.ListLocations.Output {
        let deviceId = try Self.deviceID(input.path.deviceId)
        let from = try Self.time(input.query.from, parameter: "from")
        let to = try Self.time(input.query.to, parameter: "to")
        let limit = try Paging.limit(input.query.limit)
        var fixes = try await tracking.tracker.log.fixes(deviceId: deviceId, from: from, to: to, limit: limit + 1)
        var next: String?
        if fixes.count > limit {
            fixes.removeLast()
            next = fixes.last.map { Instant(microseconds: $0.timestamp.microseconds + 1).rfc3339 }
        }
        return .ok(.init(body: .json(.init(locations: fixes.map(Components.Schemas.Fix.init), nextFrom: next))))
    }

    // MARK: - Parameters

    static func deviceID(_ text: String) throws(ProblemError) -> String {
        try DeviceIdentifier.checked(text, parameter: "deviceId")
    }

    static func time(_ text: String?, parameter: String) throws(ProblemError) -> Instant? {
        guard let text else { return nil }
        guard let time = Instant(rfc3339: text) else {
            throw ProblemError(.badRequest, detail: "\(parameter) is not an RFC 3339 date-time", errors: [.init(parameter: parameter, detail: "must be an RFC 3339 date-time")])
        }
        return time
    }
}
