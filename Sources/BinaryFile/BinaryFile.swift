import Essentials
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
package struct BinaryFile: Sendable {
    /// Eight bytes that name the format.
    package let magic: [UInt8]
    /// Bumped whenever the payload layout changes; other versions are refused.
    package let version: UInt32
    /// What a person calls such a file, for messages ("zone file").
    package let kind: String
    package static let headerSize = 32

    package init(magic: String, version: UInt32, kind: String) {
        precondition(magic.utf8.count == 8, "a magic number is eight bytes")
        self.magic = Array(magic.utf8); self.version = version; self.kind = kind
    }

    /// The header followed by the payload.
    package func wrap(_ payload: [UInt8]) -> [UInt8] {
        var out = header(for: payload)
        out += payload
        return out
    }

    /// The 32-byte header of a file holding `payload`. Writing it and then the payload
    /// (`writeAtomically(parts:to:)`) makes the same file as `wrap` without a second copy
    /// of a payload that may be hundreds of megabytes.
    package func header(for payload: [UInt8]) -> [UInt8] {
        header(length: payload.count, checksum: Self.checksum(payload))
    }

    /// The header of a payload of `length` bytes with `checksum`, for a payload written in
    /// pieces (`BinaryWriter(keepingArraysOver:)`).
    package func header(length: Int, checksum: UInt64) -> [UInt8] {
        var out = magic
        out.reserveCapacity(Self.headerSize)
        out.append(littleEndian: version)
        out.append(littleEndian: UInt32(0))
        out.append(littleEndian: UInt64(length))
        out.append(littleEndian: checksum)
        return out
    }

    /// A reader at the start of a file's payload, after checking its magic, version, length
    /// and checksum; the error is the reason, in words, the file cannot be used. The payload
    /// is read where it lies, not copied first (at a million nodes a graph's is 591 MB).
    package func reader(for bytes: [UInt8]) throws(BinaryFormatError) -> BinaryReader {
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
        let actual = bytes.withUnsafeBytes { raw in
            var checksum = Checksum(length: raw.count - Self.headerSize)
            checksum.add(UnsafeRawBufferPointer(rebasing: raw[Self.headerSize...]))
            return checksum.value
        }
        guard actual == sum else { throw BinaryFormatError("\(kind) is corrupt (checksum mismatch)") }
        return BinaryReader(bytes: bytes, offset: Self.headerSize)
    }

    /// The whole file at `path`, or why it cannot be read. A regular file is read straight
    /// into the array (`read(2)`, no `Data` in between: one copy of a large file, not two);
    /// anything else through `FileManager`.
    package static func readBytes(path: String) throws(BinaryFormatError) -> [UInt8] {
        func unreadable() -> BinaryFormatError {
            BinaryFormatError(FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw unreadable() }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, let size = Int(exactly: status.st_size) else {
            guard let data = FileManager.default.contents(atPath: path) else { throw unreadable() }
            return [UInt8](data)
        }
        var failed = false
        var bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            while count < size {
                let n = read(fd, buffer.baseAddress! + count, size - count)
                if n > 0 { count += n } else if n < 0 && errno == EINTR { continue } else { failed = n < 0; break }
            }
        }
        // A file that grew since `fstat` is read to its end; one that shrank ends short, and
        // its header's length says so.
        var more = [UInt8](repeating: 0, count: 1 << 16)
        while !failed {
            let n = more.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n > 0 { bytes.append(contentsOf: more[0..<n]) } else if n < 0 && errno == EINTR { continue } else { failed = n < 0; break }
        }
        guard !failed else { throw BinaryFormatError("cannot be read") }
        return bytes
    }

    /// Writes durably and atomically: the bytes go to a temporary file in the same folder,
    /// which is flushed to disk (`fsync`), renamed over `path`, and then the folder itself is
    /// flushed so the rename survives a power cut. At every step a failure leaves either
    /// the old file or the new one under `path`, never a partial one, and removes the
    /// temporary file.
    package static func writeAtomically(_ bytes: [UInt8], to path: String) throws(BinaryFormatError) {
        try writeAtomically(parts: [bytes], to: path, io: .system)
    }

    /// The same write of several byte arrays one after another, as one file.
    package static func writeAtomically(parts: [[UInt8]], to path: String) throws(BinaryFormatError) {
        try writeAtomically(parts: parts, to: path, io: .system)
    }

    /// The same write through `io`, so tests can make any step fail.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, io: FileSystemCalls) throws(BinaryFormatError) {
        try writeAtomically(parts: [bytes], to: path, io: io)
    }

    /// The write of several parts through `io`.
    package static func writeAtomically(parts: [[UInt8]], to path: String, io: FileSystemCalls) throws(BinaryFormatError) {
        try writeAtomically(to: path, io: io) { write in
            for bytes in parts where !bytes.isEmpty {
                guard bytes.withUnsafeBytes(write) else { return }
            }
        }
    }

    /// The same durable write of whatever `produce` hands its `write` function, piece by
    /// piece: `write` returns false once a write has failed, and `produce` should then stop.
    ///
    /// A path naming a device, a pipe or a socket (`/dev/null`, `/dev/stdout`, a FIFO) is
    /// written straight through instead: a file renamed over it would replace it (run as
    /// root, `--out /dev/null` replaced the machine's `/dev/null` with a regular file), and
    /// there is no file there to keep whole.
    package static func writeAtomically(to path: String, io: FileSystemCalls = .system,
                                        produce: (_ write: (UnsafeRawBufferPointer) -> Bool) -> Void) throws(BinaryFormatError) {
        var failure: String?
        func send(_ fd: Int32) {
            produce { raw in
                var written = 0
                while written < raw.count, failure == nil, let base = raw.baseAddress {
                    let n = io.write(fd, base + written, raw.count - written)
                    if n < 0 { if errno != EINTR { failure = io.lastError("writing") } } else if n == 0 { failure = "writing: no progress" } else { written += n }
                }
                return failure == nil
            }
        }
        var status = stat()
        if stat(path, &status) == 0, ![S_IFREG, S_IFDIR].contains(status.st_mode & S_IFMT) {
            let fd = io.open(path, O_WRONLY | O_CLOEXEC, 0)
            guard fd >= 0 else { throw BinaryFormatError("cannot write: \(io.lastError("opening"))") }
            send(fd)
            if io.close(fd) != 0, failure == nil { failure = io.lastError("closing") }
            if let failure { throw BinaryFormatError("cannot write: \(failure)") }
            return
        }
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/." + url.lastPathComponent + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = io.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let why = io.lastError("creating a file in \(folder)")
            throw BinaryFormatError("cannot write: \(why)")
        }
        send(fd)
        if failure == nil, io.fsync(fd) != 0 { failure = io.lastError("flushing to disk") }
        if io.close(fd) != 0, failure == nil { failure = io.lastError("closing") }
        if failure == nil, io.rename(temporary, path) != 0 { failure = io.lastError("renaming into place") }
        if let failure {
            _ = io.unlink(temporary)
            throw BinaryFormatError("cannot write: \(failure)")
        }
        // The rename is in the folder's entry list: flush the folder too.
        let dir = io.open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard dir >= 0 else {
            let why = io.lastError("opening the folder to flush it")
            throw BinaryFormatError("cannot write: \(why)")
        }
        defer { _ = io.close(dir) }
        guard io.fsync(dir) == 0 else {
            let why = io.lastError("flushing the folder")
            throw BinaryFormatError("cannot write: \(why)")
        }
    }

    /// A 64-bit checksum, eight bytes at a time (multiply–xorshift mixing).
    package static func checksum(_ bytes: [UInt8]) -> UInt64 {
        var sum = Checksum(length: bytes.count)
        bytes.withUnsafeBytes { sum.add($0) }
        return sum.value
    }

    /// `checksum` of a payload fed in pieces of any sizes: the same value as of the pieces
    /// joined, with the payload's whole length given first (it seeds the sum).
    package struct Checksum {
        private var h: UInt64
        /// Bytes of a word not yet complete, little-endian, and how many there are.
        private var pending: UInt64 = 0, pendingCount = 0

        package init(length: Int) { h = 0x9E37_79B9_7F4A_7C15 ^ UInt64(length) }

        private mutating func mix(word w: UInt64) {
            h = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
        }

        /// Adds the next piece.
        package mutating func add(_ raw: UnsafeRawBufferPointer) {
            var k = 0
            while pendingCount > 0, pendingCount < 8, k < raw.count {
                pending |= UInt64(raw[k]) << (8 * pendingCount); pendingCount += 1; k += 1
                if pendingCount == 8 { mix(word: pending); pending = 0; pendingCount = 0 }
            }
            while k + 8 <= raw.count {
                mix(word: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)))
                k += 8
            }
            while k < raw.count { pending |= UInt64(raw[k]) << (8 * pendingCount); pendingCount += 1; k += 1 }
        }

        /// The checksum, once every piece is added: the last bytes that make no whole word
        /// are mixed one by one.
        package var value: UInt64 {
            var h = h
            for i in 0..<pendingCount { h = (h ^ (pending >> (8 * i) & 0xFF)) &* 0xC4CE_B9FE_1A85_EC53 }
            h ^= h >> 33
            return h
        }
    }
}

