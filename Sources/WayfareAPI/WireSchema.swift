import Foundation
import GeoJSON

/// The JSON Schema of an API type, read from the type itself: its `init(from:)` is run
/// against a decoder that notes every field it asks for, with the field's type, its rule
/// (``WireKey``) and whether it is optional. The document therefore cannot name a field the
/// server does not read, or a limit the server does not apply.
public enum WireSchema {
    /// The schema of `type` as a request body (unknown fields refused, every limit stated)
    /// or as an answer (optional fields may be `null`).
    /// - Throws: ``WireError`` when a request field states no rule.
    public static func of<T: Decodable>(_ type: T.Type, request: Bool) throws(WireError) -> JSONValue {
        let node = SchemaNode()
        do { _ = try SchemaReader(node: node, path: [], rule: nil, request: request).read(T.self) } catch let e as WireError {
            throw e
        } catch {
            throw WireError(String(describing: T.self), "cannot be described: \(error)")
        }
        return node.schema
    }
}

/// The schema being noted for one value.
final class SchemaNode {
    enum Kind { case unknown, leaf([(String, JSONValue)]), object([(String, SchemaNode, Bool)]), list(SchemaNode, Int?) }
    var kind = Kind.unknown
    var additional = true

    var schema: JSONValue {
        switch kind {
        case .unknown: return .object([])
        case .leaf(let fields): return .object(fields)
        case let .object(properties):
            var fields: [(String, JSONValue)] = [("type", .string("object")),
                                                  ("properties", .object(properties.map { ($0.0, $0.1.schema) }))]
            let required = properties.filter(\.2).map { JSONValue.string($0.0) }
            if !required.isEmpty { fields.append(("required", .array(required))) }
            if !additional { fields.append(("additionalProperties", .bool(false))) }
            return .object(fields)
        case let .list(item, maximum):
            var fields: [(String, JSONValue)] = [("type", .string("array")), ("items", item.schema)]
            if let maximum { fields.append(("maxItems", .number(Double(maximum)))) }
            return .object(fields)
        }
    }
}

struct SchemaReader: Decoder {
    let node: SchemaNode
    let path: [any CodingKey]
    let rule: FieldRule?
    let request: Bool

    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var field: String { fieldName(path) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if case .object = node.kind {} else { node.kind = .object([]) }
        node.additional = !request
        return KeyedDecodingContainer(ObjectSchemaReader<Key>(node: node, path: path, request: request))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        var maximum: Int?
        if request {
            guard case let .list(m) = rule else { throw WireError(field, "has no stated limit") }
            maximum = m
        }
        let item = SchemaNode()
        node.kind = .list(item, maximum)
        return ListSchemaReader(item: item, path: path, request: request)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    private func leaf(_ fields: [(String, JSONValue)]) { node.kind = .leaf(fields) }

    /// Notes `T`'s schema and returns a stand-in value of it.
    func read<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self {
            var fields: [(String, JSONValue)] = [("type", .string("string"))]
            if case let .text(maximum, minimum) = rule {
                fields.append(("maxLength", .number(Double(maximum))))
                if minimum > 0 { fields.append(("minLength", .number(Double(minimum)))) }
            } else if request { throw WireError(field, "has no stated limit") }
            leaf(fields)
            return "" as! T
        }
        if T.self == Bool.self { leaf([("type", .string("boolean"))]); return false as! T }
        if T.self == Double.self {
            var fields: [(String, JSONValue)] = [("type", .string("number"))]
            var sample = 0.0
            if case let .number(range) = rule {
                fields += [("minimum", .number(range.lowerBound)), ("maximum", .number(range.upperBound))]
                sample = range.lowerBound
            } else if request { throw WireError(field, "has no stated limit") }
            leaf(fields)
            return sample as! T
        }
        if T.self == Int64.self || T.self == Int.self {
            var fields: [(String, JSONValue)] = [("type", .string("integer"))]
            var sample: Int64 = 0
            if case let .integer(range) = rule {
                fields += [("minimum", .number(Double(range.lowerBound))), ("maximum", .number(Double(range.upperBound)))]
                sample = range.lowerBound
            } else if request { throw WireError(field, "has no stated limit") }
            leaf(fields)
            return (T.self == Int.self ? Int(truncatingIfNeeded: sample) as Any : sample as Any) as! T
        }
        if T.self == Date.self {
            leaf([("type", .string("string")), ("format", .string("date-time"))])
            return Date(timeIntervalSince1970: 0) as! T
        }
        if let choice = T.self as? any WireChoice.Type { return try self.choice(choice) as! T }
        if let optional = T.self as? any NullableWire.Type { return try optional.readNullable(self) as! T }
        return try T(from: self)
    }

