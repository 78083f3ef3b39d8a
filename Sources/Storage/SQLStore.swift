import Foundation

/// The SQL dialect of a store: the few places where SQLite and PostgreSQL differ.
///
/// The services write one SQL text for both engines: `?` placeholders (the PostgreSQL store
/// numbers them), `BIGINT` and `TEXT` columns, `ON CONFLICT … DO NOTHING`, `RETURNING`.
/// Migrations may name a dialect-specific spelling through ``Migration``'s tokens.
public enum SQLDialect: String, Sendable, CaseIterable {
    /// SQLite, through GRDB.swift.
    case sqlite
    /// PostgreSQL, through postgres-nio.
    case postgres
}

/// A connection inside one transaction: the only way the services touch a store.
///
/// It is handed to the body of ``SQLStore/blockingWrite(_:)`` or ``SQLStore/blockingRead(_:)`` and must not
/// escape it. It is not `Sendable`: a transaction belongs to the thread that runs its body.
public protocol SQLConnection {
    /// The engine behind this connection.
    var dialect: SQLDialect { get }
    /// Runs a statement that returns no rows, and returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int
    /// Runs a query and returns all its rows.
    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [Row]
}

/// The advisory lock key of a turn's name on PostgreSQL: FNV-1a over its UTF-8 bytes, as a
/// signed 64-bit integer (the `bigint` key space). A collision only makes two turns wait
/// for each other.
public func turnKey(_ name: String) -> Int64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return Int64(bitPattern: hash)
}

/// How a write transaction keeps its rules against the transactions running beside it.
///
/// SQLite runs one writer at a time, so both are serializable there.
public enum WriteIsolation: Sendable {
    /// `SERIALIZABLE` on PostgreSQL: the outcome of some serial order whatever the body
    /// reads, at the price of aborting (and running again) transactions whose reads and
    /// writes cross, which on a busy table includes many that never touched the same row.
    case serializable
    /// `READ COMMITTED` on PostgreSQL with row locks: the body locks every row whose value
    /// decides what it writes (``SQLConnection/forUpdate`` on the query that reads it),
    /// before it reads it, and each statement sees what committed before it. Transactions
    /// that touch different rows then never wait for or abort each other. Rows it changes
    /// without reading are safe without a lock: an `UPDATE … SET x = x + …` applies to the
    /// latest committed row. A unique violation is taken for a concurrent insert of the same
    /// key, and the body runs again (and finds that row).
    case rowLocks
}

extension SQLConnection {
    /// What ends a query that reads rows the transaction will change or decide by: `FOR NO
    /// KEY UPDATE` on PostgreSQL (a row lock that still lets other rows reference the row),
    /// nothing on SQLite, whose writer is alone. For ``WriteIsolation/rowLocks``.
    public var forUpdate: Statement { dialect == .postgres ? " FOR NO KEY UPDATE" : "" }

    /// What ends a query that reads a row the transaction decides by but does not change:
    /// `FOR SHARE` on PostgreSQL (a writer of that row waits until this transaction ends),
    /// nothing on SQLite.
    public var forShare: Statement { dialect == .postgres ? " FOR SHARE" : "" }

    /// Waits, inside the transaction, until no other transaction holds the turn `name`, and
    /// holds it until this one ends (a transaction-level advisory lock on PostgreSQL; nothing
    /// on SQLite). For ``WriteIsolation/rowLocks``: a serializable transaction has taken its
    /// snapshot by then, so it should name its turns to ``SQLStore/blockingWrite(locking:isolation:_:)``.
    public func takeTurn(_ name: String) throws {
        guard dialect == .postgres else { return }
        try execute("SELECT pg_advisory_xact_lock(\(turnKey(name)))")
    }

    /// The first row of a query, or nil when it returns none.
    ///
    /// (A statement without arguments is a ``Statement``: `first("SELECT 1 AS one")`.
    /// There is deliberately no single-`String` form, so that an interpolated literal can
    /// only ever bind its values, never splice them into the SQL.)
    public func first(_ sql: String, _ arguments: [SQLValue]) throws -> Row? {
        try query(sql, arguments).first
    }
}

