import Essentials
import Foundation
import Logging
import PostgresNIO
import Storage

/// The store for many nodes: PostgreSQL through postgres-nio.
///
/// It keeps a small pool of connections and runs each ``blockingWrite(locking:isolation:_:)``
/// as a `SERIALIZABLE` transaction (or, asked for row locks, a `READ COMMITTED` one whose body
/// locks what it decides by): PostgreSQL then guarantees the outcome of some serial order,
/// and when it cannot (SQLSTATE 40001 or 40P01) the store rolls back and runs the body
/// again, a bounded number of times. Bodies are synchronous and do database work only, so running one again
/// is safe.
///
/// Calls block their thread on the network; the async `write`/`read` of `SQLStore` run
/// them on a Dispatch worker. Never call the blocking forms from a SwiftNIO event loop.
///
/// `Sendable` (checked by hand, for the semaphore): the configuration is immutable, the
/// pool of idle connections sits in a `Locked`, and a connection is used by one transaction
/// at a time.
public final class PostgresStore: SQLStore, @unchecked Sendable {
    /// Always `SQLDialect/postgres`.
    public var dialect: SQLDialect { .postgres }

    private let configuration: PostgresConnection.Configuration
    private let endpoint: String
    private let logger: Logger
    private let maxRetries: Int
    private let answerTimeout: TimeInterval
    private let slots: DispatchSemaphore
    private let state = Locked(PoolState())

    private struct PoolState {
        /// Idle connections for writes.
        var idle: [PostgresConnection] = []
        /// Idle connections for reads, their sessions read-only (`default_transaction_read_only`).
        var idleReaders: [PostgresConnection] = []
        var closed = false
        var nextID = 1
    }

    /// Opens a store on the server named by `url`, a `postgres://user@host:port/db` address.
    ///
    /// Its `sslmode` is read as libpq reads it: `disable` (no TLS), `prefer` (the default:
    /// TLS when the server offers it, unverified), `require` (TLS or no connection, the
    /// certificate unverified), `verify-ca` (TLS with a certificate signed by a trusted
    /// authority) and `verify-full` (that, and issued to the host connected to). The trusted
    /// authorities are the system's, or the PEM file named by `sslrootcert`.
    ///
    /// - Parameters:
    ///   - url: the server's address.
    ///   - password: the password, when it is not in `url` (a command line should keep it in
    ///     an environment variable or a file: a URL there is visible to every user in `ps`).
    ///   - maxConnections: at most this many transactions run at once; more wait.
    ///   - maxRetries: how many times a body runs again after serialization failures before
    ///     the call throws `StoreError/conflict(_:)`.
    ///   - answerTimeout: seconds a statement may go unanswered before its connection is
    ///     taken for dead, closed, and the call throws `StoreError/unavailable(_:)`. Why: a
    ///     server killed behind a proxy can leave a connection open that never answers, and a
    ///     call must fail (so that its caller retries, with its idempotency key, against the
    ///     new primary) rather than hang. A longer statement (a migration building an index on
    ///     a large table) needs a store opened with a longer timeout.
    ///   - stalledTransactionTimeout: seconds a transaction of this store may sit idle on the
    ///     server between two statements before the server ends its session
    ///     (`idle_in_transaction_session_timeout`). Why: a process stopped inside a
    ///     transaction (paused by `SIGSTOP`, a debugger, a virtual machine's freeze) keeps its
    ///     row locks and turns until it wakes, and every writer waiting on them, another
    ///     replica claiming a lapsed city lease among them, would wait as long. A body does
    ///     database work only, so a live transaction never idles for seconds.
    /// - Throws: `StoreError/unavailable(_:)` naming the host when the address is malformed
    ///   or the server cannot be reached.
    public init(url: String, password: String? = nil, maxConnections: Int = 8, maxRetries: Int = 30,
                answerTimeout: TimeInterval = 60, stalledTransactionTimeout: TimeInterval = 10) throws(StoreError) {
        var (configuration, endpoint) = try Self.configuration(from: url)
        if let password { configuration.password = password }
        let stalledMs = Int(exactly: (max(0.001, stalledTransactionTimeout) * 1000).rounded()) ?? Int(Int32.max)
        configuration.options.additionalStartupParameters.append(("idle_in_transaction_session_timeout", "\(min(stalledMs, Int(Int32.max)))"))
        self.configuration = configuration
        self.endpoint = endpoint
        self.maxRetries = maxRetries
        self.answerTimeout = answerTimeout
        self.slots = DispatchSemaphore(value: max(1, maxConnections))
        var logger = Logger(label: "wayfare.postgres")
        logger.logLevel = .error
        self.logger = logger
        // Connect once now, so that a wrong address fails here with its reason.
        let connection = try connect(readOnly: false)
        release(connection, readOnly: false, healthy: true)
    }

