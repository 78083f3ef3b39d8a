import Essentials
import Foundation
@testable import PostgresStorage
import Storage
import TestSupport
import Testing

/// What only the PostgreSQL store does: its URL, its connection's TLS, its turns and row
/// locks, its placeholders.
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

    @Test("writers that name the same turn take turns: read-modify-write on one row never conflicts and never loses an update")
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
        // A turn is only a name, hashed to a lock key: nothing in it reaches SQL.
        try store.blockingWrite(locking: ["counter; DROP TABLE counter"]) { _ in }
        #expect(try count() == before + 160)
    }

    @Test("row locks: read-modify-write under read committed with the row locked never conflicts, never loses an update, and leaves other rows free")
    func rowLockedWriters() throws {
        guard let scratch = try ScratchStore.make(.postgres, migrate: false) else { return }
        // No retries: a conflict or a deadlock would surface as a thrown error.
        let store = try PostgresStore(url: scratch.address, maxConnections: 8, maxRetries: 0)
        defer { store.close() }
        try store.blockingWrite { c in
            try c.execute("CREATE TABLE counter (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)")
            try c.execute("INSERT INTO counter VALUES (1, 0), (2, 0)")
        }
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { w in
            for _ in 0..<20 {
                do {
                    try store.blockingWrite(locking: [], isolation: .rowLocks) { c in
                        // Both rows locked in one statement, in id order; written back in
                        // opposite orders by parity.
                        let rows = try c.query("SELECT id, n FROM counter ORDER BY id\(sql: c.forUpdate)")
                        usleep(500)
                        for row in w.isMultiple(of: 2) ? rows : rows.reversed() {
                            try c.execute("UPDATE counter SET n = ? WHERE id = ?", [.integer(try row.int64("n") + 1), .integer(try row.int64("id"))])
                        }
                    }
                } catch {
                    failures.withLock { $0 += 1 }
                    Issue.record("\(error)")
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        let counts = try store.blockingRead { c in try c.query("SELECT n FROM counter ORDER BY id", []).map { try $0.int64("n") } }
        #expect(counts == [160, 160], "every update landed")

        // Two writers insert the same key at once, each after finding it absent: under read
        // committed the second hits the unique key, and the store runs it again (with retries
        // allowed), when it finds the first's row and stops.
        let retrying = try PostgresStore(url: scratch.address, maxConnections: 2, maxRetries: 5)
        defer { retrying.close() }
        try retrying.blockingWrite { c in try c.execute("CREATE TABLE once (key TEXT PRIMARY KEY)") }
        let inserted = Locked(0), runs = Locked(0), bothRead = DispatchGroup()
        bothRead.enter(); bothRead.enter()
        let done = DispatchGroup()
        for _ in 0..<2 {
            done.enter()
            Thread {
                var first = true
                do {
                    try retrying.blockingWrite(locking: [], isolation: .rowLocks) { c in
                        runs.withLock { $0 += 1 }
                        let found = try c.first("SELECT key FROM once WHERE key = 'k'") != nil
                        if first { first = false; bothRead.leave(); _ = bothRead.wait(timeout: .now() + 10) }
                        guard !found else { return }
                        try c.execute("INSERT INTO once (key) VALUES ('k')")
                        inserted.withLock { $0 += 1 }
                    }
                } catch {
                    Issue.record("\(error)")
                }
                done.leave()
            }.start()
        }
        done.wait()
        // One insert landed; the other failed on the key, and its body, run again, found the row.
        #expect(inserted.withLock { $0 } == 1)
        #expect(runs.withLock { $0 } == 3)
        #expect(try retrying.blockingRead { c in try c.query("SELECT key FROM once", []).count } == 1)
    }

    @Test("a writer stalled inside its transaction loses its session to the server's timeout; the writers waiting on its turn and its row go on")
    func stalledWriterIsEnded() throws {
        guard let scratch = try ScratchStore.make(.postgres, migrate: false) else { return }
        // The stalled writer's store ends idle transactions after 1 s; the waiting writer's
        // gives up on an unanswered statement after 20 s, so a wait that is never ended fails.
        let stalling = try PostgresStore(url: scratch.address, maxConnections: 1, maxRetries: 0, stalledTransactionTimeout: 1)
        defer { stalling.close() }
        let waiting = try PostgresStore(url: scratch.address, maxConnections: 1, maxRetries: 0, answerTimeout: 20)
        defer { waiting.close() }
        try waiting.blockingWrite { c in
            try c.execute("CREATE TABLE counter (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)")
            try c.execute("INSERT INTO counter VALUES (1, 0)")
        }
        let locked = DispatchSemaphore(value: 0), wake = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let stalledError = Locked<(any Error)?>(nil)
        Thread {
            do {
                try stalling.blockingWrite(locking: ["counter"]) { c in
                    _ = try c.first("SELECT n FROM counter WHERE id = 1\(sql: c.forUpdate)")
                    locked.signal()
                    // Stalls as a process stopped mid-transaction does, then writes.
                    _ = wake.wait(timeout: .now() + 30)
                    try c.execute("UPDATE counter SET n = n + 100 WHERE id = 1")
                }
            } catch {
                stalledError.withLock { $0 = error }
            }
            finished.signal()
        }.start()
        locked.wait()
        // Waits for the turn and the row, which the server frees when it ends the stalled session.
        try waiting.blockingWrite(locking: ["counter"]) { c in try c.execute("UPDATE counter SET n = n + 1 WHERE id = 1") }
        wake.signal()
        finished.wait()
        let stalled = stalledError.withLock { $0 }
        if case StoreError.unavailable? = stalled {} else {
            Issue.record("the stalled writer's call should fail as unavailable, not \(String(describing: stalled))")
        }
        #expect(try waiting.blockingRead { c in try c.first("SELECT n FROM counter WHERE id = 1")!.int64("n") } == 1, "only the waiting writer's update landed")
        // The stalled store opens a new connection for its next call.
        try stalling.blockingWrite(locking: ["counter"]) { c in try c.execute("UPDATE counter SET n = n + 1 WHERE id = 1") }
    }

    @Test("a write with turns that fails at COMMIT throws the failure, keeps nothing and leaves the turn free")
    func failureAtCommitWithTurns() throws {
        guard let scratch = try ScratchStore.make(.postgres, migrate: false) else { return }
        let store = try PostgresStore(url: scratch.address, maxConnections: 2, maxRetries: 0, answerTimeout: 20)
        defer { store.close() }
        // A deferred unique key is checked at COMMIT, which goes out with the unlock behind it.
        try store.blockingWrite { c in
            try c.execute("CREATE TABLE once (k BIGINT, CONSTRAINT once_k UNIQUE (k) DEFERRABLE INITIALLY DEFERRED)")
        }
        do {
            try store.blockingWrite(locking: ["once"]) { c in
                try c.execute("INSERT INTO once VALUES (1)")
                try c.execute("INSERT INTO once VALUES (1)")
            }
            Issue.record("a duplicate key was committed")
        } catch StoreError.constraint {
        } catch {
            Issue.record("\(error)")
        }
        #expect(try store.blockingRead { c in try c.query("SELECT k FROM once", []).count } == 0)
        // The turn was released: another writer (on the other connection too) takes it at once.
        let other = try PostgresStore(url: scratch.address, maxConnections: 1, maxRetries: 0, answerTimeout: 20)
        defer { other.close() }
        try other.blockingWrite(locking: ["once"]) { c in try c.execute("INSERT INTO once VALUES (2)") }
        try store.blockingWrite(locking: ["once"]) { c in try c.execute("INSERT INTO once VALUES (3)") }
        #expect(try store.blockingRead { c in try c.query("SELECT k FROM once ORDER BY k", []).map { try $0.int64("k") } } == [2, 3])
    }

    @Test("reads: one statement runs alone; a body of more runs again on one snapshot, even when it swallowed the refusal; a read never writes")
    func readsOnOneSnapshot() throws {
        guard let scratch = try ScratchStore.make(.postgres, migrate: false) else { return }
        let store = try PostgresStore(url: scratch.address, maxConnections: 4, maxRetries: 0)
        defer { store.close() }
        try store.blockingWrite { c in
            try c.execute("CREATE TABLE counter (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)")
            try c.execute("INSERT INTO counter VALUES (1, 0)")
        }
        func n(_ c: any SQLConnection) throws -> Int64 { try c.first("SELECT n FROM counter WHERE id = 1")!.int64("n") }

        // One statement: the body runs once.
        var runs = 0
        #expect(try store.blockingRead { c in runs += 1; return try n(c) } == 0)
        #expect(runs == 1)

        // Two statements with a commit between them: the first run is refused at its second
        // statement, the second run sees one snapshot (the commit lands after its first read).
        runs = 0
        let (first, second) = try store.blockingRead { c -> (Int64, Int64) in
            runs += 1
            let first = try n(c)
            try store.blockingWrite { w in try w.execute("UPDATE counter SET n = n + 1 WHERE id = 1") }
            return (first, try n(c))
        }
        #expect(runs == 2)
        #expect(first == second, "both reads of one body see one snapshot")
        #expect(try store.blockingRead { c in try n(c) } == 2, "both commits landed")

        // A body that swallows the refusal and answers something else still runs again.
        runs = 0
        let answer = try store.blockingRead { c -> Int64 in
            runs += 1
            _ = try n(c)
            return (try? n(c)) ?? -1
        }
        #expect(runs == 2)
        #expect(answer == 2)

        // A read may not write, alone or after a first statement.
        #expect(throws: StoreError.self) { try store.blockingRead { c in try c.execute("UPDATE counter SET n = 99 WHERE id = 1") } }
        #expect(throws: StoreError.self) {
            try store.blockingRead { c in _ = try n(c); try c.execute("UPDATE counter SET n = 99 WHERE id = 1") }
        }
        #expect(try store.blockingRead { c in try n(c) } == 2)
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
