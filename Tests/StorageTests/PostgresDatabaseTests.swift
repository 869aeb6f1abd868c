import Foundation
import Geodesy
import MapGeometry
import PostgresNIO
@testable import Storage
import Testing
import TestSupport


@Suite struct PostgresLocationTests {
    @Test func aDatabaseURLNamesUserHostPortAndDatabase() throws {
        let location = try #require(PostgresLocation("postgres://meridian:s%40cret@db.internal:6543/maps"))
        #expect(location == PostgresLocation("postgresql://meridian:s%40cret@db.internal:6543/maps"))
        #expect(location.host == "db.internal" && location.port == 6543 && location.user == "meridian")
        #expect(location.password == "s@cret" && location.database == "maps")
        #expect(PostgresLocation("postgres://meridian@127.0.0.1/maps")?.port == 5432)
        for bad in ["./meridian.sqlite", ":memory:", "postgres://127.0.0.1/maps", "postgres://meridian@127.0.0.1/", "postgres://meridian@/maps", "postgres://m@h/a/b"] {
            #expect(PostgresLocation(bad) == nil, "\(bad)")
        }
        #expect(PostgresLocation.isPostgres("postgres://x") && !PostgresLocation.isPostgres("./postgres.sqlite"))
    }
}

@Suite(.enabled(if: TestEngine.postgresURL != nil, "needs MERIDIAN_POSTGRES_URL: make test starts a throw-away PostgreSQL"), .serialized)
struct PostgresDatabaseTests {
    func location() async throws -> PostgresLocation {
        try #require(PostgresLocation(try await TestEngine.postgres.freshPlace()))
    }

    @Test func twoInstancesStartingTogetherMigrateOnce() async throws {
        let location = try await location()
        async let first = PostgresDatabase.open(location)
        async let second = PostgresDatabase.open(location)
        let (a, b) = try await (first, second)
        #expect(try await a.appliedMigrations() == PostgresMigrations.steps.map(\.name))
        #expect(try await b.appliedMigrations() == PostgresMigrations.steps.map(\.name))
        await a.close()
        await b.close()
        // And again on a database that has them all.
        let third = try await PostgresDatabase.open(location)
        #expect(try await third.appliedMigrations() == PostgresMigrations.steps.map(\.name))
        await third.close()
    }

    /// A database a newer Meridian migrated (a step this binary does not know) is refused at open,
    /// naming the step: an older instance must not read and write its rows by older rules.
    @Test func aDatabaseANewerVersionMigratedIsRefused() async throws {
        let location = try await location()
        let database = try await PostgresDatabase.open(location)
        try await database.client.query("INSERT INTO meridian_migration (name) VALUES ('v999: from the future')")
        await database.close()
        do {
            let older = try await PostgresDatabase.open(location)
            await older.close()
            Issue.record("opened a database with a step it does not know")
        } catch {
            #expect("\(error)".contains("v999: from the future"), "\(error)")
        }
    }

    /// Every table but the migration log is keyed by tenant first, so a distributed PostgreSQL
    /// (Citus, by tenant) takes the schema as it is.
    @Test func everyTableIsKeyedByTenantFirst() async throws {
        let database = try await PostgresDatabase.open(try await location())
        let rows = try await database.client.query("""
            SELECT c.relname, a.attname FROM pg_index i
            JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
            WHERE i.indisprimary AND n.nspname = 'public' AND c.relname <> 'meridian_migration' AND c.relname <> 'spatial_ref_sys'
            """)
        var firstColumns: [String: String] = [:]
        for try await (table, column) in rows.decode((String, String).self) { firstColumns[table] = column }
        // Every table has a primary key (a table without one would be missing here).
        var tables: Set<String> = []
        for try await table in try await database.client.query("""
            SELECT table_name::text FROM information_schema.tables
            WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT IN ('meridian_migration', 'spatial_ref_sys')
            """).decode(String.self) { tables.insert(table) }
        #expect(tables.isSuperset(of: ["feed_counter", "annotation", "annotation_change", "api_key", "device", "tracking_event"]))
        #expect(Set(firstColumns.keys) == tables)
        #expect(firstColumns.values.allSatisfy { $0 == "tenant" }, "\(firstColumns)")
        await database.close()
    }

    /// PostGIS's geography distance (GeographicLib's algorithm inside PostGIS) against PROJ's
    /// geodesic on 200 random pairs: the two implementations agree to the millimetre.
    @Test func postGISMeasuresAsPROJDoes() async throws {
        let database = try await PostgresDatabase.open(try await location())
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let a = Coordinate(latitude: .random(in: -89...89, using: &random), longitude: .random(in: -180...180, using: &random))
            let b = Coordinate(latitude: .random(in: -89...89, using: &random), longitude: .random(in: -180...180, using: &random))
            let rows = try await database.client.query("""
                SELECT ST_Distance(ST_SetSRID(ST_MakePoint(\(a.longitude), \(a.latitude)), 4326)::geography,
                                   ST_SetSRID(ST_MakePoint(\(b.longitude), \(b.latitude)), 4326)::geography, true)
                """)
            var measured: Double?
            for try await distance in rows.decode(Double.self) { measured = distance }
            let expected = Geodesic.wgs84.inverse(from: a, to: b).distance
            #expect(abs(try #require(measured) - expected) < 1e-3, "\(a) → \(b)")
        }
        await database.close()
    }
}
