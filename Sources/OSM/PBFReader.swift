import CZlib
import Foundation

/// Reads an OSM PBF file block by block: memory stays bounded by one block (at most 32 MiB
/// compressed, as the format requires), whatever the file's size.
///
/// Supports raw and zlib-compressed blobs, plain and dense nodes, ways and relations. Files
/// that require features beyond these (for example "HistoricalInformation") are refused.
/// Not `Sendable`: it owns an open file; use one per thread.
public final class PBFReader {
    /// The file being read.
    public let path: String
    private let handle: FileHandle
    private var offset: UInt64 = 0
    private var blockIndex = 0
    /// The file's size in bytes, for progress.
    public let size: UInt64
    /// Bytes read so far.
    public var bytesRead: UInt64 { offset }

    /// Opens a PBF file and reads its header block; a missing or foreign file is an error.
    public init(path: String) throws(OSMError) {
        self.path = path
        guard let h = FileHandle(forReadingAtPath: path) else { throw .unreadable("\(path): cannot open") }
        handle = h
        size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64) ?? 0
    }

    deinit { try? handle.close() }

    /// Calls `body` with the entities of each data block, in file order. Only the `kinds`
    /// asked for are decoded.
    public func forEachBlock(_ kinds: OSMKinds = .all, _ body: (OSMBlock) throws -> Void) throws {
        try handle.seek(toOffset: 0)
        offset = 0; blockIndex = 0
        var sawHeader = false
        while let (type, blob) = try nextBlob() {
            let payload = try inflate(blob)
            switch type {
            case "OSMHeader":
                try checkHeader(payload)
                sawHeader = true
            case "OSMData":
                guard sawHeader else { throw OSMError.malformed("\(path): data block \(blockIndex) before the OSMHeader block") }
                let block = try payload.withUnsafeBytes { bytes throws(OSMError) in
                    try PrimitiveBlockDecoder.decode(bytes, kinds: kinds, context: "\(path): block \(blockIndex)")
                }
                try body(block)
            default:
                break  // unknown block types are skipped, as the format says
            }
            blockIndex += 1
        }
        guard sawHeader else { throw OSMError.malformed("\(path): no OSMHeader block (is this an OSM PBF file?)") }
    }

    // MARK: File blocks

    private func read(_ count: Int, _ what: String) throws(OSMError) -> Data {
        let data: Data
        do { data = try handle.read(upToCount: count) ?? Data() } catch { throw .unreadable("\(path): \(error.localizedDescription)") }
        guard data.count == count else {
            throw .malformed("\(path): truncated \(what) at byte \(offset) (block \(blockIndex)): wanted \(count) bytes, found \(data.count)")
        }
        offset += UInt64(count)
        return data
    }

    /// The next blob's type and bytes, or nil at the end of the file.
    private func nextBlob() throws(OSMError) -> (String, Data)? {
        let lengthBytes: Data
        do { lengthBytes = try handle.read(upToCount: 4) ?? Data() } catch { throw .unreadable("\(path): \(error.localizedDescription)") }
        if lengthBytes.isEmpty { return nil }
        guard lengthBytes.count == 4 else { throw .malformed("\(path): truncated block length at byte \(offset)") }
        offset += 4
        let headerLength = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
        guard headerLength > 0, headerLength <= 64 * 1024 else {
            throw .malformed("\(path): block \(blockIndex) header length \(headerLength) at byte \(offset - 4) is not a PBF BlobHeader (is this an OSM PBF file?)")
        }
        let header = try read(headerLength, "block header")
        var type = "", dataSize = -1
        try withBytes(of: header) { bytes throws(OSMError) in
            var r = ProtoReader(bytes, context: "\(path): block \(blockIndex) header")
            while let (number, wire) = try r.field() {
                switch (number, wire) {
                case (1, 2): type = try r.string()
                case (3, 0): dataSize = Int(truncatingIfNeeded: try r.varint())
                default: try r.skip(wire: wire)
                }
            }
        }
        guard !type.isEmpty, dataSize >= 0 else { throw .malformed("\(path): block \(blockIndex) header has no type or size") }
        guard dataSize <= 32 * 1024 * 1024 else { throw .malformed("\(path): block \(blockIndex) is \(dataSize) bytes, over the 32 MiB limit") }
        return (type, try read(dataSize, "block \(blockIndex)"))
    }

    /// The blob's uncompressed bytes.
    private func inflate(_ blob: Data) throws(OSMError) -> Data {
        let context = "\(path): block \(blockIndex)"
        var raw: Data?, zlib: Data?, rawSize = -1, other: String?
        try withBytes(of: blob) { bytes throws(OSMError) in
            var r = ProtoReader(bytes, context: context)
            while let (number, wire) = try r.field() {
                switch (number, wire) {
                case (1, 2): raw = Data(try r.data())
                case (2, 0): rawSize = Int(truncatingIfNeeded: try r.varint())
                case (3, 2): zlib = Data(try r.data())
                case (4, 2): other = "lzma"; try r.skip(wire: wire)
                case (5, 2): other = "bzip2"; try r.skip(wire: wire)
                case (6, 2): other = "lz4"; try r.skip(wire: wire)
                case (7, 2): other = "zstd"; try r.skip(wire: wire)
                default: try r.skip(wire: wire)
                }
            }
        }
        if let raw { return raw }
        if let other { throw .unsupported("\(context): \(other)-compressed blobs are not supported (only raw and zlib)") }
        guard let zlib else { throw .malformed("\(context): blob has no data") }
        guard rawSize > 0, rawSize <= 32 * 1024 * 1024 else { throw .malformed("\(context): blob raw size \(rawSize) is out of range") }
        var out = Data(count: rawSize)
        var produced = uLongf(rawSize)
        let status = out.withUnsafeMutableBytes { dst in
            zlib.withUnsafeBytes { src in
                uncompress(dst.baseAddress!.assumingMemoryBound(to: Bytef.self), &produced,
                           src.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(src.count))
            }
        }
        guard status == Z_OK, Int(produced) == rawSize else {
            throw .malformed("\(context): corrupt zlib data (zlib status \(status), \(produced) of \(rawSize) bytes)")
        }
        return out
    }

    /// Refuses files that need features this reader does not have.
    private func checkHeader(_ payload: Data) throws(OSMError) {
        let known: Set<String> = ["OsmSchema-V0.6", "DenseNodes"]
        try withBytes(of: payload) { bytes throws(OSMError) in
            var r = ProtoReader(bytes, context: "\(path): header block")
            while let (number, wire) = try r.field() {
                if number == 4 && wire == 2 {
                    let feature = try r.string()
                    guard known.contains(feature) else { throw .unsupported("\(path): requires the unsupported feature \"\(feature)\"") }
                } else {
                    try r.skip(wire: wire)
                }
            }
        }
    }
}

/// `Data.withUnsafeBytes` with a typed error (the standard one only rethrows `any Error`).
func withBytes<R>(of data: Data, _ body: (UnsafeRawBufferPointer) throws(OSMError) -> R) throws(OSMError) -> R {
    do {
        return try data.withUnsafeBytes { bytes in try body(bytes) }
    } catch let error as OSMError {
        throw error
    } catch {
        throw .malformed("\(error)")
    }
}
