import Essentials
import Foundation
import GeoJSON

/// Reads JSON into the API's `Decodable` types, strictly for requests and leniently for
/// answers.
///
/// Strict (what the server reads from the network):
/// - a field the type does not name is refused, at any depth, and so is a name twice;
/// - each text, whole number, number and list is checked against its key's ``FieldRule``
///   (a field with no rule is refused: every limit is stated);
/// - a whole number is converted with `init(exactly:)`: `2^63`, `1e308` and `0.5` are
///   refused with the field's name, never rounded and never trapped on;
/// - `null` is the same as an absent field.
///
/// Lenient (what a client reads from the server): unknown fields are ignored, so a newer
/// server's additions do not break an older client, and rules are not applied.
///
/// Why its own decoder rather than `JSONDecoder`: Foundation's decoder ignores unknown keys,
/// keeps the last of duplicate keys, and gives errors in Swift's terms (`keyNotFound`,
/// `typeMismatch`) that name no field a client sent.
public struct WireDecoder: Sendable {
    /// Whether unknown fields are refused and rules applied.
    public let strict: Bool

    /// A decoder for requests (`strict`) or answers.
    public init(strict: Bool) { self.strict = strict }

    /// The request decoder.
    public static let requests = WireDecoder(strict: true)
    /// The answer decoder.
    public static let answers = WireDecoder(strict: false)

    /// Decodes `T` from the bytes of a JSON document.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws(WireError) -> T {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch { throw WireError("body", "is not valid JSON: \(error.description)") }
        return try decode(type, from: value)
    }

    /// Decodes `T` from a parsed JSON value.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(WireError) -> T {
        let reads = ReadLog()
        do {
            let result = try ValueReader(value: value, path: [], rule: nil, strict: strict, reads: reads).read(T.self)
            if strict { try reads.refuseUnread() }
            return result
        } catch let error as WireError {
            throw error
        } catch let error as DecodingError {
            throw Self.wireError(error)
        } catch {
            throw WireError("body", "cannot be read: \(error)")
        }
    }

    /// A `DecodingError` a type's own `init(from:)` threw, in the API's words.
    static func wireError(_ error: DecodingError) -> WireError {
        switch error {
        case let .dataCorrupted(c), let .typeMismatch(_, c), let .valueNotFound(_, c):
            return WireError(fieldName(c.codingPath), c.debugDescription.isEmpty ? "is not valid" : c.debugDescription)
        case let .keyNotFound(key, c):
            return WireError(fieldName(c.codingPath + [key]), "is required")
        @unknown default:
            return WireError("body", "cannot be read")
        }
    }
}

/// The objects read and the fields each read asked for: what no one asked for is unknown.
final class ReadLog {
    var objects: [(path: [any CodingKey], members: [(String, JSONValue)], asked: Set<String>)] = []
    private var slots: [String: Int] = [:]

    /// The record of the object at `path`: one record however many times a type (or a type
    /// and the one it embeds) opens the object.
    func slot(for path: [any CodingKey], members: [(String, JSONValue)]) -> Int {
        // By name in a dictionary: a list of a thousand objects opens a thousand records, and
        // a scan of the earlier ones for each would cost half a million comparisons.
        let name = fieldName(path)
        if let i = slots[name] { return i }
        objects.append((path, members, []))
        slots[name] = objects.count - 1
        return objects.count - 1
    }

    func refuseUnread() throws(WireError) {
        for object in objects {
            if let unknown = object.members.first(where: { !object.asked.contains($0.0) }) {
                throw WireError(fieldName(object.path + [NameKey(unknown.0)]), "is not a field of this request")
            }
        }
    }
}

/// One value being read, with its path and the rule its key states.
struct ValueReader: Decoder {
    let value: JSONValue
    let path: [any CodingKey]
    let rule: FieldRule?
    let strict: Bool
    let reads: ReadLog

    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var field: String { fieldName(path) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case let .object(members) = value else { throw WireError(field, "must be a JSON object") }
        var seen = Set<String>()
        for (key, _) in members where !seen.insert(key).inserted {
            throw WireError(fieldName(path + [NameKey(key)]), "appears twice")
        }
        return KeyedDecodingContainer(ObjectReader<Key>(members: members, path: path, strict: strict, reads: reads,
                                                        slot: reads.slot(for: path, members: members)))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case let .array(items) = value else { throw WireError(field, "must be a JSON array") }
        if strict {
            guard case let .list(maximum) = rule else { throw WireError(field, "has no stated limit (a server error)") }
            guard items.count <= maximum else { throw WireError(field, "must have at most \(maximum) items") }
        }
        return ListReader(items: items, path: path, strict: strict, reads: reads)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// The value as `T`: the leaves here, anything else through its own `init(from:)`.
    func read<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self { return try text() as! T }
        if T.self == Bool.self { return try bool() as! T }
        if T.self == Double.self { return try number() as! T }
        if T.self == Int64.self { return try integer() as! T }
        if T.self == Int.self {
            guard let n = Int(exactly: try integer()) else { throw WireError(field, "is out of range") }
            return n as! T
        }
        if T.self == Date.self {
            guard case let .string(s) = value, let d = ISO8601.date(s) else {
                throw WireError(field, "must be an ISO 8601 time such as 2026-11-25T18:30:00Z")
            }
            return d as! T
        }
        if let choice = T.self as? any WireChoice.Type { return try self.choice(choice) as! T }
        return try T(from: self)
    }