    /// Runs `body` in a `SERIALIZABLE` transaction, again after a serialization failure.
    ///
    /// Each name in `turns` is a session-level advisory lock, taken in sorted order before
    /// `BEGIN` and released after the transaction ends: writers naming the same turn wait
    /// for each other on every node, and writers naming none of the same turns run at once.
    /// Why before `BEGIN`: a serializable transaction's snapshot is taken at its first
    /// statement, so a lock taken inside it would be waited for with a snapshot that misses
    /// the previous holder's commit, and the update after it would abort. Taken outside, the
    /// snapshot starts after the previous turn committed and the two cannot conflict.
    /// Correctness never rests on the turns (the transaction is serializable either way);
    /// they only turn the aborts of transactions that update the same rows into short waits.
    /// Sorted, so that two writers naming the same turns take them in one order and cannot
    /// deadlock; a connection that dies releases its locks with its session.
    ///
    /// With `WriteIsolation.rowLocks` the transaction is `READ COMMITTED` instead, and a
    /// unique violation (SQLSTATE 23505) runs the body again like a serialization failure:
    /// at that level it means a concurrent transaction committed the same key first, and the
    /// body, run again, sees that row and answers by its rules.
    public func blockingWrite<T>(locking turns: [String], isolation: WriteIsolation,
                                 _ body: (any SQLConnection) throws -> T) throws -> T {
        let keys = Set(turns).map(turnKey).sorted()
        switch isolation {
        case .serializable:
            return try transaction(.begin("BEGIN ISOLATION LEVEL SERIALIZABLE"), turns: keys, readOnly: false) { try body($0) }
        case .rowLocks:
            return try transaction(.begin("BEGIN ISOLATION LEVEL READ COMMITTED"), turns: keys, readOnly: false,
                                   retryingUniqueViolations: true) { try body($0) }
        }
    }

    /// Runs `body` on one snapshot, on a connection whose session is read-only.
    ///
    /// A body of one statement runs without a transaction: PostgreSQL runs every statement on
    /// one snapshot, so `BEGIN` and `COMMIT` would only add two round trips (most reads of a
    /// trip are one statement). When the body asks for a second statement, the session
    /// refuses it, and the body runs again from the start inside a `REPEATABLE READ READ
    /// ONLY` transaction, whatever it made of the refusal. Running a read again is safe: it
    /// changes nothing, and a read-only session could not have changed anything.
    public func blockingRead<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        var needsSnapshot = false
        do {
            let result = try transaction(.oneStatement, turns: [], readOnly: true) { session in
                defer { needsSnapshot = session.refusedSecondStatement }
                return try body(session)
            }
            if !needsSnapshot { return result }
        } catch {
            if !needsSnapshot { throw error }
        }
        return try transaction(.begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"), turns: [], readOnly: true) { try body($0) }
    }

    /// Closes every idle connection; connections in use close when their transaction ends.
    public func close() {
        let idle = state.withLock { state -> [PostgresConnection] in
            state.closed = true
            defer { state.idle = []; state.idleReaders = [] }
            return state.idle + state.idleReaders
        }
        for connection in idle {
            let closing: EventLoopFuture<Void> = connection.close()
            try? closing.wait()
        }
    }

    /// Runs one statement outside any transaction (`CREATE DATABASE` refuses to run inside
    /// one): for tests and tools that make throwaway databases.
    package func executeOutsideTransaction(_ sql: String) throws {
        slots.wait()
        defer { slots.signal() }
        let connection = try acquire(readOnly: false)
        do {
            try PostgresSession(connection: connection, logger: logger, answerTimeout: answerTimeout).execute(sql, [])
            release(connection, readOnly: false, healthy: true)
        } catch {
            release(connection, readOnly: false, healthy: !connection.isClosed)
            throw error
        }
    }

