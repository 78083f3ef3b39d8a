/// A value bound to a statement or read from a row.
///
/// Only what both engines store the same way: 64-bit integers (money in minor units,
/// times in milliseconds, coordinates in 1e-7 degrees) and text. No floating point: nothing
/// the services store needs it, and money must never touch it.
public enum SQLValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer (`BIGINT`).
    case integer(Int64)
    /// UTF-8 text (`TEXT`).
    case text(String)
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A string literal.
    public init(stringLiteral value: String) { self = .text(value) }
    /// `nil`: SQL NULL.
    public init(nilLiteral: ()) { self = .null }
}

extension SQLValue {
    /// An integer.
    public init(_ value: Int) { self = .integer(Int64(value)) }
    /// An integer.
    public init(_ value: Int64) { self = .integer(value) }
    /// Text.
    public init(_ value: String) { self = .text(value) }
    /// A Boolean as 0 or 1, the same on both engines.
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
    /// An optional integer: NULL when nil.
    public init(_ value: Int64?) { self = value.map { .integer($0) } ?? .null }
    /// An optional integer: NULL when nil.
    public init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    /// Optional text: NULL when nil.
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
}

/// One row of a query's answer, read by column name.
public struct Row: Sendable {
    /// The column names, in the order of the query.
    public let columns: [String]
    /// The values, in the order of ``columns``.
    public let values: [SQLValue]

    /// A row from its columns and values.
    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of a column, or nil when the query has no such column (the typed readers
    /// below turn that into ``StoreError/decoding(column:expected:)``).
    public subscript(column: String) -> SQLValue? {
        guard let i = columns.firstIndex(of: column) else { return nil }
        return values[i]
    }

    /// An integer column.
    public func int64(_ column: String) throws -> Int64 {
        guard case .integer(let v) = self[column] else { throw StoreError.decoding(column: column, expected: "an integer") }
        return v
    }

    /// An integer column as `Int`.
    public func int(_ column: String) throws -> Int {
        let v = try int64(column)
        guard let i = Int(exactly: v) else { throw StoreError.decoding(column: column, expected: "an Int") }
        return i
    }

    /// An integer column that may be NULL.
    public func optionalInt64(_ column: String) throws -> Int64? {
        switch self[column] {
        case .integer(let v): return v
        case .null: return nil
        default: throw StoreError.decoding(column: column, expected: "an integer or NULL")
        }
    }

    /// A 0/1 column as a Boolean.
    public func bool(_ column: String) throws -> Bool { try int64(column) != 0 }

    /// A text column.
    public func string(_ column: String) throws -> String {
        guard case .text(let v) = self[column] else { throw StoreError.decoding(column: column, expected: "text") }
        return v
    }

    /// A text column that may be NULL.
    public func optionalString(_ column: String) throws -> String? {
        switch self[column] {
        case .text(let v): return v
        case .null: return nil
        default: throw StoreError.decoding(column: column, expected: "text or NULL")
        }
    }
}
