import Essentials
import Foundation
@testable import PostgresStorage
import Storage
import TestSupport
import Testing

/// What only the PostgreSQL store does: its URL, its connection's TLS, its table locks, its
/// placeholders.
@Suite("PostgreSQL store")
struct PostgresStoreTests {
    @Test("a store that cannot be opened says where and why, never with the password")
    func unavailable() throws {
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