    /// How a transaction opens.
    private enum Opening {
        /// With this `BEGIN`, sent ahead of the body's first statement.
        case begin(String)
        /// Not at all: the body may run one statement, which PostgreSQL runs on its own.
        case oneStatement
    }

    private func transaction<T>(_ opening: Opening, turns: [Int64], readOnly: Bool, retryingUniqueViolations: Bool = false,
                                _ body: (PostgresSession) throws -> T) throws -> T {
        slots.wait()
        defer { slots.signal() }
        var attempt = 0
        while true {
            let connection = try acquire(readOnly: readOnly)
            let session = PostgresSession(connection: connection, logger: logger, answerTimeout: answerTimeout)
            var locked = false
            do {
                // Sent ahead, answered before the body's first statement (or the commit).
                for key in turns { locked = true; session.send("SELECT pg_advisory_lock(?)", [.integer(key)]) }
                switch opening {
                case .begin(let statement): session.send(statement)
                case .oneStatement: session.allowOneStatement()
                }
                let result = try body(session)
                guard locked else {
                    if case .begin = opening { try session.execute("COMMIT", []) }
                    release(connection, readOnly: readOnly, healthy: true)
                    return result
                }
                // The unlock is sent right behind the COMMIT, not after its answer: a process
                // stopped between the two would leave its turns held by a session that is not
                // in a transaction, which no server timeout ends.
                if case .begin = opening { session.send("COMMIT") }
                do {
                    try session.execute("SELECT pg_advisory_unlock_all()", [])
                } catch {
                    // The COMMIT failed, or its outcome is unknown: the call fails.
                    if session.sentStatementFailed.withLock({ $0 }) || session.abandoned.withLock({ $0 }) { throw error }
                    // Committed: a failure to unlock now is no failure of the call. The
                    // connection is then closed, which releases the locks with the session.
                    release(connection, readOnly: readOnly, healthy: false)
                    return result
                }
                release(connection, readOnly: readOnly, healthy: true)
                return result
            } catch {
                // A connection whose locks cannot be released is closed, which releases them;
                // one that stopped answering is not asked to roll back.
                var healthy = !session.abandoned.withLock({ $0 }) && !connection.isClosed
                if healthy, case .begin = opening { healthy = (try? session.execute("ROLLBACK", [])) != nil }
                if healthy, locked { healthy = (try? session.execute("SELECT pg_advisory_unlock_all()", [])) != nil }
                release(connection, readOnly: readOnly, healthy: healthy)
                if PostgresSession.isRetryable(error, uniqueViolations: retryingUniqueViolations), attempt < maxRetries {
                    attempt += 1
                    // Back off exponentially (1 ms doubling to 200 ms) with full jitter, so
                    // that transactions contending for the same rows (the company's ledger
                    // accounts are in every settlement) spread out instead of colliding
                    // again in lockstep.
                    usleep(UInt32.random(in: 0...min(200_000, UInt32(1_000) << UInt32(min(attempt, 8)))))
                    continue
                }
                throw error
            }
        }
    }

    private func acquire(readOnly: Bool) throws(StoreError) -> PostgresConnection {
        let (closed, reused) = state.withLock { state -> (Bool, PostgresConnection?) in
            state.closed ? (true, nil) : (false, readOnly ? state.idleReaders.popLast() : state.idle.popLast())
        }
        if closed { throw StoreError.closed }
        if let reused, !reused.isClosed { return reused }
        return try connect(readOnly: readOnly)
    }

    private func release(_ connection: PostgresConnection, readOnly: Bool, healthy: Bool) {
        let keep = healthy && !connection.isClosed && state.withLock { state -> Bool in
            guard !state.closed else { return false }
            if readOnly { state.idleReaders.append(connection) } else { state.idle.append(connection) }
            return true
        }
        // Waited for: a connection dropped before its channel has closed is a leak (and an
        // assertion in postgres-nio's debug builds).
        if !keep { let closing: EventLoopFuture<Void> = connection.close(); try? closing.wait() }
    }

