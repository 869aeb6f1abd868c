import MeridianHTTP
import HTTPTypes
import MeridianAPI

// The apps' protocols are answered by ``IngestAdapterRoutes`` before the generated handlers: every
// request to their paths ends there. These exist because the contract declares the operations.

extension APIHandler {
    func ingestOwnTracks(_ input: Operations.IngestOwnTracks.Input) async throws -> Operations.IngestOwnTracks.Output {
        throw Self.answeredByAdapter
    }

    func ingestOsmAndQuery(_ input: Operations.IngestOsmAndQuery.Input) async throws -> Operations.IngestOsmAndQuery.Output {
        throw Self.answeredByAdapter
    }

    func ingestOsmAnd(_ input: Operations.IngestOsmAnd.Input) async throws -> Operations.IngestOsmAnd.Output {
        throw Self.answeredByAdapter
    }

    func ingestOverland(_ input: Operations.IngestOverland.Input) async throws -> Operations.IngestOverland.Output {
        throw Self.answeredByAdapter
    }

    private static var answeredByAdapter: ProblemError {
        ProblemError(.internalServerError, detail: "the ingest adapters answer this route before the generated handler")
    }
}
