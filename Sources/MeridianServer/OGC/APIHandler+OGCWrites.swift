import Foundation
import MeridianAPI
import MeridianHTTP
import WireJSON

// OGC API – Features Part 4 on the collections that take writes (`annotations`): create, replace,
// merge-patch and delete features, on the annotations' identity rules (ETags, If-Match → 412,
// 410 for a deleted id, idempotency keys replayed as on /v1).

extension APIHandler {
    func createOGCItem(_ input: Operations.CreateOGCItem.Input) async throws -> Operations.CreateOGCItem.Output {
        let source = try OGCCollections.writable(input.path.collectionId.rawValue)
        let body = switch input.body {
        case .applicationGeoJson(let body): body
        case .json(let body): body
        }
        let (feature, replayed) = try await source.create(body.members, idempotencyKey: input.headers.idempotencyKey, in: try await tenants.current())
        let document = Self.document(feature, of: source)
        let location = Self.selfLink(of: document) ?? OGCRequest.root
        return .created(.init(
            headers: .init(location: location, eTag: feature.eTag ?? "", idempotentReplayed: replayed ? ._true : nil),
            body: .applicationGeoJson(document)
        ))
    }

    func replaceOGCItem(_ input: Operations.ReplaceOGCItem.Input) async throws -> Operations.ReplaceOGCItem.Output {
        let source = try OGCCollections.writable(input.path.collectionId.rawValue)
        let body = switch input.body {
        case .applicationGeoJson(let body): body
        case .json(let body): body
        }
        let feature = try await source.replace(
            input.path.featureId, with: body.members, expectedVersion: try Self.expectedVersion(input.headers.ifMatch), in: try await tenants.current())
        return .ok(.init(headers: .init(eTag: feature.eTag ?? ""), body: .applicationGeoJson(Self.document(feature, of: source))))
    }

    func patchOGCItem(_ input: Operations.PatchOGCItem.Input) async throws -> Operations.PatchOGCItem.Output {
        let source = try OGCCollections.writable(input.path.collectionId.rawValue)
        let body = switch input.body {
        case .applicationMergePatchJson(let body): body
        case .json(let body): body
        }
        let feature = try await source.patch(
            input.path.featureId, with: body.members, expectedVersion: try Self.expectedVersion(input.headers.ifMatch), in: try await tenants.current())
        return .ok(.init(headers: .init(eTag: feature.eTag ?? ""), body: .applicationGeoJson(Self.document(feature, of: source))))
    }

    func deleteOGCItem(_ input: Operations.DeleteOGCItem.Input) async throws -> Operations.DeleteOGCItem.Output {
        let source = try OGCCollections.writable(input.path.collectionId.rawValue)
        try await source.delete(input.path.featureId, expectedVersion: try Self.expectedVersion(input.headers.ifMatch), in: try await tenants.current())
        return .noContent(.init())
    }

    /// The `self` link of a feature document.
    static func selfLink(of document: JSONObjectBody) -> String? {
        guard case .array(let links)? = document.members["links"] else { return nil }
        for case .object(let link) in links where link["rel"] == .string("self") {
            if case .string(let href)? = link["href"] { return href }
        }
        return nil
    }
}
