import MeridianHTTP
import MapGeometry
import MeridianAPI
import Timeline
import Tracking

// The tenant's retention: its own periods over the server's defaults, and what was deleted so far.

extension APIHandler {
    func getRetention(_ input: Operations.GetRetention.Input) async throws -> Operations.GetRetention.Output {
        .ok(.init(body: .json(try await retention())))
    }

    func putRetention(_ input: Operations.PutRetention.Input) async throws -> Operations.PutRetention.Output {
        let body = switch input.body { case .json(let body): body }
        var errors = FieldErrors()
        for (value, field) in [(body.keepFixes, "keepFixes"), (body.keepEvents, "keepEvents")] {
            guard let value, !(1...RetentionPolicy.longest).contains(value) else { continue }
            errors.record(at: [field], "must be 1…\(RetentionPolicy.longest) seconds, or null for the server's default")
        }
        try errors.check()
        try await tenants.retention().setOverrides(RetentionPolicy(keepFixes: body.keepFixes, keepEvents: body.keepEvents))
        return .ok(.init(body: .json(try await retention())))
    }

    /// The caller's settings, the server's defaults and the marks, as the contract's `Retention`.
    private func retention() async throws -> Components.Schemas.Retention {
        let store = try tenants.retention()
        let (own, marks, defaults) = (try await store.overrides(), try await store.marks(), tenants.retentionDefaults)
        return .init(
            keepFixes: own.keepFixes, keepEvents: own.keepEvents, defaultKeepFixes: defaults.keepFixes, defaultKeepEvents: defaults.keepEvents,
            firstAvailableSequence: marks.firstAvailableSequence, fixesDeletedBefore: marks.fixesBefore?.rfc3339)
    }
}
