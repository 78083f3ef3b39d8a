import BinaryFile
import Foundation

/// The binary zone file written by `wayfare zones import` and loaded by the engine.
///
/// A `BinaryFile` container (magic "WFZONES\0") whose payload is:
/// the zones, service areas, adjacency, both polygon layers and both cell covers, each
/// array as a UInt64 count followed by its elements.
/// Everything the engine needs is stored, cover included, so loading is a read, a
/// checksum and array copies: no geometry work.
public enum ZoneFile {
    package static let container = BinaryFile(magic: "WFZONES\0", version: 1, kind: "zone file")
    /// Bumped whenever the payload layout changes; other versions are refused.
    public static var version: UInt32 { container.version }

    /// Serialises a zone set.
    public static func encode(_ set: ZoneSet) -> [UInt8] {
        container.wrap(payload(set).bytes)
    }

    /// The payload before it is wrapped, with the layout of its fields (for the fuzz tests).
    package static func payload(_ set: ZoneSet) -> BinaryWriter {
        var w = BinaryWriter()
        w.zones(set.zones)
        w.zones(set.serviceAreas)
        w.int(set.adjacency.count)
        for a in set.adjacency { w.array(a.map(Int32.init)) }
        w.layer(set.zoneLayer)
        w.layer(set.areaLayer)
        w.cover(set.zoneCover)
        w.cover(set.areaCover)
        return w
    }

    /// Reads a zone set back; a foreign, truncated or corrupt file is a clear error.
    public static func decode(_ bytes: [UInt8], path: String) throws(ZoneError) -> ZoneSet {
        func bad(_ reason: String) -> ZoneError { .badInput(place: path, reason: reason) }
        var p: BinaryReader
        do { p = try container.reader(for: bytes) } catch { throw bad(error.reason) }
        do {
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
                  adjacency.count == zones.count,
                  adjacency.allSatisfy({ Validate.indices($0, below: zones.count) })
            else { throw BinaryReader.Failure.inconsistent }
            return ZoneSet(zones: zones, zoneLayer: zoneLayer, serviceAreas: areas, areaLayer: areaLayer,
                           adjacency: adjacency, zoneCover: zoneCover, areaCover: areaCover)
        } catch {
            throw bad("zone file is corrupt (\(error))")
        }
    }

    /// Loads a zone file from disk.
    public static func read(path: String) throws(ZoneError) -> ZoneSet {
        do { return try decode(BinaryFile.readBytes(path: path), path: path) } catch let e as BinaryFormatError {
            throw .badInput(place: path, reason: e.reason)
        } catch let e as ZoneError { throw e } catch { throw .badInput(place: path, reason: "\(error)") }
    }

    /// Writes a zone file atomically: a temporary file in the same folder, then a rename.
    public static func write(_ set: ZoneSet, to path: String) throws(ZoneError) {
        do { try BinaryFile.writeAtomically(encode(set), to: path) } catch { throw .badInput(place: path, reason: error.reason) }
    }
}

extension BinaryWriter {
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

extension BinaryReader {
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
    /// Checks every offset a query can follow and every number it computes an index from,
    /// so a crafted file cannot make a query read out of bounds or trap even if its
    /// checksum is right.
    func validate() throws(BinaryReader.Failure) {
        let n = featureCount
        // Vertices and bounds on the globe (which also makes them finite): queries turn
        // them into coordinates and box corners.
        let onGlobeX = { (x: Double) in x >= -180 && x <= 180 }, onGlobeY = { (y: Double) in y >= -90 && y <= 90 }
        guard xs.count == ys.count, xs.allSatisfy(onGlobeX), ys.allSatisfy(onGlobeY),
              Validate.offsets(ringStart, limit: xs.count),
              Validate.offsets(polygonStart, limit: ringStart.count - 1),
              Validate.offsets(featureStart, limit: polygonStart.count - 1),
              bounds.count == 4 * n,
              (0..<n).allSatisfy({ f in onGlobeX(bounds[4 * f]) && onGlobeY(bounds[4 * f + 1]) && onGlobeX(bounds[4 * f + 2])
                  && onGlobeY(bounds[4 * f + 3]) && bounds[4 * f] <= bounds[4 * f + 2] && bounds[4 * f + 1] <= bounds[4 * f + 3] }),
              // Every feature has at least one band, with a finite origin and a finite,
              // positive number of bands per degree: the band of a point is computed from them.
              Validate.offsets(bandFeatureStart, count: n, limit: bandStart.count - 1, minimumStep: 1),
              bandMinY.count == n, bandInvHeight.count == n, Validate.finite(bandMinY),
              bandInvHeight.allSatisfy({ $0.isFinite && $0 > 0 }),
              Validate.offsets(bandStart, limit: bandEdges.count),
              bandEdges.allSatisfy({ $0 >= 0 && Int($0) + 1 < xs.count })
        else { throw .inconsistent }
    }
}

extension CellCover {
    func validate(features: Int) throws(BinaryReader.Failure) {
        let blocks = fine.count >> (2 * Self.fineShift)
        let lists = candidateStart.count - 1
        guard [minX, minY].allSatisfy(\.isFinite), [invFineWidth, invFineHeight].allSatisfy({ $0.isFinite && $0 > 0 }),
              columns >= 0, rows >= 0,
              case let (cells, overflow) = columns.multipliedReportingOverflow(by: rows), !overflow, coarse.count == cells, fine.count == blocks << (2 * Self.fineShift),
              blockListBase.count == blocks, Validate.offsets(candidateStart, limit: candidates.count),
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
    }
}
