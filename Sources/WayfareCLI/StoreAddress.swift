import Foundation
import PostgresStorage
import SQLiteStorage
import Storage

/// Where the services keep their records: `sqlite:PATH` (the embedded default: nothing to
/// install) or a `postgres://user@host:port/database` URL (the store for many nodes).
///
/// A PostgreSQL password never comes from the command line, where every user of the machine
/// reads it in `ps`: it comes from the environment variable `WAYFARE_STORE_PASSWORD` or from
/// the file named by `--store-password-file` (its first line). A URL with a password in it is
/// refused.
enum StoreAddress: Equatable {
    case sqlite(path: String)
    case postgres(url: String, password: String?)

    /// The environment variable that may hold the PostgreSQL password.
    static let passwordVariable = "WAYFARE_STORE_PASSWORD"

    /// Parses the `--store` value; `passwordFile` is `--store-password-file`.
    init(parsing text: String, passwordFile: String? = nil) throws(CLIError) {
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw CLIError("--store sqlite:PATH needs a path") }
            guard passwordFile == nil else { throw CLIError("--store-password-file goes with a postgres:// store") }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            guard let components = URLComponents(string: text) else { throw CLIError("--store: not a postgres:// URL") }
            guard components.password == nil else {
                throw CLIError("--store: no password in the URL (every user sees a command line in ps); set \(Self.passwordVariable) or give --store-password-file")
            }
            self = .postgres(url: text, password: try Self.password(file: passwordFile))
        } else {
            throw CLIError("--store must be sqlite:PATH or postgres://user@host:port/database, not \"\(text.prefix(40))\"")
        }
    }

    /// The password from `file` (its first line) or the environment, or nil.
    static func password(file: String?) throws(CLIError) -> String? {
        if let file { return try secret(firstLineOf: file, option: "--store-password-file") }
        return ProcessInfo.processInfo.environment[passwordVariable].flatMap { $0.isEmpty ? nil : $0 }
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
            case let .postgres(url, password): return try PostgresStore(url: url, password: password, maxConnections: connections)
            }
        } catch { throw CLIError("--store: \(error)") }
    }
}

/// A secret from the first line of `file` (secrets never sit on a command line, where every
/// user sees them in `ps`), at least `minimum` bytes long.
/// - Throws: a one-line error naming `option` when the file cannot be read or the line is short.
func secret(firstLineOf file: String, option: String, minimum: Int = 1) throws(CLIError) -> String {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw CLIError("\(option): cannot read \(file)") }
    guard let line = text.split(separator: "\n", omittingEmptySubsequences: false).first, line.utf8.count >= minimum else {
        throw CLIError("\(option): the first line of \(file) must hold a secret of at least \(minimum) characters")
    }
    return String(line)
}
