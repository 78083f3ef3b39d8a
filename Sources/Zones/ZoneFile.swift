import Foundation

/// The binary zone file written by `wayfare zones import` and loaded by the engine.
///
/// Layout (little-endian):
/// ```
/// 0   8  magic "WFZONES\0"
/// 8   4  format version (UInt32)
/// 12  4  reserved, 0
/// 16  8  payload length in bytes (UInt64)
/// 24  8  payload checksum (UInt64, `ZoneFile.checksum`)
/// 32  …  payload: the zones, service areas, adjacency, both polygon layers and both
///        cell covers, each array as a UInt64 count followed by its elements
/// ```
/// Everything the engine needs is stored, cover included, so loading is a read, a
/// checksum and array copies: no geometry work.
public enum ZoneFile {
    static let magic: [UInt8] = Array("WFZONES\0".utf8)
    /// Bumped whenever the payload layout changes; other versions are refused.
    public static let version: UInt32 = 1
    static let headerSize = 32

    /// Serialises a zone set.
    public static func encode(_ set: ZoneSet) -> [UInt8] {
        var w = BinaryWriter()
        w.zones(set.zones)
        w.zones(set.serviceAreas)
        w.int(set.adjacency.count)
        for a in set.adjacency { w.array(a.map(Int32.init)) }
        w.layer(set.zoneLayer)
        w.layer(set.areaLayer)
        w.cover(set.zoneCover)
        w.cover(set.areaCover)
        var out = magic
        out.append(littleEndian: version)
        out.append(littleEndian: UInt32(0))
        out.append(littleEndian: UInt64(w.bytes.count))
        out.append(littleEndian: checksum(w.bytes))
        out += w.bytes
        return out
    }

    /// Reads a zone set back; a foreign, truncated or corrupt file is a clear error.
    public static func decode(_ bytes: [UInt8], path: String) throws(ZoneError) -> ZoneSet {
        func bad(_ reason: String) -> ZoneError { .badInput(place: path, reason: reason) }
        guard bytes.count >= headerSize else {
            throw bad(bytes.count >= 8 && Array(bytes[0..<8]) == magic
                      ? "truncated zone file (\(bytes.count) bytes)" : "not a Wayfare zone file")
        }
        guard Array(bytes[0..<8]) == magic else { throw bad("not a Wayfare zone file (bad magic number)") }
        var r = BinaryReader(bytes: bytes, offset: 8)
        let v: UInt32 = (try? r.scalar()) ?? 0
        guard v == version else { throw bad("zone file format version \(v); this Wayfare reads version \(version)") }
        _ = try? r.scalar() as UInt32
        let length: UInt64 = (try? r.scalar()) ?? 0
        let sum: UInt64 = (try? r.scalar()) ?? 0
        guard UInt64(bytes.count - headerSize) == length else {
            throw bad("truncated or extended zone file: payload is \(bytes.count - headerSize) bytes, header says \(length)")
        }
        let payload = Array(bytes[headerSize...])
        guard checksum(payload) == sum else { throw bad("zone file is corrupt (checksum mismatch)") }
        do {
            var p = BinaryReader(bytes: payload, offset: 0)
            let zones = try p.zones()
            let areas = try p.zones()
            let n = try p.int()
            var adjacency: [[Int]] = []
            for _ in 0..<n { adjacency.append((try p.array() as [Int32]).map(Int.init)) }
            let zoneLayer = try p.layer()
            let areaLayer = try p.layer()
            let zoneCover = try p.cover(features: zoneLayer.featureCount)
            let areaCover = try p.cover(features: areaLayer.featureCount)
            guard zones.count == zoneLayer.featureCount, areas.count == areaLayer.featureCount,
                  adjacency.count == zones.count else { throw BinaryReader.Failure.inconsistent }
            return ZoneSet(zones: zones, zoneLayer: zoneLayer, serviceAreas: areas, areaLayer: areaLayer,
                           adjacency: adjacency, zoneCover: zoneCover, areaCover: areaCover)
        } catch {
            throw bad("zone file is corrupt (\(error))")
        }
    }

