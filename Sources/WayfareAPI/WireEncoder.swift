import Essentials
import Foundation
import GeoJSON

/// Writes the API's `Encodable` types as JSON bytes as it goes, with no tree in between:
/// fields in their declared order, an absent optional as `null` (a client sees every field
/// the document names), times as ISO 8601 with milliseconds, whole numbers without a
/// fraction, a line's coordinates (``LineString``) to 7 decimals, about 1 cm.
///
/// Why streaming: a route's answer is mostly its geometry, and building a value per number
/// before writing any of them cost more than the route itself (see docs/benchmarks.md).
///
/// `Encodable` has no call that ends a container, so the encoder closes them itself: each
/// container knows its depth, and writing at a depth first closes whatever was opened
/// deeper. That is exact for every type that encodes its fields one after another, as
/// synthesised conformances and the API's own do. A container used after a sibling has
/// replaced it throws rather than write into the wrong object. Coding paths are not kept
/// (no API type reads them): `codingPath` is empty.
public enum WireEncoder {
    /// How field names are written.
    public enum KeyStyle: Sendable {
        /// As the coding keys say (the API's types spell their wire names out).
        case asDeclared
        /// Swift's `camelCase` as `snake_case` (`p50Us` as `p50_us`): the command line's
        /// one-line reports, whose field names are their properties'.
        case snakeCase
    }

    /// `value` as the bytes of a JSON document.
    public static func bytes<T: Encodable>(_ value: T, keys: KeyStyle = .asDeclared, capacity: Int = 256) -> [UInt8] {
        let stream = JSONStream(snakeCase: keys == .snakeCase, capacity: capacity)
        do { try StreamEncoder(stream: stream, depth: 0).write(value) } catch {
            // Only a misused container or a type's own `encode(to:)` could throw; none of the API's does.
            return Array("null".utf8)
        }
        stream.close(to: 0)
        return stream.out.bytes
    }

    /// `value` as JSON text.
    public static func string<T: Encodable>(_ value: T, keys: KeyStyle = .asDeclared) -> String {
        String(decoding: bytes(value, keys: keys), as: UTF8.self)
    }

    /// `name` in snake case: an underscore before each capital, which is lowered.
    static func snakeCased(_ name: String) -> String {
        var out = ""
        for c in name {
            if c.isUppercase { out += out.isEmpty ? "" : "_"; out += c.lowercased() } else { out.append(c) }
        }
        return out
    }
}

/// The bytes written so far and the containers still open, innermost last.
///
/// A class because every container of one document appends to the same output; it never
/// leaves the call that made it.
final class JSONStream {
    struct Frame {
        let isObject: Bool
        /// Which container this is, so a stale one is caught.
        let serial: Int
        var count = 0
    }

    var out: JSONWriter
    var open: [Frame] = []
    let snakeCase: Bool
    private var serials = 0

    init(snakeCase: Bool, capacity: Int) {
        self.snakeCase = snakeCase
        out = JSONWriter(capacity: capacity)
        open.reserveCapacity(8)
    }

    /// Closes the containers deeper than `depth`.
    func close(to depth: Int) {
        while open.count > depth { out.byte(open.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) }
    }

