/// A reader of the protobuf wire format over a byte buffer: just what OSM PBF needs
/// (varints, zigzag, length-delimited fields, packed arrays), with every read bounds-checked.
/// A malformed message is an `OSMError`, never a crash.
struct ProtoReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var position: Int
    let end: Int
    /// What the bytes are, for errors ("blob 12", "way block").
    let context: String

    init(_ bytes: UnsafeRawBufferPointer, context: String) {
        self.bytes = bytes; position = 0; end = bytes.count; self.context = context
    }

    private init(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int, context: String) {
        self.bytes = bytes; position = start; self.end = end; self.context = context
    }

    var isAtEnd: Bool { position >= end }

    func failure(_ reason: String) -> OSMError { .malformed("\(context): \(reason) at byte \(position)") }

    mutating func varint() throws(OSMError) -> UInt64 {
        var result: UInt64 = 0, shift: UInt64 = 0
        while true {
            guard position < end else { throw failure("truncated varint") }
            let b = bytes[position]
            position += 1
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
            guard shift < 64 else { throw failure("varint longer than 10 bytes") }
        }
    }

    mutating func signed() throws(OSMError) -> Int64 {
        let v = try varint()
        return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
    }

    /// The next field's number and wire type, or nil at the end.
    mutating func field() throws(OSMError) -> (number: Int, wire: Int)? {
        guard !isAtEnd else { return nil }
        let key = try varint()
        let number = Int(truncatingIfNeeded: key >> 3)
        guard number > 0 else { throw failure("field number 0") }
        return (number, Int(key & 7))
    }

    /// A length-delimited field's bytes, as a reader of its own.
    mutating func message(_ name: String) throws(OSMError) -> ProtoReader {
        let length = try varint()
        guard length <= UInt64(end - position) else { throw failure("\(name) runs past the end") }
        let start = position
        position += Int(length)
        return ProtoReader(bytes, from: start, to: position, context: context)
    }

    /// A length-delimited field's bytes as a string (UTF-8, repaired if invalid).
    mutating func string() throws(OSMError) -> String {
        let sub = try message("string")
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[sub.position..<sub.end]), as: UTF8.self)
    }

    /// A length-delimited field's raw bytes.
    mutating func data() throws(OSMError) -> UnsafeRawBufferPointer {
        let sub = try message("bytes")
        return UnsafeRawBufferPointer(rebasing: bytes[sub.position..<sub.end])
    }

    /// Skips a field of the given wire type.
    mutating func skip(wire: Int) throws(OSMError) {
        switch wire {
        case 0: _ = try varint()
        case 1: try advance(8)
        case 2: _ = try message("field")
        case 5: try advance(4)
        default: throw failure("unknown wire type \(wire)")
        }
    }

    private mutating func advance(_ n: Int) throws(OSMError) {
        guard end - position >= n else { throw failure("truncated fixed-size field") }
        position += n
    }

    /// Appends a packed (or, for wire type 0, a single) unsigned varint field.
    mutating func unsignedValues(wire: Int, into out: inout [UInt64]) throws(OSMError) {
        if wire == 0 { out.append(try varint()); return }
        guard wire == 2 else { throw failure("expected a packed array") }
        var sub = try message("packed array")
        while !sub.isAtEnd { out.append(try sub.varint()) }
    }

    /// Appends a packed (or single) zigzag-encoded signed field, undoing delta coding when
    /// `delta` (each value is the difference from the previous one, starting from the last
    /// value already in `out`: pass a fresh array per entity).
    mutating func signedValues(wire: Int, delta: Bool, into out: inout [Int64]) throws(OSMError) {
        var last: Int64 = delta ? (out.last ?? 0) : 0
        if wire == 0 {
            let v = try signed()
            last = delta ? last &+ v : v
            out.append(last); return
        }
        guard wire == 2 else { throw failure("expected a packed array") }
        var sub = try message("packed array")
        while !sub.isAtEnd {
            let v = try sub.signed()
            last = delta ? last &+ v : v
            out.append(last)
        }
    }
}