    /// A new connection; for reads, its session refuses to write.
    private func connect(readOnly: Bool) throws(StoreError) -> PostgresConnection {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        var configuration = configuration
        if readOnly { configuration.options.additionalStartupParameters.append(("default_transaction_read_only", "on")) }
        do {
            return try PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.any(),
                configuration: configuration, id: id, logger: logger
            ).wait()
        } catch {
            throw StoreError.unavailable("\(endpoint): \(PostgresSession.reason(error))")
        }
    }

    /// The connection settings from a `postgres://` address, and the address without its
    /// password for messages.
    static func configuration(from url: String) throws(StoreError) -> (PostgresConnection.Configuration, String) {
        guard let components = URLComponents(string: url),
              components.scheme == "postgres" || components.scheme == "postgresql",
              let host = components.host, !host.isEmpty,
              let user = components.user, !user.isEmpty
        else {
            throw StoreError.unavailable("not a postgres://user:password@host:port/database address")
        }
        let port = components.port ?? 5432
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let parameter = { (name: String) in components.queryItems?.first(where: { $0.name == name })?.value }
        let sslMode = parameter("sslmode") ?? "prefer"
        var client = TLSConfiguration.makeClientConfiguration()
        client.minimumTLSVersion = .tlsv12
        if let root = parameter("sslrootcert") { client.trustRoots = .file(root) }
        switch sslMode {
        case "disable", "allow": break
        case "prefer", "require": client.certificateVerification = .none
        case "verify-ca": client.certificateVerification = .noHostnameVerification
        case "verify-full": client.certificateVerification = .fullVerification
        default: throw StoreError.unavailable("sslmode must be disable, prefer, require, verify-ca or verify-full, not \(sslMode.prefix(20))")
        }
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch sslMode {
            case "disable", "allow": tls = .disable
            case "prefer": tls = .prefer(try NIOSSLContext(configuration: client))
            default: tls = .require(try NIOSSLContext(configuration: client))
            }
        } catch { throw StoreError.unavailable("TLS: \(error)") }
        let configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: components.password,
            database: database.isEmpty ? nil : database, tls: tls)
        return (configuration, "\(user)@\(host):\(port)/\(database)")
    }
}