    /// Opens a container; its serial.
    func begin(object: Bool) -> Int {
        serials += 1
        out.byte(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        open.append(Frame(isObject: object, serial: serials))
        return serials
    }

    /// Before a member or an item of the container `serial` at `depth`: closes what is open
    /// inside it and writes the comma.
    func next(in serial: Int, depth: Int) throws {
        close(to: depth)
        guard open.count == depth, depth > 0, open[depth - 1].serial == serial else {
            throw EncodingError.invalidValue(serial, .init(codingPath: [], debugDescription: "a container was used after it was closed"))
        }
        if open[depth - 1].count > 0 { out.byte(UInt8(ascii: ",")) }
        open[depth - 1].count += 1
    }
}

/// The encoder of one value, which begins with `depth` containers open around it.
struct StreamEncoder: Encoder {
    let stream: JSONStream
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ObjectStream<Key>(stream: stream, depth: depth + 1, serial: open(object: true)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { ListStream(stream: stream, depth: depth + 1, serial: open(object: false)) }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    /// This value's container: the one already open when asked again, else a new one.
    private func open(object: Bool) -> Int {
        if stream.open.count > depth, stream.open[depth].isObject == object {
            stream.close(to: depth + 1)
            return stream.open[depth].serial
        }
        stream.close(to: depth)
        return stream.begin(object: object)
    }

    func write<T: Encodable>(_ value: T) throws {
        switch value {
        case let s as String: stream.out.string(s)
        case let b as Bool: stream.out.bool(b)
        case let d as Double: stream.out.number(d)
        case let n as Int: stream.out.integer(Int64(n))
        case let n as Int64: stream.out.integer(n)
        case let n as UInt64: stream.out.unsigned(n)
        case let d as Date: stream.out.string(ISO8601.string(d))
        case let line as LineString: line.write(to: &stream.out)
        case let v as JSONValue: stream.out.value(v)
        default:
            let before = stream.out.count
            try value.encode(to: self)
            stream.close(to: depth)
            if stream.out.count == before { stream.out.null() }  // a value that wrote nothing
        }
    }
}

extension StreamEncoder: SingleValueEncodingContainer {
    func encodeNil() { stream.out.null() }
    func encode<T: Encodable>(_ value: T) throws { try write(value) }
    func encode(_ value: Bool) throws { stream.out.bool(value) }
    func encode(_ value: String) throws { stream.out.string(value) }
    func encode(_ value: Double) throws { stream.out.number(value) }
    func encode(_ value: Float) throws { stream.out.number(Double(value)) }
    func encode(_ value: Int) throws { stream.out.integer(Int64(value)) }
    func encode(_ value: Int8) throws { stream.out.integer(Int64(value)) }
    func encode(_ value: Int16) throws { stream.out.integer(Int64(value)) }
    func encode(_ value: Int32) throws { stream.out.integer(Int64(value)) }
    func encode(_ value: Int64) throws { stream.out.integer(value) }
    func encode(_ value: UInt) throws { stream.out.unsigned(UInt64(value)) }
    func encode(_ value: UInt8) throws { stream.out.unsigned(UInt64(value)) }
    func encode(_ value: UInt16) throws { stream.out.unsigned(UInt64(value)) }
    func encode(_ value: UInt32) throws { stream.out.unsigned(UInt64(value)) }
    func encode(_ value: UInt64) throws { stream.out.unsigned(value) }
}

struct ObjectStream<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let stream: JSONStream
    let depth: Int
    let serial: Int
    var codingPath: [any CodingKey] { [] }

    /// Writes `key` and its colon, and returns the encoder of its value.
    private func member(_ key: Key) throws -> StreamEncoder {
        try stream.next(in: serial, depth: depth)
        stream.out.string(stream.snakeCase ? WireEncoder.snakeCased(key.stringValue) : key.stringValue)
        stream.out.byte(UInt8(ascii: ":"))
        return StreamEncoder(stream: stream, depth: depth)
    }

    mutating func encodeNil(forKey key: Key) throws { try member(key).encodeNil() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try member(key).write(value) }
    // An absent optional is written as null, not left out.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try member(key).write(value) } else { try member(key).encodeNil() }
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try member(key).encode(value) }
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
        if let value { try member(key).write(value) } else { try member(key).encodeNil() }
    }

    // The nested containers and super encoders cannot throw: a misuse surfaces at their next write.
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        ((try? member(key)) ?? StreamEncoder(stream: stream, depth: depth)).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ((try? member(key)) ?? StreamEncoder(stream: stream, depth: depth)).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { (try? member(Key(stringValue: "super")!)) ?? StreamEncoder(stream: stream, depth: depth) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { (try? member(key)) ?? StreamEncoder(stream: stream, depth: depth) }
}

struct ListStream: UnkeyedEncodingContainer {
    let stream: JSONStream
    let depth: Int
    let serial: Int
    var codingPath: [any CodingKey] { [] }
    var count: Int {
        guard stream.open.count >= depth, depth > 0, stream.open[depth - 1].serial == serial else { return 0 }
        return stream.open[depth - 1].count
    }

    private func item() throws -> StreamEncoder {
        try stream.next(in: serial, depth: depth)
        return StreamEncoder(stream: stream, depth: depth)
    }

    mutating func encodeNil() throws { try item().encodeNil() }
    mutating func encode<T: Encodable>(_ value: T) throws { try item().write(value) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        ((try? item()) ?? StreamEncoder(stream: stream, depth: depth)).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        ((try? item()) ?? StreamEncoder(stream: stream, depth: depth)).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { (try? item()) ?? StreamEncoder(stream: stream, depth: depth) }
}