    private func choice<C: WireChoice>(_ type: C.Type) throws -> C {
        let names = C.allCases.map(\.rawValue)
        guard case let .string(s) = value, let c = C(rawValue: s) else {
            throw WireError(field, "must be one of \(names.joined(separator: ", "))")
        }
        return c
    }

    private func text() throws -> String {
        guard case let .string(s) = value else { throw WireError(field, "must be a string") }
        guard strict else { return s }
        guard case let .text(maximum, minimum) = rule else { throw WireError(field, "has no stated limit (a server error)") }
        let count = s.unicodeScalars.count
        guard count <= maximum else { throw WireError(field, "must be at most \(maximum) characters") }
        guard count >= minimum else { throw WireError(field, minimum == 1 ? "must not be empty" : "must be at least \(minimum) characters") }
        return s
    }

    private func bool() throws -> Bool {
        guard case let .bool(b) = value else { throw WireError(field, "must be true or false") }
        return b
    }

    private func number() throws -> Double {
        guard case let .number(d) = value, d.isFinite else { throw WireError(field, "must be a number") }
        guard strict else { return d }
        guard case let .number(range) = rule else { throw WireError(field, "has no stated limit (a server error)") }
        guard range.contains(d) else { throw WireError(field, "must be a number from \(format(range.lowerBound)) to \(format(range.upperBound))") }
        return d
    }

    private func integer() throws -> Int64 {
        if !strict {
            guard case let .number(d) = value, let n = Int64(exactly: d) else { throw WireError(field, "must be a whole number") }
            return n
        }
        guard case let .integer(range) = rule else { throw WireError(field, "has no stated limit (a server error)") }
        // `Int64(exactly:)`, never `Int64(_:)`: a double at or past 2^63 (which is what
        // `Double(Int64.max)` rounds to) would trap, and one request would end the process.
        guard case let .number(d) = value, let n = Int64(exactly: d), range.contains(n) else {
            throw WireError(field, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    private func format(_ d: Double) -> String { JSONValue.format(d) }
}

extension ValueReader: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try read(type) }
    func decode(_ type: String.Type) throws -> String { try read(type) }
    func decode(_ type: Double.Type) throws -> Double { try read(type) }
    func decode(_ type: Float.Type) throws -> Float { Float(try read(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try read(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try narrow(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try narrow(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try narrow(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try read(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try narrow(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try narrow(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try narrow(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try narrow(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try narrow(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try read(type) }

    private func narrow<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard let n = T(exactly: try read(Int64.self)) else { throw WireError(field, "is out of range") }
        return n
    }
}

/// The fields of one object.
struct ObjectReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(String, JSONValue)]
    let path: [any CodingKey]
    let strict: Bool
    let reads: ReadLog
    let slot: Int

    var codingPath: [any CodingKey] { path }
    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.0) } }

    private func member(_ key: Key) -> JSONValue? {
        reads.objects[slot].asked.insert(key.stringValue)
        guard let v = members.first(where: { $0.0 == key.stringValue })?.1, v != .null else { return nil }
        return v
    }

    private func reader(_ key: Key, _ value: JSONValue) -> ValueReader {
        ValueReader(value: value, path: path + [key], rule: (key as? any WireKey)?.rule, strict: strict, reads: reads)
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }
    func decodeNil(forKey key: Key) throws -> Bool { member(key) == nil }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let v = member(key) else { throw WireError(fieldName(path + [key]), "is required") }
        return try reader(key, v).read(type)
    }

    private func decodeLeaf<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let v = member(key) else { throw WireError(fieldName(path + [key]), "is required") }
        return try reader(key, v).singleValueContainer().decode(type)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeLeaf(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeLeaf(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeLeaf(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeLeaf(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeLeaf(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeLeaf(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeLeaf(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeLeaf(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeLeaf(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeLeaf(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeLeaf(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeLeaf(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeLeaf(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeLeaf(type, forKey: key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let v = member(key) else { return nil }
        return try reader(key, v).read(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        guard let v = member(key) else { throw WireError(fieldName(path + [key]), "is required") }
        return try reader(key, v).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        guard let v = member(key) else { throw WireError(fieldName(path + [key]), "is required") }
        return try reader(key, v).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { throw WireError(fieldName(path), "cannot be read") }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw WireError(fieldName(path + [key]), "cannot be read") }
}

/// The items of one list; each item inherits no rule (an item that is an object states its
/// own).
struct ListReader: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let path: [any CodingKey]
    let strict: Bool
    let reads: ReadLog
    var currentIndex = 0

    init(items: [JSONValue], path: [any CodingKey], strict: Bool, reads: ReadLog) {
        self.items = items
        self.path = path
        self.strict = strict
        self.reads = reads
    }

    var codingPath: [any CodingKey] { path }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next() throws -> ValueReader {
        guard !isAtEnd else { throw WireError(fieldName(path), "has too few items") }
        defer { currentIndex += 1 }
        return ValueReader(value: items[currentIndex], path: path + [IndexKey(currentIndex)], rule: nil, strict: strict, reads: reads)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().read(type) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}
