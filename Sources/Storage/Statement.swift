/// An SQL statement with its values bound where they appear, the way GRDB's SQL
/// interpolation reads:
///
/// ```swift
/// try c.execute("UPDATE users SET name = \(name) WHERE id = \(id)")
/// let row = try c.first("SELECT name FROM users WHERE id = \(id)")
/// ```
///
/// Each interpolated value becomes a `?` placeholder and an argument, never text spliced
/// into the SQL, so no value can change what the statement does. A fragment built apart is
/// spliced with `\(sql: fragment)`, which keeps its own arguments in order.
///
/// Why not plain strings with an argument list: a value sixteen places away from its `?`
/// is a value that can silently move to the wrong column.
public struct Statement: ExpressibleByStringInterpolation, Sendable, Equatable {
    /// The SQL, with `?` placeholders.
    public private(set) var text: String
    /// The values of the placeholders, in order.
    public private(set) var arguments: [SQLValue]

    /// A statement from its text and arguments.
    public init(_ text: String, arguments: [SQLValue] = []) {
        self.text = text
        self.arguments = arguments
    }

    /// A statement with no values.
    public init(stringLiteral value: String) { self.init(value) }

    /// Adds `other` at the end, with its values (a query built clause by clause).
    public mutating func append(_ other: Statement) {
        text += other.text
        arguments += other.arguments
    }

    /// `parts` one after another with `separator` (SQL text) between them.
    public static func joined(_ parts: [Statement], separator: String) -> Statement {
        var out = Statement("")
        for (i, part) in parts.enumerated() {
            if i > 0 { out.text += separator }
            out.append(part)
        }
        return out
    }

    /// A statement from an interpolated literal.
    public init(stringInterpolation: Interpolation) { self.init(stringInterpolation.text, arguments: stringInterpolation.arguments) }

    /// How a literal with `\(value)`s builds a statement.
    public struct Interpolation: StringInterpolationProtocol {
        var text = ""
        var arguments: [SQLValue] = []

        /// Room for the literal.
        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount)
            arguments.reserveCapacity(interpolationCount)
        }

        /// SQL text, as written.
        public mutating func appendLiteral(_ literal: String) { text += literal }

        /// A value, bound to a placeholder.
        public mutating func appendInterpolation(_ value: some SQLBindable) {
            text += "?"
            arguments.append(value.sqlValue)
        }

        /// A value or NULL, bound to a placeholder. The same as the form above; spelled out
        /// so that the compiler knows an optional here is bound, not printed (it warns of
        /// any optional passed to a generic interpolation).
        public mutating func appendInterpolation<Wrapped: SQLBindable>(_ value: Wrapped?) {
            text += "?"
            arguments.append(value.sqlValue)
        }

        /// A fragment built apart, with its own values.
        public mutating func appendInterpolation(sql fragment: Statement) {
            text += fragment.text
            arguments += fragment.arguments
        }
    }
}

/// A Swift value that binds to a placeholder: integers, text, Booleans (0 or 1), their
/// optionals (NULL), and ``SQLValue`` itself.
public protocol SQLBindable {
    /// The value as the store holds it.
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLBindable {
    /// Itself.
    public var sqlValue: SQLValue { self }
}

extension Int64: SQLBindable {
    /// An integer.
    public var sqlValue: SQLValue { .integer(self) }
}

extension Int: SQLBindable {
    /// An integer.
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension String: SQLBindable {
    /// Text.
    public var sqlValue: SQLValue { .text(self) }
}

extension Bool: SQLBindable {
    /// 1 or 0.
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    /// The value, or NULL.
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension SQLConnection {
    /// Runs a statement that returns no rows, and returns how many rows it changed.
    @discardableResult
    public func execute(_ statement: Statement) throws -> Int { try execute(statement.text, statement.arguments) }

    /// Runs a query and returns all its rows.
    public func query(_ statement: Statement) throws -> [Row] { try query(statement.text, statement.arguments) }

    /// The first row of a query, or nil when it returns none.
    public func first(_ statement: Statement) throws -> Row? { try query(statement.text, statement.arguments).first }

    /// Every row of a query, each decoded by column name into `T` (see ``RowDecoder``).
    public func fetchAll<T: Decodable>(_ type: T.Type, _ statement: Statement) throws -> [T] {
        try query(statement).map { try RowDecoder.decode(type, from: $0) }
    }

    /// The first row of a query decoded into `T`, or nil when it returns none.
    public func fetchOne<T: Decodable>(_ type: T.Type, _ statement: Statement) throws -> T? {
        try first(statement).map { try RowDecoder.decode(type, from: $0) }
    }
}