/// A transactional SQL store: SQLite (`SQLiteStore`, in `SQLiteStorage`) or PostgreSQL (`PostgresStore`, in `PostgresStorage`).
///
/// Every call runs its body in one transaction that commits when the body returns and rolls
/// back when it throws, so an operation that touches several rows is applied whole or not at
/// all. Transactions are serializable on both engines: SQLite has one writer at a time, and
/// the PostgreSQL store runs `SERIALIZABLE` transactions and runs the body again after a
/// serialization failure. A body must therefore do nothing but database work (no network
/// call, no notification, no clock read that must not repeat): the body is synchronous on
/// purpose, so that it cannot await a gateway while it holds a transaction open.
///
/// Errors of the engine arrive as ``StoreError``; errors the body throws arrive unchanged.
public protocol SQLStore: Sendable {
    /// The engine.
    var dialect: SQLDialect { get }
    /// Runs `body` in a read-write transaction; blocks the calling thread until it commits.
    ///
    /// Services call the async ``write(locking:isolation:_:)``, which runs this on a Dispatch worker;
    /// the blocking form is for command-line tools, migrations and tests.
    ///
    /// - Parameters:
    ///   - turns: names of turns its writers take: the transaction waits, before it reads
    ///     anything, until no other transaction that names one of them is running, on any
    ///     node. Why: rows that many transactions update (a ledger account every trip of a
    ///     shard pays through) make concurrent serializable transactions abort each other;
    ///     taking turns up front turns those aborts into short waits, and transactions that
    ///     name different turns still run at once. Correctness never depends on them. SQLite
    ///     already runs one writer at a time and ignores them.
    ///   - isolation: how the transaction keeps its rules against concurrent ones.
    ///   - body: the work, run once (again after a serialization failure on PostgreSQL).
    @discardableResult
    func blockingWrite<T>(locking turns: [String], isolation: WriteIsolation,
                          _ body: (any SQLConnection) throws -> T) throws -> T
    /// Runs `body` read-only on one consistent snapshot.
    ///
    /// The body may run more than once: the PostgreSQL store runs a body's first statement
    /// on its own (one statement sees one snapshot, with no `BEGIN` and `COMMIT` around it)
    /// and, when the body asks for a second, runs it again from the start in a transaction.
    func blockingRead<T>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// Closes the store's connections. Later calls throw ``StoreError/closed``.
    func close()
}

extension SQLStore {
    /// Runs `body` in a read-write transaction that takes turns with no other writer; blocks
    /// the calling thread until it commits.
    @discardableResult
    public func blockingWrite<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try blockingWrite(locking: [], isolation: .serializable, body)
    }

    /// Runs `body` in a read-write transaction that takes `turns` (see
    /// ``blockingWrite(locking:isolation:_:)``), serializable.
    @discardableResult
    public func blockingWrite<T>(locking turns: [String], _ body: (any SQLConnection) throws -> T) throws -> T {
        try blockingWrite(locking: turns, isolation: .serializable, body)
    }

    /// Runs `body` in a read-write transaction without blocking a Swift concurrency thread:
    /// the blocking call runs on a Dispatch worker.
    ///
    /// - Parameters:
    ///   - turns: the turns its writers take (see ``blockingWrite(locking:isolation:_:)``).
    ///   - isolation: serializable unless the body locks what it decides by.
    ///   - body: the work.
    @discardableResult
    public func write<T: Sendable>(locking turns: [String] = [], isolation: WriteIsolation = .serializable,
                                   _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await offThePool { try self.blockingWrite(locking: turns, isolation: isolation, body) }
    }

    /// Runs `body` in a read-only transaction without blocking a Swift concurrency thread.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await offThePool { try self.blockingRead(body) }
    }
}

/// Runs blocking work on a Dispatch worker thread and resumes the caller with its result.
///
/// Why: both stores block (SQLite on its file lock and fsync, the PostgreSQL store on the
/// network), and blocking the cooperative pool would starve every other task.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}

/// A failure of the store itself, as opposed to a rule of a service.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The store could not be opened or reached: the path or address and the reason.
    case unavailable(String)
    /// A uniqueness, foreign-key or check constraint refused a change: the engine's message.
    case constraint(String)
    /// Concurrent transactions kept conflicting after every retry.
    case conflict(String)
    /// The engine refused a statement: the engine's message (a bug in the SQL, or a schema
    /// older or newer than this build).
    case statement(String)
    /// A column held a value of another type than the code expected.
    case decoding(column: String, expected: String)
    /// The database was written by a newer Wayfare: its schema version and ours.
    case schemaTooNew(found: Int, known: Int)
    /// The store was closed.
    case closed

    /// One line for logs and users; never an SQL text with values in it.
    public var description: String {
        switch self {
        case .unavailable(let why): return "store unavailable: \(why)"
        case .constraint(let why): return "store refused the change: \(why)"
        case .conflict(let why): return "store conflict: \(why)"
        case .statement(let why): return "store statement failed: \(why)"
        case .decoding(let column, let expected): return "column \(column) does not hold \(expected)"
        case .schemaTooNew(let found, let known):
            return "database schema version \(found) is newer than this build's \(known)"
        case .closed: return "store is closed"
        }
    }
}