/// Why a binary file cannot be used, in words.
package struct BinaryFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
    package var description: String { reason }
}

extension Array where Element == UInt8 {
    /// Appends an integer's little-endian bytes.
    package mutating func append<T: FixedWidthInteger>(littleEndian value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

/// Appends counts, arrays of plain values and strings to a payload.
package struct BinaryWriter {
    /// Where one value or array lies in the payload, and what it holds.
    ///
    /// Why: the structure-aware fuzz tests mutate a payload field by field (a count, a float
    /// to NaN, an index out of range) instead of flipping blind bytes, so that most mutants
    /// get past the parser and reach the value checks and the queries.
    package struct Field: Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            /// A UInt64 count or scalar.
            case count
            /// `count` elements of `size` bytes each; `isFloat` for Float and Double arrays.
            case elements(size: Int, count: Int, isFloat: Bool)
        }
        package let offset: Int
        package let kind: Kind
    }

    package var bytes: [UInt8] = []
    /// Every field appended so far, in order.
    package private(set) var fields: [Field] = []
    /// Arrays kept by reference (`keepingArraysOver`): each follows `bytes[..<offset]`
    /// and the arrays before it.
    private var kept: [(offset: Int, count: Int, bytes: (_ body: (UnsafeRawBufferPointer) -> Bool) -> Bool)] = []
    /// Arrays of more bytes than this are kept by reference, not copied (`Int.max`: none).
    private var keepOver = Int.max
    package init() {}

