import Essentials
import Fleet
import Foundation
@testable import PostgresStorage
import SQLiteStorage
import Services
import Storage
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

    @Test("a store that cannot be opened says where and why")
    func unavailable() throws {
        #expect(throws: StoreError.self) { try SQLiteStore(path: "/nonexistent-dir/x/wayfare.sqlite") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wf-notadb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("garbage.sqlite").path
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SQLiteStore(path: path)
            Issue.record("a file of garbage opened as a database")
        } catch {
            guard case .unavailable(let why) = error else { Issue.record("\(error)"); return }
            #expect(why.contains("garbage.sqlite"))
        }
        for bad in ["", "mysql://a@b/c", "postgres://", "postgres://@host/db", "postgres://u@host/db?sslmode=sometimes"] {
            #expect(throws: StoreError.self, "\(bad)") { try PostgresStore(url: bad) }
        }
        // Nothing listens on port 1.
        do {
            _ = try PostgresStore(url: "postgres://u:secret@127.0.0.1:1/db")
            Issue.record("connected to port 1")
        } catch {
            guard case .unavailable(let why) = error else { Issue.record("\(error)"); return }
            #expect(why.contains("127.0.0.1:1"))
            #expect(!why.contains("secret"), "the password must not appear in errors")
        }
    }

    @Test("writers that lock a table take turns: read-modify-write on one row never conflicts and never loses an update")
    func lockingWritersTakeTurns() throws {
        guard let scratch = try ScratchStore.make(.postgres, migrate: false) else { return }
        // No retries: a serialization failure would surface as a thrown conflict.
        let store = try PostgresStore(url: scratch.address, maxConnections: 8, maxRetries: 0)
        defer { store.close() }
        try store.blockingWrite { c in
            try c.execute("CREATE TABLE counter (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)")
            try c.execute("INSERT INTO counter VALUES (1, 0)")
        }
        /// Eight threads add one, twenty times each, reading the value and writing it back
        /// 2 ms later; returns how many transactions failed with a conflict.
        func hammer(locking tables: [String]) -> Int {
            let conflicts = Locked(0)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<20 {
                    do {
                        try store.blockingWrite(locking: tables) { c in
                            let n = try c.first("SELECT n FROM counter WHERE id = 1")!.int64("n")
                            usleep(2_000)
                            try c.execute("UPDATE counter SET n = ? WHERE id = 1", [.integer(n + 1)])
                        }
                    } catch StoreError.conflict {
                        conflicts.withLock { $0 += 1 }
                    } catch {
                        Issue.record("\(error)")
                    }
                }
            }
            return conflicts.withLock { $0 }
        }
        func count() throws -> Int64 { try store.blockingRead { c in try c.first("SELECT n FROM counter WHERE id = 1")!.int64("n") } }
        // The control: without turns, two transactions that both read before either writes
        // cannot both commit (else this test proves nothing). The overlap is forced with
        // semaphores rather than left to the scheduler: on a loaded 2-core machine, threads
        // hammering freely can happen to run one after the other.
        var failed = 0
        for _ in 0..<3 {
            let conflicts = Locked(0)
            let readA = DispatchSemaphore(value: 0), readB = DispatchSemaphore(value: 0), done = DispatchGroup()
            for (mine, theirs) in [(readA, readB), (readB, readA)] {
                done.enter()
                Thread {
                    do {
                        try store.blockingWrite(locking: []) { c in
                            let n = try c.first("SELECT n FROM counter WHERE id = 1")!.int64("n")
                            mine.signal()
                            _ = theirs.wait(timeout: .now() + 10)
                            try c.execute("UPDATE counter SET n = ? WHERE id = 1", [.integer(n + 1)])
                        }
                    } catch StoreError.conflict {
                        conflicts.withLock { $0 += 1 }
                    } catch {
                        Issue.record("\(error)")
                    }
                    done.leave()
                }.start()
            }
            done.wait()
            #expect(conflicts.withLock { $0 } == 1, "of two overlapping read-modify-writes without turns, one aborts")
            failed += conflicts.withLock { $0 }
        }
        #expect(try count() == Int64(6 - failed), "a failed transaction leaves nothing")
        let before = try count()
        #expect(hammer(locking: ["counter"]) == 0)
        #expect(try count() == before + 160, "every update landed")
        #expect(throws: StoreError.self) { try store.blockingWrite(locking: ["counter; DROP TABLE counter"]) { _ in } }
        #expect(try count() == before + 160)
    }

    @Test("sslmode is honoured: require and verify-full reach a server with a self-signed certificate, verify-full refuses one it cannot trust; the password may come apart from the URL")
    func postgresTLS() throws {
        guard let base = postgresURL, let ca = ProcessInfo.processInfo.environment["WAYFARE_POSTGRES_CA"] else {
            print("skipping the TLS test: WAYFARE_POSTGRES_URL and WAYFARE_POSTGRES_CA are set by scripts/test.sh")
            return
        }
        var components = try #require(URLComponents(string: base))
        let password = try #require(components.password)
        components.password = nil
        func encrypted(_ query: String) throws -> Bool {
            var c = components
            c.percentEncodedQuery = query
            let store = try PostgresStore(url: try #require(c.string), password: password, maxConnections: 1)
            defer { store.close() }
            return try store.blockingRead { connection in
                try connection.first("SELECT CASE WHEN ssl THEN 1 ELSE 0 END AS on FROM pg_stat_ssl WHERE pid = pg_backend_pid()")!.int("on") == 1
            }
        }
        #expect(try encrypted("sslmode=disable") == false)
        #expect(try encrypted("sslmode=require"), "encrypted, the certificate not checked")
        #expect(try encrypted("sslmode=prefer"), "the default: TLS when the server offers it")
        #expect(try encrypted("sslmode=verify-full&sslrootcert=\(ca)"), "verified against the server's own certificate")
        #expect(try encrypted("sslmode=verify-ca&sslrootcert=\(ca)"))
        // The system's authorities never signed it: refused, naming the host, never the password.
        do {
            _ = try encrypted("sslmode=verify-full")
            Issue.record("a self-signed certificate was trusted without its root")
        } catch let error as StoreError {
            #expect(error.description.contains("127.0.0.1") && !error.description.contains(password), "\(error)")
        }
        #expect(throws: StoreError.self) { _ = try encrypted("sslmode=sometimes") }
    }

    @Test("placeholders are numbered outside quotes and comments only")
    func placeholderNumbering() {
        #expect(numberingPlaceholders("SELECT ? , ?") == "SELECT $1 , $2")
        #expect(numberingPlaceholders("SELECT '?', \"a?\", ? -- why?\n, ?") == "SELECT '?', \"a?\", $1 -- why?\n, $2")
        #expect(numberingPlaceholders("SELECT 'it''s ?', ?") == "SELECT 'it''s ?', $1")
    }
}
