import MeridianHTTP
import Storage
import Annotations
import Foundation
import HTTPTypes
import MapGeometry
import MeridianAPI
import OpenAPIRuntime
import Timeline
import WireJSON

// One annotation at a time: create, read, merge-patch, upsert by external id, delete.
// Conditions: ETag is `"<version>"`; If-Match → 412 on another version; If-None-Match → 304.

extension APIHandler {
    func createAnnotation(_ input: Operations.CreateAnnotation.Input) async throws -> Operations.CreateAnnotation.Output {
        let body = switch input.body { case .json(let body): body }
        let content = try AnnotationContent(body)
        let key = try input.headers.idempotencyKey.map { key throws(ProblemError) in
            guard (1...IdempotencyKey.maxLength).contains(key.unicodeScalars.count) else {  // code points, as the contract's maxLength counts
                throw ProblemError.invalid([.init(parameter: "Idempotency-Key", detail: "must be 1 to \(IdempotencyKey.maxLength) characters")])
            }
            return IdempotencyKey(key: key, fingerprint: content.fingerprint)
        }
        let tenant = try await tenants.current()
        let (annotation, replayed) = try await tenant.keysInFlight.holding(key?.key) {
            try await tenant.annotations.create(content, idempotencyKey: key)
        }
        return .created(.init(
            headers: .init(location: annotation.location, eTag: annotation.eTag, idempotentReplayed: replayed ? ._true : nil),
            body: .json(.init(annotation))
        ))
    }

    func getAnnotation(_ input: Operations.GetAnnotation.Input) async throws -> Operations.GetAnnotation.Output {
        let annotation = try await annotations.annotation(try Self.annotationID(input.path.id))
        if let condition = input.headers.ifNoneMatch, EntityTagCondition(condition)?.matches(version: annotation.version) == true {
            return .notModified(.init(headers: .init(eTag: annotation.eTag)))
        }
        return .ok(.init(headers: .init(eTag: annotation.eTag), body: .json(.init(annotation))))
    }

    func patchAnnotation(_ input: Operations.PatchAnnotation.Input) async throws -> Operations.PatchAnnotation.Output {
        let id = try Self.annotationID(input.path.id)
        // The patch's type (AnnotationMergePatch) has checked its members' types and kept its nulls (removals).
        let patch = switch input.body {
        case .applicationMergePatchJson(let body): body.members
        case .json(let body): body.members
        }
        let annotation = try await annotations.update(id, expectedVersion: try Self.expectedVersion(input.headers.ifMatch)) { content in
            try content.merging(patch)
        }
        return .ok(.init(headers: .init(eTag: annotation.eTag), body: .json(.init(annotation))))
    }

    func putAnnotationByExternalId(_ input: Operations.PutAnnotationByExternalId.Input) async throws -> Operations.PutAnnotationByExternalId.Output {
        let body = switch input.body { case .json(let body): body }
        let externalId = input.path.externalId
        let content = try AnnotationContent(body, externalId: externalId)  // the path's id obeys the body's rules
        let (annotation, status) = try await annotations.upsert(
            externalId: externalId, content, expectedVersion: try Self.expectedVersion(input.headers.ifMatch)
        )
        if status == .created {
            return .created(.init(headers: .init(location: annotation.location, eTag: annotation.eTag), body: .json(.init(annotation))))
        }
        return .ok(.init(headers: .init(eTag: annotation.eTag), body: .json(.init(annotation))))
    }

    func deleteAnnotation(_ input: Operations.DeleteAnnotation.Input) async throws -> Operations.DeleteAnnotation.Output {
        try await annotations.delete(try Self.annotationID(input.path.id), expectedVersion: try Self.expectedVersion(input.headers.ifMatch))
        return .noContent(.init())
    }

    // MARK: - Shared

    /// The id of a path: any UUID (one that is not version 7 names no annotation, so it is 404);
    /// anything else is 400 naming the parameter.
    static func annotationID(_ text: String) throws(ProblemError) -> AnnotationID {
        guard let id = AnnotationID(anyUUID: text) else {
            throw ProblemError(.badRequest, detail: "id is not an annotation id", errors: [.init(parameter: "id", detail: "must be a UUID, got \"\(text)\"")])
        }
        return id
    }

    /// What `If-Match` demands; no condition without the header.
    static func expectedVersion(_ ifMatch: String?) throws(ProblemError) -> VersionCondition {
        // Empty (which HTTP tooling sends for a header set to nothing) is no condition.
        guard let ifMatch, !ifMatch.allSatisfy({ $0 == " " || $0 == "\t" }) else { return .none }
        guard let condition = EntityTagCondition(ifMatch) else {
            throw ProblemError(.badRequest, detail: "If-Match must be * or a list of entity tags such as \"3\"",
                               errors: [.init(parameter: "If-Match", detail: "must be * or a list of entity tags such as \"3\"")])
        }
        return condition.versionCondition
    }
}