    /// A writer that keeps each array of more than `size` bytes by reference instead of
    /// copying it: the payload is then written out piece by piece (`forEachPiece`) and
    /// never held whole. Why: a metropolitan graph's payload is hundreds of megabytes, all
    /// of it already in memory as the network's arrays. `bytes` then holds only the rest,
    /// and `fields` is empty.
    package init(keepingArraysOver size: Int) { keepOver = size }

    /// The payload's length in bytes.
    package var count: Int { bytes.count + kept.reduce(0) { $0 + $1.count } }

    /// Hands the payload to `body` piece by piece, in order, until `body` returns false;
    /// whether every piece was handed over.
    @discardableResult
    package func forEachPiece(_ body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        var start = 0
        for piece in kept {
            guard bytes[start..<piece.offset].withUnsafeBytes(body), piece.bytes(body) else { return false }
            start = piece.offset
        }
        return bytes[start...].withUnsafeBytes(body)
    }

    /// The checksum of the whole payload (`BinaryFile.checksum`).
    package var checksum: UInt64 {
        var sum = BinaryFile.Checksum(length: count)
        forEachPiece { sum.add($0); return true }
        return sum.value
    }

    /// A writer with room for `capacity` bytes, so a large payload is not copied each time
    /// its buffer grows (pages reserved but never written cost no memory).
    package init(reservingCapacity capacity: Int) { bytes.reserveCapacity(capacity) }

