import BinaryFile
import Foundation

/// The binary graph file written by `wayfare graph import` and loaded by the router.
///
/// A `BinaryFile` container (magic "WFGRAPH\0") whose payload is every array of the
/// `RoadNetwork` — nodes, forward and backward CSR adjacency, edge lengths and times,
/// geometry pieces, street names, toll ways (version 2) — and both contraction hierarchies,
/// laid out in rank order with each node's rank (version 3), each edge's turn cost
/// (version 4, empty when no turn is priced) and each hierarchy's landmark costs (version
/// 5, empty for the time metric); every array as a count followed
/// by its elements. Loading is one read, a checksum, array copies and a
/// validation of every index a query can follow, so a crafted file cannot make a query
/// read out of bounds; the snapping index and heuristic scales are rebuilt (milliseconds).
public enum GraphFile {
    package static let container = BinaryFile(magic: "WFGRAPH\0", version: 5, kind: "graph file")
    /// Bumped whenever the payload layout changes; other versions are refused.
    public static var version: UInt32 { container.version }

    /// Serialises a network.
    public static func encode(_ g: RoadNetwork) -> [UInt8] {
        container.wrap(payload(g).bytes)
    }

    /// The payload before it is wrapped, with the layout of its fields (for the fuzz tests).
    package static func payload(_ g: RoadNetwork) -> BinaryWriter {
        var w = BinaryWriter(reservingCapacity: g.memoryBytes + 4096)  // more than the payload needs
        write(g, to: &w)
        return w
    }

    private static func write(_ g: RoadNetwork, to w: inout BinaryWriter) {
        w.array(g.latE7); w.array(g.lonE7)
        w.array(g.firstOut); w.array(g.head); w.array(g.tail); w.array(g.lengthDm); w.array(g.timeMs); w.array(g.edgePiece)
        w.array(g.firstIn); w.array(g.inEdge)
        w.array(g.pieceStart); w.array(g.pointLatE7); w.array(g.pointLonE7); w.array(g.pieceName)
        w.array(g.pieceEdgeStart); w.array(g.pieceEdges)
        w.int(g.names.count)
        for n in g.names { w.string(n) }
        w.array(g.tollPieces); w.array(g.tollWayIDs)
        w.array(g.turnMs)
        w.int(g.hierarchies.count)
        for h in g.hierarchies {
            w.int(h.originalEdgeCount)
            w.array(h.rank); w.array(h.upFirst); w.array(h.up); w.array(h.downFirst); w.array(h.down)
            w.array(h.shortcutFirst); w.array(h.shortcutSecond)
            w.int(h.landmarks.count); w.array(h.landmarks.distances)
        }
    }

    /// Reads a network back; a foreign, truncated, corrupt or other-version file is a
    /// clear error naming `path`.
    public static func decode(_ bytes: [UInt8], path: String) throws(GraphError) -> RoadNetwork {
        var r: BinaryReader
        do { r = try container.reader(for: bytes) } catch { throw GraphError("\(path): \(error.reason)") }
        do {
            let latE7: [Int32] = try r.array(), lonE7: [Int32] = try r.array()
            let firstOut: [UInt32] = try r.array(), head: [UInt32] = try r.array(), tail: [UInt32] = try r.array()
            let lengthDm: [UInt32] = try r.array(), timeMs: [UInt32] = try r.array(), edgePiece: [UInt32] = try r.array()
            let firstIn: [UInt32] = try r.array(), inEdge: [UInt32] = try r.array()
            let pieceStart: [UInt32] = try r.array(), pointLat: [Int32] = try r.array(), pointLon: [Int32] = try r.array()
            let pieceName: [UInt32] = try r.array(), pieceEdgeStart: [UInt32] = try r.array(), pieceEdges: [UInt32] = try r.array()
            let nameCount = try r.int()
            var names: [String] = []
            for _ in 0..<nameCount { names.append(try r.string()) }
            let tollPieces: [UInt32] = try r.array(), tollWayIDs: [Int64] = try r.array()
            let turnMs: [UInt32] = try r.array()
            let hierarchyCount = try r.int()
            guard hierarchyCount == Metric.allCases.count else { throw BinaryReader.Failure.inconsistent }
            var hierarchies: [ContractionHierarchy] = []
            for _ in 0..<hierarchyCount {
                let original = try r.int()
                var h = ContractionHierarchy(
                    rank: try r.array(), upFirst: try r.array(), up: try r.array(), downFirst: try r.array(), down: try r.array(),
                    shortcutFirst: try r.array(), shortcutSecond: try r.array(), originalEdgeCount: original)
                h.landmarks = LandmarkTable(count: try r.int(), distances: try r.array())
                hierarchies.append(h)
            }
            guard r.isAtEnd else { throw BinaryReader.Failure.inconsistent }
            var g = RoadNetwork(latE7: latE7, lonE7: lonE7, firstOut: firstOut, head: head, tail: tail,
                                lengthDm: lengthDm, timeMs: timeMs, turnMs: turnMs, edgePiece: edgePiece, firstIn: firstIn, inEdge: inEdge,
                                pieceStart: pieceStart, pointLatE7: pointLat, pointLonE7: pointLon, pieceName: pieceName,
                                pieceEdgeStart: pieceEdgeStart, pieceEdges: pieceEdges, names: names, tollPieces: tollPieces, tollWayIDs: tollWayIDs,
                                hierarchies: hierarchies)
            guard g.isConsistent else { throw BinaryReader.Failure.inconsistent }
            g.prepare()
            return g
        } catch {
            throw GraphError("\(path): graph file is corrupt (\(error))")
        }
    }

