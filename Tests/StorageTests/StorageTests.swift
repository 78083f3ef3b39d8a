import Essentials
import Fleet
import Foundation
import Services
import Storage
import TestSupport
import Testing

@Suite("Stores: one protocol, two engines")
struct StorageTests {
    @Test("migrations from an empty database and from every earlier version reach the same schema", arguments: Engine.allCases)
    func migrationsFromEveryVersion(engine: Engine) throws {
        let all = ServiceSchema.migrations
        for start in 0..<all.count {
            guard let scratch = try ScratchStore.make(engine, migrate: false) else { return }
            let store = scratch.store
            #expect(try store.migrate(Array(all.prefix(start))) == start)
            #expect(try store.schemaVersion() == start)
            if start >= 1 {
                // Data written at the earlier version survives the upgrade.
                try store.blockingWrite { c in
                    try c.execute("""
                        INSERT INTO users (role, name, mobile, email, password_hash, created_ms)
                        VALUES ('passenger', 'Old', '9000000000', 'old@example.com', 'scrypt$10$8$1$AA==$AA==', 1)
                        """)
                }
            }
            #expect(try store.migrate(all) == all.count)
            if start >= 1 {
                #expect(try store.blockingRead { c in try c.first("SELECT name FROM users")?.string("name") } == "Old")
            }
            // Running again changes nothing.
            #expect(try store.migrate(all) == all.count)
            let versions = try store.blockingRead { c in
                try c.query("SELECT version FROM schema_migrations ORDER BY version", []).map { try $0.int("version") }
            }
            #expect(versions == Array(1...all.count))
        }
    }