    package mutating func int(_ v: Int) {
        if keepOver == .max { fields.append(Field(offset: bytes.count, kind: .count)) }
        bytes.append(littleEndian: UInt64(v))
    }

    /// A count, then the elements' bytes as they lie in memory (little-endian machines only,
    /// which is every machine Swift runs Wayfare on).
    package mutating func array<T: BitwiseCopyable>(_ a: [T]) {
        int(a.count)
        let size = a.count * MemoryLayout<T>.stride
        if size > keepOver {
            kept.append((bytes.count, size, { body in a.withUnsafeBytes(body) }))
            return
        }
        if keepOver == .max, !a.isEmpty {
            fields.append(Field(offset: bytes.count,
                                kind: .elements(size: MemoryLayout<T>.stride, count: a.count, isFloat: T.self is any BinaryFloatingPoint.Type)))
        }
        a.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    package mutating func string(_ s: String) { array(Array(s.utf8)) }
}

/// Reads back what `BinaryWriter` wrote, bounds-checked: a short or lying file is an
/// error, never a crash.
///
/// `array()` copies raw bytes into any `BitwiseCopyable` type, so it is only for types
/// every bit pattern of which is valid (integers, floats and structs of them): never
/// `Bool` or an enum.
package struct BinaryReader {
    package enum Failure: Error, CustomStringConvertible {
        case truncated, inconsistent, badString
        package var description: String {
            switch self {
            case .truncated: "truncated"
            case .inconsistent: "inconsistent arrays"
            case .badString: "invalid UTF-8 in a name"
            }
        }
    }

    let bytes: [UInt8]
    package private(set) var offset: Int
    package var isAtEnd: Bool { offset == bytes.count }

    package init(bytes: [UInt8], offset: Int = 0) { self.bytes = bytes; self.offset = offset }

    package mutating func scalar<T: FixedWidthInteger>() throws(Failure) -> T {
        let size = MemoryLayout<T>.size
        guard offset + size <= bytes.count else { throw .truncated }
        let v = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        offset += size
        return T(littleEndian: v)
    }

    package mutating func int() throws(Failure) -> Int {
        let v: UInt64 = try scalar()
        guard v <= UInt64(bytes.count) * 8 else { throw .truncated }
        return Int(v)
    }

    package mutating func array<T: BitwiseCopyable>() throws(Failure) -> [T] {
        let n = try int()
        let size = n * MemoryLayout<T>.stride
        guard n >= 0, size / max(1, MemoryLayout<T>.stride) == n, offset + size <= bytes.count else { throw .truncated }
        // An empty array made through `unsafeUninitializedCapacity` writes its count into the
        // stdlib's one shared empty array: a race when two files load at once (every graph
        // holds one, the time metric's landmarks).
        guard n > 0 else { return [] }
        let out = [T](unsafeUninitializedCapacity: n) { buf, count in
            // A large array is one a search reads at random: on huge pages, asked for
            // before the copy touches it.
            HugePages.advise(UnsafeMutableRawPointer(buf.baseAddress), byteCount: size)
            bytes.withUnsafeBytes { raw in
                UnsafeMutableRawBufferPointer(buf).copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + size)]))
            }
            count = n
        }
        offset += size
        return out
    }

    package mutating func string() throws(Failure) -> String {
        let raw: [UInt8] = try array()
        guard let s = String(validating: raw, as: UTF8.self) else { throw .badString }
        return s
    }
}

