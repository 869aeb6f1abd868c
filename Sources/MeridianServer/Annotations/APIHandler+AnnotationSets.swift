import MeridianHTTP
import Storage
import AnnotationIndex
import WireJSON
import Annotations
import Foundation
import HTTPTypes
import MapGeometry
import MeridianAPI
import OpenAPIRuntime
import Timeline

// Many annotations at a time: pages by cursor, the change feed with long poll, GeoJSON import/export.

extension APIHandler {
    func listAnnotations(_ input: Operations.ListAnnotations.Input) async throws -> Operations.ListAnnotations.Output {
        var query = try Self.query(bbox: input.query.bbox, kind: input.query.kind, filter: input.query.filter, lang: input.query.filterLang?.rawValue)
        query.limit = try Paging.limit(input.query.limit)
        if let cursor = input.query.cursor {
            // Any UUID continues from its place in id order (the last id seen works as well as nextCursor).
            guard let after = AnnotationID(anyUUID: cursor) else {
                throw ProblemError(.badRequest, detail: "cursor must be a UUID (the nextCursor of an earlier page, or the last id seen)", errors: [.init(parameter: "cursor", detail: "must be a UUID")])
            }
            query.after = after
        }
        let page = try await queries.page(matching: query)
        return .ok(.init(body: .json(.init(annotations: page.annotations.map(Components.Schemas.Annotation.init), nextCursor: page.next?.description))))
    }

    func listAnnotationChanges(_ input: Operations.ListAnnotationChanges.Input) async throws -> Operations.ListAnnotationChanges.Output {
        let after = try Paging.after(input.query.after)
        let limit = try Paging.limit(input.query.limit)
        let wait = try limits.wait(input.query.wait)
        var changes = try await annotations.changes(after: after, limit: limit)
        if changes.isEmpty && wait > .zero {
            let lease = try streams.enter()
            defer { lease.end() }
            let annotations = try await annotations
            try await lease.whileValidOrRefused { await annotations.waitForChanges(after: after, timeout: wait) }
            changes = try await annotations.changes(after: after, limit: limit)
        }
        let entries = changes.map { change in
            Components.Schemas.AnnotationChange(
                sequence: change.sequence, _type: .init(change.kind),
                id: change.id.description, version: change.version, at: change.at
            )
        }
        return .ok(.init(body: .json(.init(changes: entries, nextAfter: changes.last?.sequence ?? after))))
    }

    func importAnnotations(_ input: Operations.ImportAnnotations.Input) async throws -> Operations.ImportAnnotations.Output {
        // The collection's type (FeatureCollectionBody) has checked its shape and kept its members; the
        // features are read from them as the fast route reads them (a null field is absent, other members are free properties).
        let body = switch input.body {
        case .applicationGeoJson(let body): body
        case .json(let body): body
        }
        guard let features = GeoJSONFeature.features(of: .object(body.members)) else {
            throw ProblemError(.badRequest, detail: "the body is not a GeoJSON FeatureCollection")
        }
        let results = try await annotations.importFeatures(try GeoJSONImport.imported(features))
        return .ok(.init(body: .json(.init(results))))
    }

    func exportAnnotations(_ input: Operations.ExportAnnotations.Input) async throws -> Operations.ExportAnnotations.Output {
        let query = try Self.query(bbox: input.query.bbox, kind: input.query.kind, filter: input.query.filter, lang: input.query.filterLang?.rawValue)
        let page = try await queries.page(matching: query)
        let features = page.annotations.map(Components.Schemas.Feature.init)
        return .ok(.init(body: .applicationGeoJson(.init(_type: .featureCollection, features: features))))
    }

    func searchAnnotations(_ input: Operations.SearchAnnotations.Input) async throws -> Operations.SearchAnnotations.Output {
        let body = switch input.body { case .json(let body): body }
        var query = AnnotationQuery(limit: try Self.bodyLimit(body.limit, default: Paging.defaultLimit), filter: try RequestFilter.body(body.filter))
        if let cursor = body.cursor {
            guard let after = AnnotationID(anyUUID: cursor) else { throw ProblemError.invalid(pointer: "/cursor", "must be a UUID (the nextCursor of an earlier page)") }
            query.after = after
        }
        let page = try await queries.page(matching: query)
        return .ok(.init(body: .json(.init(annotations: page.annotations.map(Components.Schemas.Annotation.init), nextCursor: page.next?.description))))
    }

    func nearestAnnotations(_ input: Operations.NearestAnnotations.Input) async throws -> Operations.NearestAnnotations.Output {
        let body = switch input.body { case .json(let body): body }
        let point: Coordinate
        do { point = try Coordinate(body.point) } catch { throw error.nested(under: "point") }
        let limit = try Self.bodyLimit(body.limit, default: RequestRules.defaultNearest)
        if let maxDistance = body.maxDistance, !RequestRules.isMaxDistance(maxDistance) {
            throw ProblemError.invalid(pointer: "/maxDistance", "must be a positive number of metres")
        }
        let found = try await queries.nearest(to: point, limit: limit, maxDistance: body.maxDistance, filter: try RequestFilter.body(body.filter))
        let results = found.map { Components.Schemas.NearestResults.ResultsPayloadPayload(annotation: .init($0.annotation), distance: $0.distance) }
        return .ok(.init(body: .json(.init(results: results))))
    }

    /// A body's `limit` (``RequestRules/limit(_:default:)``), or `fallback`; 422 at `/limit` outside.
    static func bodyLimit(_ given: Int?, default fallback: Int) throws(ProblemError) -> Int {
        guard let limit = RequestRules.limit(given, default: fallback) else {
            throw ProblemError.invalid(pointer: "/limit", "must be between \(Paging.limits.lowerBound) and \(Paging.limits.upperBound), got \(given ?? fallback)")
        }
        return limit
    }

    // MARK: - Query parameters

    /// A query from `bbox`, `kind` and `filter` (in `filter-lang`); a malformed bbox or filter is 422 naming the parameter.
    static func query(bbox: String?, kind: String?, filter: String?, lang: String?) throws(ProblemError) -> AnnotationQuery {
        var query = AnnotationQuery(kind: kind)
        query.bbox = try bbox.map(Self.bbox)
        query.filter = try RequestFilter.query(filter, lang: lang)
        return query
    }

    /// A `bbox` query parameter; malformed is 422 naming it.
    static func bbox(_ text: String) throws(ProblemError) -> BoundingBox {
        do { return try BoundingBox(parsing: text) } catch {
            throw ProblemError.invalid([.init(parameter: "bbox", detail: error.message)])
        }
    }
}
