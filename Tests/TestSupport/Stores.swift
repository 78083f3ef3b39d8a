import Foundation
import PostgresStorage
import SQLiteStorage
import Services
import Storage
import Testing

/// The two engines every service test runs on.
public enum Engine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// SQLite, through GRDB.
    case sqlite
    /// PostgreSQL, through postgres-nio.
    case postgres
    /// The engine's name in test output.
    public var testDescription: String { rawValue }
}

/// The address of the throwaway PostgreSQL server that scripts/test.sh starts, or nil.
public let postgresURL: String? = ProcessInfo.processInfo.environment["WAYFARE_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

/// A fresh, empty store of one engine, and how to throw it away.
///
/// SQLite: a new file in a new temporary folder. PostgreSQL: a new database on the test
/// server, dropped afterwards. Returns nil (after recording why) when the engine is
/// PostgreSQL and no server was started: the test then checks SQLite only.
public final class ScratchStore: @unchecked Sendable {
    /// The store.
    public let store: any SQLStore
    /// Its engine.
    public let engine: Engine
    private let cleanup: () -> Void
    /// How to open the same database again (the crash test's child process uses it).
    public let address: String

    private init(store: any SQLStore, engine: Engine, address: String, cleanup: @escaping () -> Void) {
        self.store = store
        self.engine = engine
        self.address = address
        self.cleanup = cleanup
    }

    /// A fresh store of `engine`, migrated to `ServiceSchema` unless `migrate` is false.
    public static func make(_ engine: Engine, migrate: Bool = true) throws -> ScratchStore? {
        switch engine {
        case .sqlite:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayfare-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let path = dir.appendingPathComponent("wayfare.sqlite").path
            let store = try SQLiteStore(path: path)
            if migrate { try store.migrate(ServiceSchema.migrations) }
            return ScratchStore(store: store, engine: engine, address: "sqlite:" + path) {
                store.close()
                try? FileManager.default.removeItem(at: dir)
            }
        case .postgres:
            guard let base = postgresURL else {
                print("skipping PostgreSQL: WAYFARE_POSTGRES_URL is not set (scripts/test.sh starts a server and sets it)")
                return nil
            }
            let database = try ScratchDatabase(on: base)
            let store = try PostgresStore(url: database.url, maxConnections: 16)
            if migrate { try store.migrate(ServiceSchema.migrations) }
            return ScratchStore(store: store, engine: engine, address: database.url) {
                store.close()
                database.drop()
            }
        }
    }

    deinit { cleanup() }
}

/// A new, empty database on the test PostgreSQL server at `base`, dropped by ``drop()`` (the
/// scratch stores and the failover test's replicas use one each).
public final class ScratchDatabase: @unchecked Sendable {
    /// Its URL: `base` with the new database's name as the path.
    public let url: String
    private let name: String
    private let admin: PostgresStore

    /// Creates the database.
    public init(on base: String, prefix: String = "wf_") throws {
        name = prefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        admin = try PostgresStore(url: base, maxConnections: 1)
        try admin.executeOutsideTransaction("CREATE DATABASE \(name)")
        guard var components = URLComponents(string: base) else { throw StoreError.unavailable("not a URL: the test server's") }
        components.path = "/" + name
        url = components.string ?? base
    }

    /// Drops the database, whoever is still connected.
    public func drop() {
        try? admin.executeOutsideTransaction("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        admin.close()
    }
}
