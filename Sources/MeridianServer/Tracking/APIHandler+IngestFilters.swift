import MeridianHTTP
import MapGeometry
import MeridianAPI
import Tracking

// The tenant's ingest filters: one settings resource, in force for the next fix on every instance.

extension APIHandler {
    func getIngestFilters(_ input: Operations.GetIngestFilters.Input) async throws -> Operations.GetIngestFilters.Output {
        let filters = try await tracking.tracker.read { $0.ingestFilters }
        return .ok(.init(body: .json(.init(filters))))
    }

    func putIngestFilters(_ input: Operations.PutIngestFilters.Input) async throws -> Operations.PutIngestFilters.Output {
        let body = switch input.body { case .json(let body): body }
        let filters = IngestFilters(body)
        var errors = FieldErrors()
        filters.check(at: [], into: &errors)
        try errors.check()
        try await tracking.tracker.setIngestFilters(filters)
        return .ok(.init(body: .json(.init(filters))))
    }
}

extension IngestFilters {
    init(_ wire: Components.Schemas.IngestFilters) {
        self.init(maxHorizontalAccuracy: wire.maxHorizontalAccuracy, minDistance: wire.minDistance, minInterval: wire.minInterval, maxSpeed: wire.maxSpeed)
    }
}

extension Components.Schemas.IngestFilters {
    init(_ filters: IngestFilters) {
        self.init(maxHorizontalAccuracy: filters.maxHorizontalAccuracy, minDistance: filters.minDistance, minInterval: filters.minInterval, maxSpeed: filters.maxSpeed)
    }
}
