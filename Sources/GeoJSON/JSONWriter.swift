/// Compact JSON written straight into UTF-8 bytes: the one place numbers and strings are
/// spelled, shared by ``JSONValue/serialized`` and the API's encoder.
///
/// Why bytes and not a `String`: an HTTP answer is bytes, and appending ASCII to an array
/// is a store, where a `String` append checks and grows its storage by grapheme rules.
public struct JSONWriter: Sendable {
    /// What has been written.
    public var bytes: [UInt8] { storage }
    @usableFromInline var storage: [UInt8] = []
    /// How many bytes have been written.
    public var count: Int { storage.count }

    /// An empty writer, its storage reserved for `capacity` bytes.
    public init(capacity: Int = 256) { storage.reserveCapacity(max(0, capacity)) }

    /// The text written, as a `String`.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends one ASCII byte (a bracket, a comma, a colon).
    @inlinable public mutating func byte(_ b: UInt8) { storage.append(b) }

    /// Appends ASCII text as it is: a literal the caller knows needs no escaping.
    @inlinable public mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { storage.append(contentsOf: $0) }
    }

    /// `null`.
    public mutating func null() { raw("null") }

    /// `true` or `false`.
    public mutating func bool(_ b: Bool) { if b { raw("true") } else { raw("false") } }

    /// A whole number in decimal.
    @inlinable public mutating func integer(_ n: Int64) {
        // The magnitude as unsigned: −Int64.min does not fit an Int64.
        digits(whole: n.magnitude, fraction: 0, width: 0, negative: n < 0)
    }

    /// A whole number in decimal.
    @inlinable public mutating func unsigned(_ n: UInt64) { digits(whole: n, fraction: 0, width: 0, negative: false) }

    /// A number as JSON allows it: a whole number without a fraction, any other in the
    /// shortest form that reads back as the same `Double`, a non-finite one as `null`.
    public mutating func number(_ n: Double) {
        guard n.isFinite else { return null() }
        if n == n.rounded(), abs(n) < 1e15 { return integer(Int64(n)) }  // exact: |n| < 2^53
        var s = n.description
        s.withUTF8 { storage.append(contentsOf: $0) }
    }

    /// A number rounded to `decimals` places (0 to 9) and written with at most that many,
    /// trailing zeros left out: coordinates to 7 decimals are about 1 cm. A number too large
    /// for the fixed form (or not finite) is written as ``number(_:)`` writes it.
    @inlinable public mutating func fixed(_ n: Double, decimals: Int) {
        let places = min(max(decimals, 0), 9)
        var scale: UInt64 = 1
        for _ in 0..<places { scale &*= 10 }
        let scaled = (n * Double(scale)).rounded()
        guard abs(scaled) < 9e15, let whole = Int64(exactly: scaled) else { return number(n) }  // NaN fails both
        let magnitude = whole.magnitude
        var fraction = magnitude % scale, width = places
        if fraction == 0 { width = 0 }
        while width > 0, fraction % 10 == 0 { fraction /= 10; width -= 1 }
        digits(whole: magnitude / scale, fraction: fraction, width: width, negative: whole < 0)
    }

    /// `[-]whole[.fraction]`, the fraction zero-padded to `width` digits (none when 0), built
    /// on the stack and appended at once: one capacity check per number rather than per digit.
    @inlinable mutating func digits(whole: UInt64, fraction: UInt64, width: Int, negative: Bool) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            var i = buffer.count, rest = fraction
            if width > 0 {
                for _ in 0..<min(width, 20) { i -= 1; buffer[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10); rest /= 10 }
                i -= 1; buffer[i] = UInt8(ascii: ".")
            }
            rest = whole
            repeat { i -= 1; buffer[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10); rest /= 10 } while rest > 0  // at most 20
            if negative { i -= 1; buffer[i] = UInt8(ascii: "-") }
            storage.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i...]))
        }
    }

    /// A string literal, escaped: quotes, backslashes and control characters.
    public mutating func string(_ s: String) {
        storage.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var start = 0
            for (i, b) in utf8.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                storage.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                start = i + 1
                switch b {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case UInt8(ascii: "\n"): raw("\\n")
                case UInt8(ascii: "\r"): raw("\\r")
                case UInt8(ascii: "\t"): raw("\\t")
                default:
                    raw("\\u00")
                    let hex: StaticString = "0123456789abcdef"
                    hex.withUTF8Buffer { h in storage.append(h[Int(b >> 4)]); storage.append(h[Int(b & 15)]) }
                }
            }
            storage.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        storage.append(UInt8(ascii: "\""))
    }

    /// A parsed value, written compactly.
    public mutating func value(_ v: JSONValue) {
        switch v {
        case .null: null()
        case let .bool(b): bool(b)
        case let .number(n): number(n)
        case let .string(s): string(s)
        case let .array(a):
            byte(UInt8(ascii: "["))
            for (i, item) in a.enumerated() {
                if i > 0 { byte(UInt8(ascii: ",")) }
                value(item)
            }
            byte(UInt8(ascii: "]"))
        case let .object(m):
            byte(UInt8(ascii: "{"))
            for (i, (k, item)) in m.enumerated() {
                if i > 0 { byte(UInt8(ascii: ",")) }
                string(k)
                byte(UInt8(ascii: ":"))
                value(item)
            }
            byte(UInt8(ascii: "}"))
        }
    }
}
