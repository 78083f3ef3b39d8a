import Foundation

/// A versioned, checksummed binary container shared by Wayfare's own file formats (zone
/// files, graph files).
///
/// Layout (little-endian):
/// ```
/// 0   8  magic, eight bytes naming the format (e.g. "WFZONES\0")
/// 8   4  format version (UInt32)
/// 12  4  reserved, 0
/// 16  8  payload length in bytes (UInt64)
/// 24  8  payload checksum (UInt64, `BinaryFile.checksum`)
/// 32  …  payload, written with `BinaryWriter`
/// ```
public struct BinaryFile: Sendable {
    /// Eight bytes that name the format.
    public let magic: [UInt8]
    /// Bumped whenever the payload layout changes; other versions are refused.
    public let version: UInt32
    /// What a person calls such a file, for messages ("zone file").
    public let kind: String
    public static let headerSize = 32

    public init(magic: String, version: UInt32, kind: String) {
        precondition(magic.utf8.count == 8, "a magic number is eight bytes")
        self.magic = Array(magic.utf8); self.version = version; self.kind = kind
    }

    /// The header followed by the payload.
    public func wrap(_ payload: [UInt8]) -> [UInt8] {
        var out = magic
        out.reserveCapacity(Self.headerSize + payload.count)
        out.append(littleEndian: version)
        out.append(littleEndian: UInt32(0))
        out.append(littleEndian: UInt64(payload.count))
        out.append(littleEndian: Self.checksum(payload))
        out += payload
        return out
    }

    /// The payload of a file after checking its magic, version, length and checksum; the
    /// error is the reason, in words, the file cannot be used.
    public func unwrap(_ bytes: [UInt8]) throws(BinaryFormatError) -> [UInt8] {
        guard bytes.count >= Self.headerSize else {
            throw BinaryFormatError(bytes.count >= 8 && Array(bytes[0..<8]) == magic
                                    ? "truncated \(kind) (\(bytes.count) bytes)" : "not a Wayfare \(kind)")
        }
        guard Array(bytes[0..<8]) == magic else { throw BinaryFormatError("not a Wayfare \(kind) (bad magic number)") }
        var r = BinaryReader(bytes: bytes, offset: 8)
        let v: UInt32 = (try? r.scalar()) ?? 0
        guard v == version else { throw BinaryFormatError("\(kind) format version \(v); this Wayfare reads version \(version)") }
        _ = try? r.scalar() as UInt32
        let length: UInt64 = (try? r.scalar()) ?? 0
        let sum: UInt64 = (try? r.scalar()) ?? 0
        guard UInt64(bytes.count - Self.headerSize) == length else {
            throw BinaryFormatError("truncated or extended \(kind): payload is \(bytes.count - Self.headerSize) bytes, header says \(length)")
        }
        let payload = Array(bytes[Self.headerSize...])
        guard Self.checksum(payload) == sum else { throw BinaryFormatError("\(kind) is corrupt (checksum mismatch)") }
        return payload
    }

    /// The whole file at `path`, or why it cannot be read.
    public static func readBytes(path: String) throws(BinaryFormatError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BinaryFormatError(FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        return [UInt8](data)
    }

    /// Writes atomically: a temporary file in the same folder, then a rename, so a failed
    /// write never leaves half a file behind.
    public static func writeAtomically(_ bytes: [UInt8], to path: String) throws(BinaryFormatError) {
        do { try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw BinaryFormatError("cannot write: \(error.localizedDescription)")
        }
    }

    /// A 64-bit checksum, eight bytes at a time (multiply–xorshift mixing).
    public static func checksum(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        bytes.withUnsafeBytes { raw in
            let words = raw.count / 8
            for k in 0..<words {
                let w = raw.loadUnaligned(fromByteOffset: k * 8, as: UInt64.self)
                h = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
                h ^= h >> 32
            }
            for k in (words * 8)..<raw.count {
                h = (h ^ UInt64(raw[k])) &* 0xC4CE_B9FE_1A85_EC53
            }
        }
        h ^= h >> 33
        return h
    }
}

/// Why a binary file cannot be used, in words.
public struct BinaryFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

extension Array where Element == UInt8 {
    /// Appends an integer's little-endian bytes.
    public mutating func append<T: FixedWidthInteger>(littleEndian value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

/// Appends counts, arrays of plain values and strings to a payload.
public struct BinaryWriter {
    public var bytes: [UInt8] = []
    public init() {}

    public mutating func int(_ v: Int) { bytes.append(littleEndian: UInt64(v)) }

    /// A count, then the elements' bytes as they lie in memory (little-endian machines only,
    /// which is every machine Swift runs Wayfare on).
    public mutating func array<T: BitwiseCopyable>(_ a: [T]) {
        int(a.count)
        a.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    public mutating func string(_ s: String) { array(Array(s.utf8)) }
}

/// Reads back what `BinaryWriter` wrote, bounds-checked: a short or lying file is an
/// error, never a crash.
public struct BinaryReader {
    public enum Failure: Error, CustomStringConvertible {
        case truncated, inconsistent, badString
        public var description: String {
            switch self {
            case .truncated: "truncated"
            case .inconsistent: "inconsistent arrays"
            case .badString: "invalid UTF-8 in a name"
            }
        }
    }

    let bytes: [UInt8]
    public private(set) var offset: Int
    public var isAtEnd: Bool { offset == bytes.count }

    public init(bytes: [UInt8], offset: Int = 0) { self.bytes = bytes; self.offset = offset }

    public mutating func scalar<T: FixedWidthInteger>() throws(Failure) -> T {
        let size = MemoryLayout<T>.size
        guard offset + size <= bytes.count else { throw .truncated }
        let v = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        offset += size
        return T(littleEndian: v)
    }

    public mutating func int() throws(Failure) -> Int {
        let v: UInt64 = try scalar()
        guard v <= UInt64(bytes.count) * 8 else { throw .truncated }
        return Int(v)
    }

    public mutating func array<T: BitwiseCopyable>() throws(Failure) -> [T] {
        let n = try int()
        let size = n * MemoryLayout<T>.stride
        guard n >= 0, size / max(1, MemoryLayout<T>.stride) == n, offset + size <= bytes.count else { throw .truncated }
        let out = [T](unsafeUninitializedCapacity: n) { buf, count in
            bytes.withUnsafeBytes { raw in
                UnsafeMutableRawBufferPointer(buf).copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + size)]))
            }
            count = n
        }
        offset += size
        return out
    }

    public mutating func string() throws(Failure) -> String {
        let raw: [UInt8] = try array()
        guard let s = String(validating: raw, as: UTF8.self) else { throw .badString }
        return s
    }
}
