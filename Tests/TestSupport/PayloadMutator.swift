import BinaryFile
import Geodesy

/// Structure-aware mutations of a binary payload, for the loaders' property tests.
///
/// A blind byte flip almost always lands in a count and makes the parser refuse the file
/// at once, so it never reaches the value checks or the queries. This mutator reads the
/// layout `BinaryWriter` recorded and changes one field at a time as an attacker would: a
/// count by one or to a huge value, an index to the edge of its range or past it, a float
/// to NaN, infinity or a huge value, two entries of an offset array swapped. The caller
/// wraps the result in the container again, so the checksum is valid.
public struct PayloadMutator {
    let original: [UInt8]
    let fields: [BinaryWriter.Field]
    var rng: SeededRandom

    package init(_ writer: BinaryWriter, seed: UInt64) {
        original = writer.bytes; fields = writer.fields; rng = SeededRandom(seed: seed)
    }

    /// A payload with one to three field mutations, and a short description of them.
    public mutating func next() -> (bytes: [UInt8], what: String) {
        var bytes = original
        var what: [String] = []
        for _ in 0..<(1 + Int(random() % 3)) { what.append(mutate(&bytes)) }
        return (bytes, what.joined(separator: "; "))
    }

    private mutating func random() -> UInt64 { rng.next() }

    private mutating func below(_ n: Int) -> Int { Int(random() % UInt64(max(1, n))) }

    private mutating func mutate(_ bytes: inout [UInt8]) -> String {
        let field = fields[below(fields.count)]
        switch field.kind {
        case .count:
            let old = load(bytes, field.offset, 8)
            let choices: [UInt64] = [old &+ 1, old &- 1, 0, old &* 2, 1 << 40, .max, UInt64(below(64))]
            let v = choices[below(choices.count)]
            store(&bytes, field.offset, 8, v)
            return "count@\(field.offset) \(old)→\(v)"
        case let .elements(size, count, isFloat):
            // One in eight: swap two elements (breaks the order of offset arrays).
            if count > 1, below(8) == 0 {
                let i = below(count), j = below(count)
                let a = load(bytes, field.offset + i * size, size), b = load(bytes, field.offset + j * size, size)
                store(&bytes, field.offset + i * size, size, b); store(&bytes, field.offset + j * size, size, a)
                return "swap@\(field.offset)[\(i),\(j)]"
            }
            let stride = size
            var at = field.offset + below(count) * stride, size = size
            if size > 8 {
                // A struct element (a tree node): change one of its words.
                let word = size % 8 == 0 ? 8 : 4
                at += below(size / word) * word; size = word
            }
            let old = load(bytes, at, size)
            let v: UInt64
            if isFloat && size == 8 {
                let x = Double(bitPattern: old)
                let choices: [Double] = [.nan, .infinity, -.infinity, 1e300, -1e300, 0, -x, x * 1e6, x.nextUp, .leastNonzeroMagnitude]
                v = choices[below(choices.count)].bitPattern
            } else if isFloat && size == 4 {
                let x = Float(bitPattern: UInt32(truncatingIfNeeded: old))
                let choices: [Float] = [.nan, .infinity, -.infinity, 3e38, -3e38, 0, -x, x * 1e6, x.nextUp]
                v = UInt64(choices[below(choices.count)].bitPattern)
            } else {
                let mask: UInt64 = size == 8 ? .max : (1 << UInt64(size * 8)) - 1
                // Another element's value (same word within it), as a duplicated index would be.
                let other = load(bytes, field.offset + below(count) * stride + (at - field.offset) % stride, size)
                let signedMax = mask >> 1
                let choices: [UInt64] = [0, mask, signedMax, signedMax &+ 1, old &+ 1, old &- 1, other,
                                         UInt64(count), UInt64(count &+ 1), UInt64(below(2 * count + 2)),
                                         old ^ (1 << UInt64(below(size * 8)))]
                v = choices[below(choices.count)] & mask
            }
            store(&bytes, at, size, v)
            return "element@\(at) size \(size)\(isFloat ? " float" : "")"
        }
    }

    private func load(_ bytes: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
        var v: UInt64 = 0
        for k in 0..<size { v |= UInt64(bytes[at + k]) << UInt64(8 * k) }
        return v
    }

    private func store(_ bytes: inout [UInt8], _ at: Int, _ size: Int, _ v: UInt64) {
        for k in 0..<size { bytes[at + k] = UInt8(truncatingIfNeeded: v >> UInt64(8 * k)) }
    }
}