    /// Loads a graph file from disk.
    public static func read(path: String) throws(GraphError) -> RoadNetwork {
        let bytes: [UInt8]
        do { bytes = try BinaryFile.readBytes(path: path) } catch { throw GraphError("\(path): \(error.reason)") }
        return try decode(bytes, path: path)
    }

    /// Writes a graph file atomically: a temporary file in the same folder, then a rename.
    public static func write(_ g: RoadNetwork, to path: String) throws(GraphError) {
        // The network's own arrays are written from where they lie: no copy of a large graph
        // in memory (at a million nodes the payload is 583 MB).
        var w = BinaryWriter(keepingArraysOver: 1 << 16)
        write(g, to: &w)
        let header = container.header(length: w.count, checksum: w.checksum)
        do {
            try BinaryFile.writeAtomically(to: path) { write in
                guard header.withUnsafeBytes(write) else { return }
                w.forEachPiece(write)
            }
        } catch { throw GraphError("\(path): \(error.reason)") }
    }
}

extension RoadNetwork {
    /// Whether every index a query can follow is in bounds, every offset array is valid
    /// and every coordinate is on the globe: the check that makes a loaded file safe to
    /// search.
    var isConsistent: Bool {
        let n = latE7.count, m = head.count, p = pieceName.count, points = pointLatE7.count
        let latitude = { (v: Int32) in v >= -900_000_000 && v <= 900_000_000 }
        let longitude = { (v: Int32) in v >= -1_800_000_000 && v <= 1_800_000_000 }
        guard lonE7.count == n, latE7.allSatisfy(latitude), lonE7.allSatisfy(longitude),
              Validate.offsets(firstOut, count: n, limit: m), Validate.offsets(firstIn, count: n, limit: m),
              tail.count == m, lengthDm.count == m, timeMs.count == m, edgePiece.count == m, inEdge.count == m,
              Validate.indices(head, below: n), Validate.indices(inEdge, below: m),
              Validate.offsets(pieceStart, count: p, limit: points, minimumStep: 2), pointLonE7.count == points,
              pointLatE7.allSatisfy(latitude), pointLonE7.allSatisfy(longitude),
              Validate.offsets(pieceEdgeStart, count: p, limit: m), Validate.indices(pieceEdges, below: m),
              edgePiece.allSatisfy({ Int($0 & ~Self.reversedBit) < p }), !names.isEmpty,
              Validate.indices(pieceName, below: names.count),
              tollWayIDs.count == tollPieces.count, Validate.indices(tollPieces, below: p),
              zip(tollPieces, tollPieces.dropFirst()).allSatisfy({ $0 < $1 }),
              turnMs.isEmpty || (turnMs.count == m && zip(turnMs, timeMs).allSatisfy({ $0 <= $1 }))
        else { return false }
        for v in 0..<n {
            for e in Int(firstOut[v])..<Int(firstOut[v + 1]) where Int(tail[e]) != v { return false }
        }
        return hierarchies.allSatisfy { $0.isConsistent(nodeCount: n, edgeCount: m) }
    }
}

extension ContractionHierarchy {
    /// The most original edges one shortcut may stand for. A shortcut is a shortest path,
    /// which never drives an edge twice, so no honest shortcut exceeds the edge count; the
    /// bound stops a crafted file whose shortcuts each point twice at the one before from
    /// unpacking into 2^k edges.
    static func maximumUnpackedEdges(edgeCount m: Int) -> Int { max(1, m) }

    func isConsistent(nodeCount n: Int, edgeCount m: Int) -> Bool {
        let total = m + shortcutFirst.count
        guard originalEdgeCount == m, shortcutSecond.count == shortcutFirst.count, Validate.permutation(rank, count: n),
              landmarks.isConsistent(nodeCount: n),
              Validate.offsets(upFirst, count: n, limit: up.count), Validate.offsets(downFirst, count: n, limit: down.count),
              up.allSatisfy({ Int($0.node) < n && Int($0.edge) < total }),
              down.allSatisfy({ Int($0.node) < n && Int($0.edge) < total })
        else { return false }
        // Shortcuts refer only to edges made before them, so unpacking always ends; the
        // edge count each unpacks to, derived here in one pass, must stay within the bound.
        let bound = Self.maximumUnpackedEdges(edgeCount: m)
        var unpacked = [Int](repeating: 0, count: shortcutFirst.count)
        func size(_ e: UInt32) -> Int { Int(e) < m ? 1 : unpacked[Int(e) - m] }
        for k in shortcutFirst.indices {
            guard Int(shortcutFirst[k]) < m + k, Int(shortcutSecond[k]) < m + k else { return false }
            unpacked[k] = size(shortcutFirst[k]) + size(shortcutSecond[k])
            guard unpacked[k] <= bound else { return false }
        }
        return true
    }
}