/// One connection inside one transaction, seen through `SQLConnection`.
struct PostgresSession: SQLConnection {
    let connection: PostgresConnection
    let logger: Logger
    /// Seconds a statement may go unanswered (see `PostgresStore.init`).
    let answerTimeout: TimeInterval
    /// Set when a statement went unanswered and the connection was closed.
    let abandoned = Locked(false)
    /// The first failure of a statement sent without waiting (`send(_:)`), until thrown.
    let pendingFailure = Locked<(any Error)?>(nil)
    /// Set for good when a statement sent without waiting failed.
    let sentStatementFailed = Locked(false)
    /// Lets the session run one statement only (outside a transaction); it refuses the next.
    func allowOneStatement() { budget.withLock { $0.left = 1 } }
    /// Whether the session refused a statement beyond its budget (the read then runs again
    /// in a transaction).
    var refusedSecondStatement: Bool { budget.withLock { $0.refused } }
    private let budget = Locked<(left: Int?, refused: Bool)>((nil, false))
    var dialect: SQLDialect { .postgres }

    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try run(sql, arguments).metadata.rows ?? 0
    }

    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [Storage.Row] {
        try run(sql, arguments).rows.map { row in
            var columns: [String] = []
            var values: [SQLValue] = []
            for cell in row {
                columns.append(cell.columnName)
                values.append(try Self.value(of: cell))
            }
            return Storage.Row(columns: columns, values: values)
        }
    }

    private func run(_ sql: String, _ arguments: [SQLValue]) throws -> PostgresQueryResult {
        // A statement sent on a connection the server has closed (it ended a stalled
        // transaction's session) would go unanswered until the answer timeout.
        guard !connection.isClosed else { throw StoreError.unavailable("the server closed the connection") }
        let allowed = budget.withLock { budget -> Bool in
            guard let left = budget.left else { return true }
            guard left > 0 else { budget.refused = true; return false }
            budget.left = left - 1
            return true
        }
        guard allowed else { throw StoreError.statement("a read of more than one statement runs again on one snapshot") }
        let answer = connection.query(PostgresQuery(unsafeSQL: numberingPlaceholders(sql), binds: Self.bindings(arguments)),
                                      logger: logger)
        // The answer is handed over in the callback that signals it. Why not `answer.wait()`:
        // from a thread outside the event loop, `wait()` registers its own callback through
        // the event loop and sleeps on a condition again, one more pair of thread switches
        // per statement, which on two cores cost a tenth of a trip's time.
        let result = Locked<Result<PostgresQueryResult, any Error>?>(nil)
        let answered = DispatchSemaphore(value: 0)
        answer.whenComplete { outcome in
            result.withLock { $0 = outcome }
            answered.signal()
        }
        if answered.wait(timeout: .now() + answerTimeout) == .timedOut {
            abandoned.withLock { $0 = true }
            let _: EventLoopFuture<Void> = connection.close()
            throw StoreError.unavailable("the server did not answer in \(Int(answerTimeout)) s; the connection was closed")
        }
        // A statement sent ahead without waiting (`send(_:)`) was answered before this one,
        // on the same connection, and its callback ran first on the same event loop.
        // Thrown once: the statements after it (a ROLLBACK) are answered on their own.
        if let failure = pendingFailure.withLock({ failure in defer { failure = nil }; return failure }) { throw Self.translate(failure) }
        switch result.withLock({ $0 }) {
        case .success(let answer): return answer
        case .failure(let error): throw Self.translate(error)
        case nil: throw StoreError.unavailable("the connection answered nothing")
        }
    }

    /// Sends `sql` (no arguments) without waiting for its answer: the connection runs its
    /// statements in order, so the next statement waited for is answered after it, and a
    /// failure of this one is thrown from there. For `BEGIN` and the turns before it, so that
    /// opening a transaction costs no trip of the calling thread through the event loop.
    func send(_ sql: String, _ arguments: [SQLValue] = []) {
        connection.query(PostgresQuery(unsafeSQL: numberingPlaceholders(sql), binds: Self.bindings(arguments)), logger: logger).whenFailure { [pendingFailure, sentStatementFailed] error in
            pendingFailure.withLock { if $0 == nil { $0 = error } }
            sentStatementFailed.withLock { $0 = true }
        }
    }

    private static func bindings(_ arguments: [SQLValue]) -> PostgresBindings {
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .null: binds.appendNull()
            case .integer(let v): binds.append(v)
            case .text(let s): binds.append(s)
            }
        }
        return binds
    }

    static func value(of cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .text, .varchar, .name, .bpchar: return .text(try cell.decode(String.self))
            default:
                throw StoreError.decoding(column: cell.columnName, expected: "BIGINT, BOOLEAN or TEXT, not \(cell.dataType)")
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.decoding(column: cell.columnName, expected: "a value of type \(cell.dataType)")
        }
    }

    /// Whether a failed transaction runs again: after a serialization failure or deadlock,
    /// and (read committed) after a unique violation.
    static func isRetryable(_ error: any Error, uniqueViolations: Bool) -> Bool {
        switch error {
        case StoreError.conflict: return true
        case StoreError.constraint(let message): return uniqueViolations && message.hasSuffix(uniqueViolation)
        default: return false
        }
    }

    /// How ``reason(_:)`` ends the message of a unique violation.
    static let uniqueViolation = "(SQLSTATE 23505)"

    static func translate(_ error: any Error) -> StoreError {
        guard let error = error as? PSQLError else { return .unavailable(reason(error)) }
        let message = reason(error)
        guard let state = error.serverInfo?[.sqlState] else { return .unavailable(message) }
        switch state {
        case "40001", "40P01": return .conflict(message)
        case _ where state.hasPrefix("23"): return .constraint(message)
        // 25P03: the server ended a session left idle inside a transaction.
        case _ where state.hasPrefix("08") || state.hasPrefix("57") || state == "25P03": return .unavailable(message)
        default: return .statement(message)
        }
    }

    /// The server's message, or the error's code, without the statement text or its values.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                return message + state
            }
            return "\(error.code)"
        }
        return "\(error)"
    }
}

/// `sql` with its `?` placeholders numbered `$1`, `$2`… as PostgreSQL wants them; a `?`
/// inside a quoted string, a quoted identifier or a comment is left alone.
func numberingPlaceholders(_ sql: String) -> String {
    var out = ""
    out.reserveCapacity(sql.utf8.count + 8)
    var n = 0
    var quote: Character? = nil
    var lineComment = false
    var previous: Character? = nil
    for ch in sql {
        if lineComment {
            if ch == "\n" { lineComment = false }
        } else if let q = quote {
            if ch == q { quote = nil }
        } else if ch == "'" || ch == "\"" {
            quote = ch
        } else if ch == "-" && previous == "-" {
            lineComment = true
        } else if ch == "?" {
            n += 1
            out += "$\(n)"
            previous = ch
            continue
        }
        out.append(ch)
        previous = ch
    }
    return out
}
