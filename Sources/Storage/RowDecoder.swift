/// Decodes a ``Row`` into a `Decodable` record by column name: a property named by its
/// coding key reads the column of that name, so a query's column order never matters and a
/// renamed column is an error naming it (``StoreError/decoding(column:expected:)``), not a
/// value read from the wrong place. The same on both stores: they answer the same `Row`s.
///
/// Columns are integers, text or NULL (the stores hold nothing else): `Int64`, `Int`,
/// `Bool` (0 or 1), `String`, and their optionals; a `RawRepresentable` enum of those raw
/// types decodes through its raw value. A whole number that does not fit the property is a
/// decoding error, never a trap.
public enum RowDecoder {
    /// `row` as a `T`.
    public static func decode<T: Decodable>(_ type: T.Type, from row: Row) throws -> T {
        try T(from: RowReader(row: row))
    }
}

struct RowReader: Decoder {
    let row: Row
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ColumnReader<Key>(row: row))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw StoreError.decoding(column: "(row)", expected: "a record with named fields")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw StoreError.decoding(column: "(row)", expected: "a record with named fields")
    }
}

struct ColumnReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: Row
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { row.columns.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { row[key.stringValue] != nil }
    func decodeNil(forKey key: Key) throws -> Bool { row[key.stringValue] == .null }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try row.bool(key.stringValue) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try row.string(key.stringValue) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try row.int64(key.stringValue) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try row.int(key.stringValue) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try narrow(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try narrow(key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw unsupported(key, "Double") }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw unsupported(key, "Float") }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try narrow(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try narrow(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try narrow(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try narrow(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try narrow(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try narrow(key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        // One column holds one value: a nested type decodes from that column alone.
        try T(from: ColumnValueReader(row: row, column: key.stringValue))
    }

    private func narrow<T: FixedWidthInteger>(_ key: Key) throws -> T {
        guard let n = T(exactly: try row.int64(key.stringValue)) else {
            throw StoreError.decoding(column: key.stringValue, expected: "a whole number that fits \(T.self)")
        }
        return n
    }

    private func unsupported(_ key: Key, _ type: String) -> StoreError {
        StoreError.decoding(column: key.stringValue, expected: "an integer or text column (the stores hold no \(type))")
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw StoreError.decoding(column: key.stringValue, expected: "one value")
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw StoreError.decoding(column: key.stringValue, expected: "one value")
    }
    func superDecoder() throws -> any Decoder { RowReader(row: row) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RowReader(row: row) }
}

/// One column as a single value: what a `RawRepresentable` enum's `init(from:)` reads.
struct ColumnValueReader: Decoder, SingleValueDecodingContainer {
    let row: Row
    let column: String
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw StoreError.decoding(column: column, expected: "one value")
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw StoreError.decoding(column: column, expected: "one value") }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { row[column] == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try row.bool(column) }
    func decode(_ type: String.Type) throws -> String { try row.string(column) }
    func decode(_ type: Int64.Type) throws -> Int64 { try row.int64(column) }
    func decode(_ type: Int.Type) throws -> Int { try row.int(column) }
    func decode(_ type: Double.Type) throws -> Double { throw StoreError.decoding(column: column, expected: "an integer or text column") }
    func decode(_ type: Float.Type) throws -> Float { throw StoreError.decoding(column: column, expected: "an integer or text column") }
    func decode(_ type: Int8.Type) throws -> Int8 { try narrow() }
    func decode(_ type: Int16.Type) throws -> Int16 { try narrow() }
    func decode(_ type: Int32.Type) throws -> Int32 { try narrow() }
    func decode(_ type: UInt.Type) throws -> UInt { try narrow() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try narrow() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try narrow() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try narrow() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try narrow() }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }

    private func narrow<T: FixedWidthInteger>() throws -> T {
        guard let n = T(exactly: try row.int64(column)) else {
            throw StoreError.decoding(column: column, expected: "a whole number that fits \(T.self)")
        }
        return n
    }
}
