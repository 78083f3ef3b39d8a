import Essentials
import Foundation
import GeoJSON

/// Writes the API's `Encodable` types as JSON: fields in their declared order, an absent
/// optional as `null` (a client sees every field the document names), times as ISO 8601
/// with milliseconds, whole numbers without a fraction.
public enum WireEncoder {
    /// How field names are written.
    public enum KeyStyle: Sendable {
        /// As the coding keys say (the API's types spell their wire names out).
        case asDeclared
        /// Swift's `camelCase` as `snake_case` (`p50Us` as `p50_us`): the command line's
        /// one-line reports, whose field names are their properties'.
        case snakeCase
    }

    /// `value` as a JSON value.
    public static func encode<T: Encodable>(_ value: T, keys: KeyStyle = .asDeclared) -> JSONValue {
        let root = Slot()
        do { try ValueWriter(slot: root, path: [], snakeCase: keys == .snakeCase).write(value) } catch {
            // Only a type's own `encode(to:)` could throw, and none of the API's does.
            return .null
        }
        return root.value
    }

    /// `value` as the bytes of a JSON document.
    public static func bytes<T: Encodable>(_ value: T) -> [UInt8] { Array(encode(value).serialized.utf8) }

    /// `name` in snake case: an underscore before each capital, which is lowered.
    static func snakeCased(_ name: String) -> String {
        var out = ""
        for c in name {
            if c.isUppercase { out += out.isEmpty ? "" : "_"; out += c.lowercased() } else { out.append(c) }
        }
        return out
    }
}

/// A value being built: objects and lists hold their children's slots until the end.
final class Slot {
    enum Content { case leaf(JSONValue), object([(String, Slot)]), list([Slot]) }
    var content = Content.leaf(.null)

    var value: JSONValue {
        switch content {
        case .leaf(let v): v
        case .object(let members): .object(members.map { ($0.0, $0.1.value) })
        case .list(let items): .array(items.map(\.value))
        }
    }

    func member(_ name: String) -> Slot {
        let child = Slot()
        if case var .object(members) = content {
            members.removeAll { $0.0 == name }
            members.append((name, child))
            content = .object(members)
        } else {
            content = .object([(name, child)])
        }
        return child
    }

    func appendItem() -> Slot {
        let child = Slot()
        if case var .list(items) = content { items.append(child); content = .list(items) } else { content = .list([child]) }
        return child
    }
}

struct ValueWriter: Encoder {
    let slot: Slot
    let path: [any CodingKey]
    var snakeCase = false
    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = slot.content {} else { slot.content = .object([]) }
        return KeyedEncodingContainer(ObjectWriter<Key>(slot: slot, path: path, snakeCase: snakeCase))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .list = slot.content {} else { slot.content = .list([]) }
        return ListWriter(slot: slot, path: path, snakeCase: snakeCase)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func write<T: Encodable>(_ value: T) throws {
        switch value {
        case let s as String: slot.content = .leaf(.string(s))
        case let b as Bool: slot.content = .leaf(.bool(b))
        case let d as Double: slot.content = .leaf(d.isFinite ? .number(d) : .null)
        case let n as Int: slot.content = .leaf(.number(Double(n)))
        case let n as Int64: slot.content = .leaf(.number(Double(n)))
        case let n as UInt64: slot.content = .leaf(.number(Double(n)))
        case let d as Date: slot.content = .leaf(.string(ISO8601.string(d)))
        case let v as JSONValue: slot.content = .leaf(v)
        default: try value.encode(to: self)
        }
    }
}

extension ValueWriter: SingleValueEncodingContainer {
    func encodeNil() { slot.content = .leaf(.null) }
    func encode<T: Encodable>(_ value: T) throws { try write(value) }
    func encode(_ value: Bool) throws { try write(value) }
    func encode(_ value: String) throws { try write(value) }
    func encode(_ value: Double) throws { try write(value) }
    func encode(_ value: Float) throws { try write(Double(value)) }
    func encode(_ value: Int) throws { try write(value) }
    func encode(_ value: Int8) throws { try write(Int(value)) }
    func encode(_ value: Int16) throws { try write(Int(value)) }
    func encode(_ value: Int32) throws { try write(Int(value)) }
    func encode(_ value: Int64) throws { try write(value) }
    func encode(_ value: UInt) throws { try write(UInt64(value)) }
    func encode(_ value: UInt8) throws { try write(Int(value)) }
    func encode(_ value: UInt16) throws { try write(Int(value)) }
    func encode(_ value: UInt32) throws { try write(Int(value)) }
    func encode(_ value: UInt64) throws { try write(value) }
}

struct ObjectWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Slot
    let path: [any CodingKey]
    let snakeCase: Bool
    var codingPath: [any CodingKey] { path }

    private func child(_ key: Key) -> ValueWriter {
        let name = snakeCase ? WireEncoder.snakeCased(key.stringValue) : key.stringValue
        return ValueWriter(slot: slot.member(name), path: path + [key], snakeCase: snakeCase)
    }

    mutating func encodeNil(forKey key: Key) throws { child(key).encodeNil() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try child(key).write(value) }
    // An absent optional is written as null, not left out.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try child(key).write(value) } else { child(key).encodeNil() }
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeIfPresent(value, generic: key) }

    private mutating func encodeIfPresent<T: Encodable>(_ value: T?, generic key: Key) throws {
        if let value { try child(key).write(value) } else { child(key).encodeNil() }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        child(key).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { child(key).unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { child(Key(stringValue: "super")!) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { child(key) }
}

struct ListWriter: UnkeyedEncodingContainer {
    let slot: Slot
    let path: [any CodingKey]
    let snakeCase: Bool
    var codingPath: [any CodingKey] { path }
    var count: Int { if case let .list(items) = slot.content { items.count } else { 0 } }

    private func next() -> ValueWriter { ValueWriter(slot: slot.appendItem(), path: path + [IndexKey(count)], snakeCase: snakeCase) }

    mutating func encodeNil() throws { next().encodeNil() }
    mutating func encode<T: Encodable>(_ value: T) throws { try next().write(value) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { next() }
}
