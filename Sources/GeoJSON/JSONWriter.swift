/// Compact JSON written straight into UTF-8 bytes: the one place numbers and strings are
/// spelled, shared by ``JSONValue/serialized`` and the API's encoder.
///
/// Why bytes and not a `String`: an HTTP answer is bytes, and appending ASCII to an array
/// is a store, where a `String` append checks and grows its storage by grapheme rules.
public struct JSONWriter: Sendable {
    /// What has been written.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer, its storage reserved for `capacity` bytes.
    public init(capacity: Int = 256) { bytes.reserveCapacity(max(0, capacity)) }

    /// The text written, as a `String`.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends one ASCII byte (a bracket, a comma, a colon).
    public mutating func byte(_ b: UInt8) { bytes.append(b) }

    /// Appends ASCII text as it is: a literal the caller knows needs no escaping.
    public mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `null`.
    public mutating func null() { raw("null") }

    /// `true` or `false`.
    public mutating func bool(_ b: Bool) { if b { raw("true") } else { raw("false") } }

    /// A whole number in decimal.
    public mutating func integer(_ n: Int64) {
        if n < 0 {
            bytes.append(UInt8(ascii: "-"))
            // The magnitude as unsigned: −Int64.min does not fit an Int64.
            unsigned(n.magnitude)
        } else {
            unsigned(UInt64(n))
        }
    }

    /// A whole number in decimal.
    public mutating func unsigned(_ n: UInt64) {
        let first = bytes.count
        var rest = n
        repeat { bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)); rest /= 10 } while rest > 0
        bytes[first...].reverse()
    }

    /// A number as JSON allows it: a whole number without a fraction, any other in the
    /// shortest form that reads back as the same `Double`, a non-finite one as `null`.
    public mutating func number(_ n: Double) {
        guard n.isFinite else { return null() }
        if n == n.rounded(), abs(n) < 1e15 { return integer(Int64(n)) }  // exact: |n| < 2^53
        var s = n.description
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A number rounded to `decimals` places (0 to 9) and written with at most that many,
    /// trailing zeros left out: coordinates to 7 decimals are about 1 cm. A number too large
    /// for the fixed form (or not finite) is written as ``number(_:)`` writes it.
    public mutating func fixed(_ n: Double, decimals: Int) {
        let places = min(max(decimals, 0), 9)
        let scale = Self.powersOfTen[places]
        let scaled = (n * Double(scale)).rounded()
        guard scaled.isFinite, abs(scaled) < 9e15, let whole = Int64(exactly: scaled) else { return number(n) }
        if whole < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = whole.magnitude
        unsigned(magnitude / UInt64(scale))
        var fraction = magnitude % UInt64(scale)
        guard fraction != 0 else { return }
        var width = places
        while fraction % 10 == 0 { fraction /= 10; width -= 1 }
        bytes.append(UInt8(ascii: "."))
        var divisor = UInt64(Self.powersOfTen[width - 1])
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / divisor % 10))
            divisor /= 10
        }
    }

    private static let powersOfTen: [Int64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000]

    /// A string literal, escaped: quotes, backslashes and control characters.
    public mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var start = 0
            for (i, b) in utf8.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
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
                    hex.withUTF8Buffer { h in bytes.append(h[Int(b >> 4)]); bytes.append(h[Int(b & 15)]) }
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
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