    /// Notes `Wrapped`'s schema, or null: an optional read as a value of its own (an item of
    /// a list of optionals, `[Point?]`), which Swift decodes without asking whether it is there.
    func nullable<Wrapped: Decodable>(_ type: Wrapped.Type) throws -> Wrapped? {
        let child = SchemaNode()
        _ = try SchemaReader(node: child, path: path, rule: rule, request: request).read(type)
        node.kind = .leaf([("anyOf", .array([child.schema, .object([("type", .string("null"))])]))])
        return nil
    }

    private func choice<C: WireChoice>(_ type: C.Type) throws -> C {
        leaf([("type", .string("string")), ("enum", .array(C.allCases.map { .string($0.rawValue) }))])
        guard let first = C.allCases.first else { throw WireError(field, "has no values") }
        return first
    }
}

/// An optional, whose schema is its wrapped type's or null.
protocol NullableWire { static func readNullable(_ reader: SchemaReader) throws -> Self }

extension Optional: NullableWire where Wrapped: Decodable {
    static func readNullable(_ reader: SchemaReader) throws -> Self { try reader.nullable(Wrapped.self) }
}

extension SchemaReader: SingleValueDecodingContainer {
    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) throws -> Bool { try read(type) }
    func decode(_ type: String.Type) throws -> String { try read(type) }
    func decode(_ type: Double.Type) throws -> Double { try read(type) }
    func decode(_ type: Float.Type) throws -> Float { Float(try read(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try read(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { Int8(truncatingIfNeeded: try read(Int64.self)) }
    func decode(_ type: Int16.Type) throws -> Int16 { Int16(truncatingIfNeeded: try read(Int64.self)) }
    func decode(_ type: Int32.Type) throws -> Int32 { Int32(truncatingIfNeeded: try read(Int64.self)) }
    func decode(_ type: Int64.Type) throws -> Int64 { try read(type) }
    func decode(_ type: UInt.Type) throws -> UInt { UInt(truncatingIfNeeded: try read(Int64.self)) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { UInt8(truncatingIfNeeded: try read(Int64.self)) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { UInt16(truncatingIfNeeded: try read(Int64.self)) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { UInt32(truncatingIfNeeded: try read(Int64.self)) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { UInt64(truncatingIfNeeded: try read(Int64.self)) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try read(type) }
}

struct ObjectSchemaReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let node: SchemaNode
    let path: [any CodingKey]
    let request: Bool

    var codingPath: [any CodingKey] { path }
    var allKeys: [Key] { [] }

    private func note<T: Decodable>(_ type: T.Type, _ key: Key, required: Bool) throws -> T {
        let child = SchemaNode()
        let value = try SchemaReader(node: child, path: path + [key], rule: (key as? any WireKey)?.rule, request: request).read(type)
        guard case var .object(properties) = node.kind else { return value }
        properties.removeAll { $0.0 == key.stringValue }
        var schema = child
        if !required && !request {
            // Answers write an absent value as null.
            let nullable = SchemaNode()
            nullable.kind = .leaf([("anyOf", .array([child.schema, .object([("type", .string("null"))])]))])
            schema = nullable
        }
        properties.append((key.stringValue, schema, required))
        node.kind = .object(properties)
        return value
    }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try note(type, key, required: true) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try note(type, key, required: true) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try note(type, key, required: true) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try note(type, key, required: true) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try note(type, key, required: true) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try note(type, key, required: true) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try note(type, key, required: true) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try note(type, key, required: true) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try note(type, key, required: true) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try note(type, key, required: true) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try note(type, key, required: true) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try note(type, key, required: true) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try note(type, key, required: true) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try note(type, key, required: true) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try note(type, key, required: true) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { _ = try note(type, key, required: false); return nil }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { _ = try note(type, key, required: false); return nil }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw WireError(fieldName(path + [key]), "uses a nested container, which the schema cannot describe")
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw WireError(fieldName(path + [key]), "uses a nested container, which the schema cannot describe")
    }
    func superDecoder() throws -> any Decoder { throw WireError(fieldName(path), "cannot be described") }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw WireError(fieldName(path + [key]), "cannot be described") }
}

struct ListSchemaReader: UnkeyedDecodingContainer {
    let item: SchemaNode
    let path: [any CodingKey]
    let request: Bool
    var currentIndex = 0

    init(item: SchemaNode, path: [any CodingKey], request: Bool) {
        self.item = item
        self.path = path
        self.request = request
    }

    var codingPath: [any CodingKey] { path }
    var count: Int? { nil }
    // One item is read, to note its schema.
    var isAtEnd: Bool { currentIndex > 0 }

    mutating func decodeNil() throws -> Bool { false }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        currentIndex += 1
        return try SchemaReader(node: item, path: path + [IndexKey(0)], rule: nil, request: request).read(type)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw WireError(fieldName(path), "uses a nested container, which the schema cannot describe")
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw WireError(fieldName(path), "uses a nested container, which the schema cannot describe")
    }
    mutating func superDecoder() throws -> any Decoder { throw WireError(fieldName(path), "cannot be described") }
}