    @Test("the booking-numbers migration keeps every booking and its history, and lets numbers grow past six digits", arguments: Engine.allCases)
    func bookingNumbersMigrationKeepsHistory(engine: Engine) throws {
        guard let scratch = try ScratchStore.make(engine, migrate: false) else { return }
        let store = scratch.store
        try store.migrate(Array(ServiceSchema.migrations.prefix(9)))
        try store.blockingWrite { c in
            try c.execute("""
                INSERT INTO users (role, name, mobile, email, password_hash, created_ms, verified_ms)
                VALUES ('passenger', 'Old', '9000000000', 'old@example.com', 'x', 1, 1)
                """)
            let user = try c.first("SELECT id FROM users")!.int64("id")
            try c.execute("""
                INSERT INTO bookings (number, passenger_id, kind, state, pickup_lat_e7, pickup_lon_e7, dest_lat_e7, dest_lon_e7, pickup_ms,
                    cab_type, seats, payment, estimate, first_ride, created_ms, updated_ms, billed_metres, review)
                VALUES (123456, ?, 'now', 'completed', 437393000, 74277000, 437314000, 74197000, 5, 'Sedan', 1, 'wallet', 700, 1, 5, 6, 2894, 'meter 9 m')
                """, [.integer(user)])
            try c.execute("INSERT INTO booking_events (booking_number, state, at_ms, detail) VALUES (123456, 'completed', 6, 'done')")
        }
        #expect(try store.migrate(ServiceSchema.migrations) == ServiceSchema.version)
        let (billed, review, events) = try store.blockingRead { c in
            (try c.first("SELECT billed_metres, review FROM bookings WHERE number = 123456")!.int64("billed_metres"),
             try c.first("SELECT review FROM bookings WHERE number = 123456")!.string("review"),
             try c.first("SELECT COUNT(*) AS n FROM booking_events WHERE booking_number = 123456")!.int("n"))
        }
        #expect(billed == 2894 && review == "meter 9 m" && events == 1)
        // Seven digits fit now; the history's foreign key still holds.
        try store.blockingWrite { c in
            try c.execute("""
                INSERT INTO bookings (number, passenger_id, kind, state, pickup_lat_e7, pickup_lon_e7, dest_lat_e7, dest_lon_e7, pickup_ms,
                    cab_type, seats, payment, estimate, first_ride, created_ms, updated_ms)
                SELECT 1234567, passenger_id, kind, state, pickup_lat_e7, pickup_lon_e7, dest_lat_e7, dest_lon_e7, pickup_ms,
                    cab_type, seats, payment, estimate, first_ride, created_ms, updated_ms FROM bookings WHERE number = 123456
                """)
        }
        #expect(throws: StoreError.self) {
            try store.blockingWrite { c in
                try c.execute("INSERT INTO booking_events (booking_number, state, at_ms, detail) VALUES (999999, 'completed', 6, 'orphan')")
            }
        }
    }

    @Test("a database from a newer build is refused and left alone", arguments: Engine.allCases)
    func newerSchemaRefused(engine: Engine) throws {
        guard let scratch = try ScratchStore.make(engine) else { return }
        let next = ServiceSchema.version + 1
        try scratch.store.blockingWrite { c in
            try c.execute("INSERT INTO schema_migrations (version, name) VALUES (?, 'future')", [.integer(Int64(next))])
        }
        #expect(throws: StoreError.schemaTooNew(found: next, known: ServiceSchema.version)) {
            try scratch.store.migrate(ServiceSchema.migrations)
        }
    }

    @Test("migration lists with gaps are refused before anything runs")
    func gapsRefused() throws {
        guard let scratch = try ScratchStore.make(.sqlite, migrate: false) else { return }
        let list = [Migration(version: 1, name: "a", statements: ["CREATE TABLE a (x BIGINT)"]),
                    Migration(version: 3, name: "c", statements: ["CREATE TABLE c (x BIGINT)"])]
        #expect(throws: MigrationListError.self) { try scratch.store.migrate(list) }
        #expect(try scratch.store.schemaVersion() == 0)
    }

    @Test("a failing migration step is rolled back whole", arguments: Engine.allCases)
    func failingStepRolledBack(engine: Engine) throws {
        guard let scratch = try ScratchStore.make(engine, migrate: false) else { return }
        let list = [Migration(version: 1, name: "ok", statements: ["CREATE TABLE ok (x BIGINT)"]),
                    Migration(version: 2, name: "broken", statements: ["CREATE TABLE half (x BIGINT)", "CREATE TABLE ("])]
        #expect(throws: StoreError.self) { try scratch.store.migrate(list) }
        #expect(try scratch.store.schemaVersion() == 1)
        // The first statement of the broken step is gone with it.
        #expect(throws: StoreError.self) {
            try scratch.store.blockingRead { c in try c.query("SELECT x FROM half", []) }
        }
    }

    @Test("a transaction whose body throws leaves nothing behind", arguments: Engine.allCases)
    func rollbackOnThrow(engine: Engine) throws {
        guard let scratch = try ScratchStore.make(engine, migrate: false) else { return }
        let store = scratch.store
        try store.blockingWrite { c in try c.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT)") }
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try store.blockingWrite { c in
                try c.execute("INSERT INTO t (id, name) VALUES (?, ?)", [1, "one"])
                throw Boom()
            }
        }
        #expect(try store.blockingRead { c in try c.query("SELECT id FROM t", []) }.isEmpty)
    }

    @Test("engine failures are typed store errors, and values round-trip exactly", arguments: Engine.allCases)
    func typedErrorsAndValues(engine: Engine) throws {
        guard let scratch = try ScratchStore.make(engine, migrate: false) else { return }
        let store = scratch.store
        try store.blockingWrite { c in try c.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT NOT NULL)") }
        let hostile = "Robert'); DROP TABLE t;-- \u{0}? $1 ?"
        try store.blockingWrite { c in
            try c.execute("INSERT INTO t (id, name) VALUES (?, ?)", [.integer(Int64.max), .text(hostile.replacingOccurrences(of: "\u{0}", with: ""))])
            try c.execute("INSERT INTO t (id, name) VALUES (?, ?)", [.integer(Int64.min), "-- '?' \"?\""])
        }
        let rows = try store.blockingRead { c in try c.query("SELECT id, name FROM t WHERE name <> '?' ORDER BY id", []) }
        #expect(try rows.map { try $0.int64("id") } == [Int64.min, Int64.max])
        #expect(try rows[1].string("name") == hostile.replacingOccurrences(of: "\u{0}", with: ""))
        #expect(try rows[0].string("name") == "-- '?' \"?\"")

        var caught: StoreError?
        do { try store.blockingWrite { c in try c.execute("INSERT INTO t (id, name) VALUES (?, ?)", [.integer(Int64.max), "again"]) } }
        catch let e as StoreError { caught = e }
        guard case .constraint = caught else { Issue.record("duplicate key gave \(String(describing: caught))"); return }
        do { try store.blockingWrite { c in try c.execute("INSERT INTO t (id, name) VALUES (?, NULL)", [7]) } }
        catch let e as StoreError { caught = e }
        guard case .constraint = caught else { Issue.record("NOT NULL gave \(String(describing: caught))"); return }
        do { _ = try store.blockingRead { c in try c.query("SELEC nonsense", []) } }
        catch let e as StoreError { caught = e }
        guard case .statement = caught else { Issue.record("bad SQL gave \(String(describing: caught))"); return }
        #expect(throws: StoreError.decoding(column: "name", expected: "an integer")) {
            try store.blockingRead { c in try c.first("SELECT name FROM t")!.int64("name") }
        }
        store.close()
        #expect(throws: StoreError.closed) { try store.blockingRead { c in try c.query("SELECT 1", []) } }
    }


}
