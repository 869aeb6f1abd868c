import Annotations
import Foundation
import MeridianAPI
import Storage

/// What an import did.
public struct ImportSummary: Sendable, CustomStringConvertible {
    public var created: Int
    public var updated: Int
    public var unchanged: Int

    public var description: String { "\(created) created, \(updated) updated, \(unchanged) unchanged" }
}

/// A file that cannot be imported, with every problem found (nothing was stored).
public struct ImportFailure: Error, CustomStringConvertible {
    public let description: String
}

/// Imports a GeoJSON FeatureCollection file into the database at `databasePath`, with the rules of
/// `POST /v1/annotations/import` (one transaction; nothing stored when any feature is invalid).
/// - Parameter onlyIfEmpty: skip (and return nil) when the database has ever held an annotation,
///   so seeding demo data never brings back what a user deleted.
public func importGeoJSON(file: String, databasePath: String, onlyIfEmpty: Bool = false) async throws -> ImportSummary? {
    let store = try await openAnnotationStore(at: databasePath)
    if onlyIfEmpty, try await !store.changes(after: 0, limit: 1).isEmpty { return nil }
    let data = try Data(contentsOf: URL(fileURLWithPath: file))
    let results: [(id: AnnotationID, status: WriteStatus)]
    do {
        if let imported = try await AnnotationImport.importBody(data, into: store) {
            results = imported
        } else {
            // Not a FeatureCollection at all: Foundation's decoder says where.
            let collection = try JSONDecoder().decode(Components.Schemas.FeatureCollection.self, from: data)
            results = try await store.importContents(AnnotationImport.contents(of: collection.features.map(GeoJSONFeature.init)))
        }
    } catch {
        guard let problem = ProblemMapping.problem(for: error) else { throw error }
        let lines = (problem.errors ?? []).map { "  \($0.pointer ?? $0.parameter ?? "") \($0.detail)" }
        throw ImportFailure(description: ([problem.detail ?? problem.title] + lines).joined(separator: "\n"))
    }
    let answer = AnnotationImport.answer(results)
    return ImportSummary(created: answer.created, updated: answer.updated, unchanged: answer.unchanged)
}
