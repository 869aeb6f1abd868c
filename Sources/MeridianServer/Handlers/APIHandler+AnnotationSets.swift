import Annotations
import Foundation
import HTTPTypes
import MapGeometry
import MeridianAPI
import OpenAPIRuntime

// Many annotations at a time: pages by cursor, the change feed with long poll, GeoJSON import/export.

extension APIHandler {
    func listAnnotations(_ input: Operations.ListAnnotations.Input) async throws -> Operations.ListAnnotations.Output {
        var query = try Self.query(bbox: input.query.bbox, kind: input.query.kind)
        query.limit = try Self.check(input.query.limit ?? 100, parameter: "limit", in: 1...1000)
        if let cursor = input.query.cursor {
            guard let after = AnnotationID(cursor) else {
                throw ProblemError(.badRequest, detail: "cursor is not one this server issued", errors: [.init(parameter: "cursor", detail: "must be a nextCursor of an earlier page")])
            }
            query.after = after
        }
        let page = try await annotations.annotations(matching: query)
        return .ok(.init(body: .json(.init(annotations: page.annotations.map(Components.Schemas.Annotation.init), nextCursor: page.next?.description))))
    }

    func listAnnotationChanges(_ input: Operations.ListAnnotationChanges.Input) async throws -> Operations.ListAnnotationChanges.Output {
        let after = try Self.check(input.query.after ?? 0, parameter: "after", in: 0...Int64.max)
        let limit = try Self.check(input.query.limit ?? 100, parameter: "limit", in: 1...1000)
        let wait = try Self.check(input.query.wait ?? 0, parameter: "wait", in: 0...60)
        var changes = try await annotations.changes(after: after, limit: limit)
        if changes.isEmpty && wait > 0 {
            await annotations.waitForChanges(after: after, timeout: .milliseconds(Int64(wait * 1000)))
            changes = try await annotations.changes(after: after, limit: limit)
        }
        let entries = changes.map { change in
            Components.Schemas.AnnotationChange(
                sequence: change.sequence, _type: .init(rawValue: change.kind.rawValue) ?? .updated,
                id: change.id.description, version: change.version, at: change.at
            )
        }
        return .ok(.init(body: .json(.init(changes: entries, nextAfter: changes.last?.sequence ?? after))))
    }

    func importAnnotations(_ input: Operations.ImportAnnotations.Input) async throws -> Operations.ImportAnnotations.Output {
        let collection: Components.Schemas.FeatureCollection
        switch input.body {
        case .applicationGeoJson(let body), .json(let body): collection = body
        }
        let results = try await annotations.importContents(try AnnotationImport.contents(of: collection.features.map(GeoJSONFeature.init)))
        return .ok(.init(body: .json(AnnotationImport.answer(results))))
    }

    func exportAnnotations(_ input: Operations.ExportAnnotations.Input) async throws -> Operations.ExportAnnotations.Output {
        let page = try await annotations.annotations(matching: try Self.query(bbox: input.query.bbox, kind: input.query.kind))
        let features = page.annotations.map(Components.Schemas.Feature.init)
        return .ok(.init(body: .applicationGeoJson(.init(_type: .featureCollection, features: features))))
    }

    // MARK: - Query parameters

    /// A query from `bbox` and `kind`; a malformed bbox is 422 naming the parameter.
    static func query(bbox: String?, kind: String?) throws(ProblemError) -> AnnotationQuery {
        var query = AnnotationQuery(kind: kind)
        if let bbox {
            do { query.bbox = try BoundingBox(parsing: bbox) } catch {
                let part = error.path.first.map { "\($0) " } ?? ""
                throw ProblemError.invalid([.init(parameter: "bbox", detail: "\(part)\(error.message)")])
            }
        }
        return query
    }

    /// `value` when it lies in `range`, else 422 naming the parameter.
    static func check<T: Comparable>(_ value: T, parameter: String, in range: ClosedRange<T>) throws(ProblemError) -> T {
        guard range.contains(value) else {
            throw ProblemError.invalid([.init(parameter: parameter, detail: "must be between \(range.lowerBound) and \(range.upperBound), got \(value)")])
        }
        return value
    }
}

/// GeoJSON import: every feature checked before anything is written.
enum AnnotationImport {
    /// The features of a parsed FeatureCollection, or nil when it is not of the shape the generated
    /// decoding accepts (that decoding then reports the error).
    static func features(of value: JSONValue) -> [GeoJSONFeature]? {
        guard case .object(let members) = value, members["type"] == .string("FeatureCollection"),
              case .array(let elements)? = members["features"] else { return nil }
        var features: [GeoJSONFeature] = []
        features.reserveCapacity(elements.count)
        for element in elements {
            guard let feature = GeoJSONFeature(element) else { return nil }
            features.append(feature)
        }
        return features
    }

    /// The content of every feature, or a 422 listing each bad feature (and each repeated external id).
    static func contents(of features: [GeoJSONFeature]) throws(ProblemError) -> [AnnotationContent] {
        var errors: [ProblemDetails.FieldError] = []
        var contents: [AnnotationContent] = []
        contents.reserveCapacity(features.count)
        var firstIndex: [String: Int] = [:]
        for (index, feature) in features.enumerated() {
            do {
                let content = try AnnotationContent(feature: feature)
                if let externalId = content.externalId {
                    if let first = firstIndex[externalId] {
                        errors.append(.init(pointer: "/features/\(index)/properties/externalId", detail: "repeats the external id of feature \(first)"))
                    } else {
                        firstIndex[externalId] = index
                    }
                }
                contents.append(content)
            } catch {
                errors.append(.init(pointer: JSONPointer.append("/features/\(index)", error.path), detail: error.message))
            }
        }
        guard errors.isEmpty else {
            var problem = ProblemError.invalid(Array(errors.prefix(Validation.maxErrors)))
            if errors.count > 1 { problem = ProblemError(.unprocessableContent, detail: "\(errors.count) features are invalid; nothing was imported", errors: problem.problem.errors) }
            throw problem
        }
        return contents
    }

    /// Per-feature results with totals.
    static func answer(_ results: [(id: AnnotationID, status: WriteStatus)]) -> Components.Schemas.ImportAnswer {
        var counts: [WriteStatus: Int] = [:]
        let items = results.enumerated().map { index, result in
            counts[result.status, default: 0] += 1
            return Components.Schemas.ImportResult(index: index, id: result.id.description, status: .init(rawValue: result.status.rawValue) ?? .unchanged)
        }
        return .init(results: items, created: counts[.created] ?? 0, updated: counts[.updated] ?? 0, unchanged: counts[.unchanged] ?? 0)
    }
}
