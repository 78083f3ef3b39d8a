import Foundation
import PostgresStorage
import Storage

/// Where the services keep their records: `sqlite:PATH` (the embedded default: nothing to
/// install) or a `postgres://user:password@host:port/database` URL (the store for many nodes).
enum StoreAddress: Equatable {
    case sqlite(path: String)
    case postgres(url: String)

    /// Parses the `--store` value.
    init(parsing text: String) throws(CLIError) {
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw CLIError("--store sqlite:PATH needs a path") }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else {
            throw CLIError("--store must be sqlite:PATH or postgres://user:password@host:port/database, not \"\(text.prefix(40))\"")
        }
    }

    /// The engine's name, for reports.
    var engine: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres: "postgresql"
        }
    }

    /// Opens the store (its errors never print a password).
    func open(connections: Int = 8) throws(CLIError) -> any SQLStore {
        do {
            switch self {
            case let .sqlite(path): return try SQLiteStore(path: path)
            case let .postgres(url): return try PostgresStore(url: url, maxConnections: connections)
            }
        } catch { throw CLIError("--store: \(error)") }
    }
}
