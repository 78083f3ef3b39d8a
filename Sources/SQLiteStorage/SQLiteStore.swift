import Essentials
import Foundation
import GRDB
import Storage

/// The embedded store: one SQLite file through GRDB.swift, nothing to install.
///
/// The file runs in WAL mode behind a `DatabasePool`: one writer at a time and concurrent
/// readers that each see one committed snapshot. `synchronous = FULL` makes every commit
/// durable before ``blockingWrite(_:)`` returns, so an acknowledged payment survives a power cut,
/// not only a crash of the process. Foreign keys are on.
///
/// `Sendable`: the pool is GRDB's `Sendable` `DatabasePool`, and the optional that says
/// whether it is closed sits in a `Locked`.
public final class SQLiteStore: SQLStore, Sendable {
    /// Always `SQLDialect.sqlite`.
    public var dialect: SQLDialect { .sqlite }
    /// The database file.
    public let path: String
    private let pool: Locked<DatabasePool?>

    /// Opens (and creates, when missing) the database file at `path`.
    ///
    /// - Parameters:
    ///   - path: the database file.
    ///   - busyTimeout: how long a writer waits for another process's write lock before the
    ///     call fails with `StoreError.conflict(_:)`.
    /// - Throws: `StoreError.unavailable(_:)` naming the path when the file cannot be
    ///   opened or is not a database.
    public init(path: String, busyTimeout: Duration = .seconds(10)) throws(StoreError) {
        self.path = path
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        let seconds = busyTimeout.inSeconds
        configuration.busyMode = .timeout(seconds)
        configuration.prepareDatabase { db in
            // FULL: the WAL is synced at every commit (NORMAL would lose the last
            // commits on power loss, which a ledger must not).
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            // Touch the file now, so that a file that is not a database fails here and not
            // at the first payment.
            _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            self.pool = Locked(pool)
        } catch {
            throw StoreError.unavailable("\(path): \(Self.reason(error))")
        }
    }

    private func openPool() throws(StoreError) -> DatabasePool {
        guard let pool = pool.withLock({ $0 }) else { throw StoreError.closed }
        return pool
    }

    /// Runs `body` in an immediate write transaction and commits before returning. SQLite
    /// runs one writer at a time, so `turns` and `isolation` have nothing to add and are ignored.
    public func blockingWrite<T>(locking turns: [String], isolation: WriteIsolation, _ body: (any SQLConnection) throws -> T) throws -> T {
        let pool = try openPool()
        return try Self.translatingErrors {
            try pool.write { db in try body(SQLiteConnection(db: db)) }
        }
    }

    /// Runs `body` on a reader that sees one committed snapshot.
    public func blockingRead<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        let pool = try openPool()
        return try Self.translatingErrors {
            try pool.read { db in try body(SQLiteConnection(db: db)) }
        }
    }

    /// Closes the pool; later calls throw `StoreError.closed`.
    public func close() {
        let open = pool.withLock { pool -> DatabasePool? in
            defer { pool = nil }
            return pool
        }
        try? open?.close()
    }

    /// Runs `work`, turning GRDB's errors into `StoreError` and passing the body's own
    /// errors through unchanged.
    private static func translatingErrors<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as DatabaseError {
            throw translate(error)
        }
    }

    static func translate(_ error: DatabaseError) -> StoreError {
        let message = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_CONSTRAINT: return .constraint(message)
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .conflict(message)
        case .SQLITE_CANTOPEN, .SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_IOERR, .SQLITE_FULL,
             .SQLITE_READONLY, .SQLITE_PERM:
            return .unavailable(message)
        default: return .statement(message)
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
        return "\(error)"
    }
}

/// A GRDB `Database` inside one transaction, seen through `SQLConnection`.
struct SQLiteConnection: SQLConnection {
    let db: Database
    var dialect: SQLDialect { .sqlite }

    // Statements come from GRDB's per-connection cache: the services run the same few
    // dozen SQL texts again and again, and preparing one anew (parsing it, and GRDB's
    // authorizer working out the tables it reads) cost more than running it: an eighth
    // of a whole trip's time before the cache.

    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        if Self.isOneStatement(sql) {
            try db.cachedStatement(sql: sql).execute(arguments: Self.arguments(arguments))
        } else {
            try db.execute(sql: sql, arguments: Self.arguments(arguments))
        }
        return db.changesCount
    }

    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [Storage.Row] {
        let rows = try GRDB.Row.fetchAll(db.cachedStatement(sql: sql), arguments: Self.arguments(arguments))
        return try rows.map { row in
            let columns = Array(row.columnNames)
            let values = try zip(columns, row.databaseValues).map { column, value -> SQLValue in
                switch value.storage {
                case .null: return .null
                case .int64(let v): return .integer(v)
                case .string(let s): return .text(s)
                case .double: throw StoreError.decoding(column: column, expected: "an integer or text, not a real")
                case .blob: throw StoreError.decoding(column: column, expected: "an integer or text, not a blob")
                }
            }
            return Storage.Row(columns: columns, values: values)
        }
    }

    /// Whether `sql` holds no `;` before its end (a script of several statements, such as
    /// a migration's, runs uncached).
    static func isOneStatement(_ sql: String) -> Bool {
        guard let semicolon = sql.utf8.firstIndex(of: UInt8(ascii: ";")) else { return true }
        return sql.utf8[sql.utf8.index(after: semicolon)...].allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }
    }

    private static func arguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .null: return nil
            case .integer(let v): return v
            case .text(let s): return s
            }
        })
    }
}
