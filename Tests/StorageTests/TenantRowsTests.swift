import Annotations
import Foundation
import GRDB
import MapGeometry
@testable import Storage
import Testing
import Timeline
import WireJSON

/// The reads that visit a tenant's every row (the snapshot at start-up, a column's values) hold
/// that tenant's rows and no other's, whether the tenant fills its rowid range (read in rowid
/// order, off the tenant's indexes) or sits sparsely among another tenant's rows (read through
/// its index); an empty tenant and a tenant of one row read nothing and their one row.
@Suite struct TenantRowsTests {
    let path = NSTemporaryDirectory() + "tenant-rows-\(UUID().uuidString).sqlite"

    func removeFiles() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test func aSnapshotAndAColumnHoldTheirTenantsRowsOnly() async throws {
        defer { removeFiles() }
        let database = try MeridianDatabase.open(path: path)
        let stores = try await ["dense", "sparse", "single", "empty"].asyncMap { name in
            (name, try await SQLiteAnnotationStore.open(on: database, tenant: try #require(TenantID(name))))
        }
        let (dense, sparse, single) = (stores[0].1, stores[1].1, stores[2].1)
        var expected: [String: Set<AnnotationID>] = ["dense": [], "sparse": [], "single": [], "empty": []]
        // The sparse tenant's rows are one in twenty of the rowids they span.
        for round in 0..<10 {
            let many = (0..<19).map { AnnotationContent(coordinate: Coordinate(latitude: Double($0), longitude: Double(round)), properties: ["n": .number(JSONNumber(Double($0)))]) }
            expected["dense", default: []].formUnion(try await dense.importContents(many).map(\.id))
            let one = try await sparse.create(AnnotationContent(coordinate: Coordinate(latitude: -1, longitude: Double(round)), properties: ["n": .number(JSONNumber(Double(round)))]))
            expected["sparse", default: []].insert(one.id)
        }
        expected["single"] = [try await single.create(AnnotationContent(coordinate: Coordinate(latitude: 1, longitude: 1), properties: ["n": .number(JSONNumber(1))])).id]
        for (name, store) in stores {
            let wanted = try #require(expected[name])
            let entries = try await store.thinningSnapshot().entries
            #expect(Set(entries.map(\.id)).symmetricDifference(wanted).count == 0, "\(name)'s snapshot")
            #expect(entries.count == wanted.count, "\(name)'s snapshot has no row twice")
            let values = try await store.numericValues(of: "n")
            #expect(Set(values.map(\.id)).symmetricDifference(wanted).count == 0, "\(name)'s column")
        }
        // Which read each tenant gets, and that SQLite reads it so.
        try await database.writer.read { db in
            for (name, scans) in [("dense", true), ("sparse", false), ("single", true)] {
                let rows = try TenantRows(db, tenant: try #require(TenantID(name)))
                #expect(rows.scan == scans, "\(name) read in rowid order: \(scans)")
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM annotation WHERE \(rows.condition)", arguments: rows.arguments)
                    .map { $0["detail"] as String? ?? "" }.joined(separator: "; ")
                #expect(plan.contains("INTEGER PRIMARY KEY") == scans, "\(name)'s plan: \(plan)")
            }
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