    /// Loads a zone file from disk.
    public static func read(path: String) throws(ZoneError) -> ZoneSet {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .badInput(place: path, reason: FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        return try decode([UInt8](data), path: path)
    }

    /// Writes a zone file atomically: a temporary file in the same folder, then a rename.
    public static func write(_ set: ZoneSet, to path: String) throws(ZoneError) {
        do { try Data(encode(set)).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw .badInput(place: path, reason: "cannot write: \(error.localizedDescription)")
        }
    }

    /// A 64-bit checksum over the payload, eight bytes at a time (multiply–xorshift mixing).
    static func checksum(_ bytes: [UInt8]) -> UInt64 {
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

extension Array where Element == UInt8 {
    mutating func append<T: FixedWidthInteger>(littleEndian value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

struct BinaryWriter {
    var bytes: [UInt8] = []

    mutating func int(_ v: Int) { bytes.append(littleEndian: UInt64(v)) }

    mutating func array<T: BitwiseCopyable>(_ a: [T]) {
        int(a.count)
        a.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ s: String) { array(Array(s.utf8)) }

    mutating func zones(_ zs: [Zone]) {
        int(zs.count)
        for z in zs { string(z.id); string(z.name); string(z.properties) }
    }

    mutating func layer(_ l: PolygonLayer) {
        array(l.xs); array(l.ys); array(l.ringStart); array(l.polygonStart); array(l.featureStart)
        array(l.bounds); array(l.bandFeatureStart); array(l.bandMinY); array(l.bandInvHeight)
        array(l.bandStart); array(l.bandEdges)
    }

    mutating func cover(_ c: CellCover) {
        array([c.minX, c.minY, c.invFineWidth, c.invFineHeight])
        int(c.columns); int(c.rows)
        array(c.coarse); array(c.fine); array(c.blockListBase); array(c.candidateStart); array(c.candidates)
    }
}

struct BinaryReader {
    enum Failure: Error, CustomStringConvertible {
        case truncated, inconsistent, badString
        var description: String {
            switch self {
            case .truncated: "truncated"
            case .inconsistent: "inconsistent arrays"
            case .badString: "invalid UTF-8 in a name"
            }
        }
    }

    let bytes: [UInt8]
    var offset: Int

    mutating func scalar<T: FixedWidthInteger>() throws(Failure) -> T {
        let size = MemoryLayout<T>.size
        guard offset + size <= bytes.count else { throw .truncated }
        let v = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        offset += size
        return T(littleEndian: v)
    }

    mutating func int() throws(Failure) -> Int {
        let v: UInt64 = try scalar()
        guard v <= UInt64(bytes.count) * 8 else { throw .truncated }
        return Int(v)
    }

    mutating func array<T: BitwiseCopyable>() throws(Failure) -> [T] {
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

    mutating func string() throws(Failure) -> String {
        let raw: [UInt8] = try array()
        guard let s = String(validating: raw, as: UTF8.self) else { throw .badString }
        return s
    }

    mutating func zones() throws(Failure) -> [Zone] {
        let n = try int()
        var out: [Zone] = []
        for i in 0..<n {
            out.append(Zone(index: i, id: try string(), name: try string(), properties: try string()))
        }
        return out
    }

    mutating func layer() throws(Failure) -> PolygonLayer {
        var l = PolygonLayer()
        l.xs = try array(); l.ys = try array(); l.ringStart = try array(); l.polygonStart = try array()
        l.featureStart = try array(); l.bounds = try array(); l.bandFeatureStart = try array()
        l.bandMinY = try array(); l.bandInvHeight = try array(); l.bandStart = try array(); l.bandEdges = try array()
        try l.validate()
        return l
    }

    mutating func cover(features: Int) throws(Failure) -> CellCover {
        var c = CellCover()
        let g: [Double] = try array()
        guard g.count == 4 else { throw .inconsistent }
        (c.minX, c.minY, c.invFineWidth, c.invFineHeight) = (g[0], g[1], g[2], g[3])
        c.columns = try int(); c.rows = try int()
        c.coarse = try array(); c.fine = try array(); c.blockListBase = try array()
        c.candidateStart = try array(); c.candidates = try array()
        try c.validate(features: features)
        return c
    }
}

extension PolygonLayer {
    /// Checks every offset a query can follow, so a crafted file cannot make a query read
    /// out of bounds even if its checksum is right.
    func validate() throws(BinaryReader.Failure) {
        func monotone(_ a: [Int32], limit: Int) -> Bool {
            guard a.first == 0, let last = a.last, Int(last) <= limit else { return false }
            return zip(a, a.dropFirst()).allSatisfy { $0 <= $1 }
        }
        let n = featureCount
        guard xs.count == ys.count, monotone(ringStart, limit: xs.count), monotone(polygonStart, limit: ringStart.count - 1),
              monotone(featureStart, limit: polygonStart.count - 1), bounds.count == 4 * n,
              bandFeatureStart.count == n + 1, bandMinY.count == n, bandInvHeight.count == n,
              monotone(bandFeatureStart, limit: bandStart.count - 1), monotone(bandStart, limit: bandEdges.count),
              bandEdges.allSatisfy({ $0 >= 0 && Int($0) + 1 < xs.count })
        else { throw .inconsistent }
    }
}

extension CellCover {
    func validate(features: Int) throws(BinaryReader.Failure) {
        let blocks = fine.count >> (2 * Self.fineShift)
        let lists = candidateStart.count - 1
        guard columns >= 0, rows >= 0, coarse.count == columns * rows, fine.count == blocks << (2 * Self.fineShift),
              blockListBase.count == blocks, candidateStart.first == 0, Int(candidateStart.last ?? 0) == candidates.count,
              zip(candidateStart, candidateStart.dropFirst()).allSatisfy({ $0 <= $1 }),
              coarse.allSatisfy({ $0 & Self.blockTag == 0 ? Int($0) <= features : Int($0 & ~Self.blockTag) < blocks }),
              candidates.allSatisfy({ Int($0 & ~Self.wholeCellFlag) < features })
        else { throw .inconsistent }
        for b in 0..<blocks {
            for k in (b << (2 * Self.fineShift))..<((b + 1) << (2 * Self.fineShift)) {
                let v = fine[k], low = Int(v & Self.lowBits)
                switch v >> 14 {
                case 0: guard low <= features else { throw .inconsistent }
                case 1: guard low < features else { throw .inconsistent }
                case 2: guard Int(blockListBase[b]) + low < lists else { throw .inconsistent }
                default: throw .inconsistent
                }
            }
        }
        guard true
        else { throw .inconsistent }
    }
}