/// The checks every loader makes on the arrays it reads, written once. Each generic check is
/// also compiled for `UInt32` (`@_specialize`), the type of every index a graph file holds:
/// called from another module a generic function runs unspecialised, through the integer
/// protocols' witness tables for every element, and that was a quarter of loading a 1M-node
/// graph (`@inlinable` did not change it).
package enum Validate {
    /// Whether `offsets` is a valid offset array over `limit` elements: `count + 1` entries
    /// (when `count` is given), starting at 0, ending at `limit`, never decreasing, and each
    /// step at least `minimumStep` (2 for polylines, which need two points).
    @_specialize(where T == UInt32)
    package static func offsets<T: BinaryInteger>(_ offsets: [T], count: Int? = nil, limit: Int, minimumStep: Int = 0) -> Bool {
        guard let first = offsets.first, let last = offsets.last, first == 0, Int(exactly: last) == limit else { return false }
        if let count, offsets.count != count + 1 { return false }
        return offsets.withUnsafeBufferPointer { a in
            for k in 1..<a.count where Int(a[k]) - Int(a[k - 1]) < minimumStep { return false }
            return true
        }
    }

    /// Whether every value is an index below `limit` (and not negative).
    @_specialize(where T == UInt32)
    package static func indices<T: BinaryInteger>(_ values: [T], below limit: Int) -> Bool {
        values.withUnsafeBufferPointer { a in a.allSatisfy { $0 >= 0 && Int(exactly: $0).map { $0 < limit } ?? false } }
    }

    /// Whether `values` holds each of 0 ..< `count` exactly once (a numbering, such as a
    /// hierarchy's ranks).
    @_specialize(where T == UInt32)
    package static func permutation<T: BinaryInteger>(_ values: [T], count: Int) -> Bool {
        guard values.count == count else { return false }
        var seen = [Bool](repeating: false, count: count)
        for v in values {
            guard let i = Int(exactly: v), i >= 0, i < count, !seen[i] else { return false }
            seen[i] = true
        }
        return true
    }

    /// Whether every value is finite.
    package static func finite<T: BinaryFloatingPoint>(_ values: [T]) -> Bool {
        values.allSatisfy(\.isFinite)
    }

    /// Whether the two arrays have the same length and every pair is a coordinate on the
    /// globe (latitude in ±90°, longitude in ±180°, NaN refused), in degrees.
    package static func coordinates<T: BinaryFloatingPoint>(latitudes: [T], longitudes: [T]) -> Bool {
        latitudes.count == longitudes.count
            && latitudes.allSatisfy { $0 >= -90 && $0 <= 90 } && longitudes.allSatisfy { $0 >= -180 && $0 <= 180 }
    }

    /// The same for coordinates stored as 1e-7 degrees.
    package static func coordinates(latitudesE7: [Int32], longitudesE7: [Int32]) -> Bool {
        latitudesE7.count == longitudesE7.count
            && latitudesE7.allSatisfy { abs(Int64($0)) <= 900_000_000 } && longitudesE7.allSatisfy { abs(Int64($0)) <= 1_800_000_000 }
    }
}

/// The system calls of a durable write, replaceable so a test can fail any one of them.
package struct FileSystemCalls: Sendable {
    package var open: @Sendable (String, Int32, mode_t) -> Int32
    package var write: @Sendable (Int32, UnsafeRawPointer, Int) -> Int
    package var fsync: @Sendable (Int32) -> Int32
    package var close: @Sendable (Int32) -> Int32
    package var rename: @Sendable (String, String) -> Int32
    package var unlink: @Sendable (String) -> Int32

    /// The real calls.
    package static let system = FileSystemCalls(
        open: { path, flags, mode in Foundation.open(path, flags, mode) },
        write: { fd, p, n in Foundation.write(fd, p, n) },
        fsync: { Foundation.fsync($0) },
        close: { Foundation.close($0) },
        rename: { Foundation.rename($0, $1) },
        unlink: { Foundation.unlink($0) })

    package init(open: @escaping @Sendable (String, Int32, mode_t) -> Int32,
                 write: @escaping @Sendable (Int32, UnsafeRawPointer, Int) -> Int,
                 fsync: @escaping @Sendable (Int32) -> Int32, close: @escaping @Sendable (Int32) -> Int32,
                 rename: @escaping @Sendable (String, String) -> Int32, unlink: @escaping @Sendable (String) -> Int32) {
        self.open = open; self.write = write; self.fsync = fsync; self.close = close; self.rename = rename; self.unlink = unlink
    }

    func lastError(_ step: String) -> String { "\(step): \(String(cString: strerror(errno)))" }
}
