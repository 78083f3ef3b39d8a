import BinaryFile
import Foundation

/// The binary graph file written by `wayfare graph import` and loaded by the router.
///
/// A `BinaryFile` container (magic "WFGRAPH\0") whose payload is every array of the
/// `RoadNetwork` — nodes, forward and backward CSR adjacency, edge lengths and times,
/// geometry pieces, street names — and both contraction hierarchies, each as a count
/// followed by its elements. Loading is one read, a checksum, array copies and a
/// validation of every index a query can follow, so a crafted file cannot make a query
/// read out of bounds; the snapping index and heuristic scales are rebuilt (milliseconds).
public enum GraphFile {
    static let container = BinaryFile(magic: "WFGRAPH\0", version: 1, kind: "graph file")
    /// Bumped whenever the payload layout changes; other versions are refused.
    public static var version: UInt32 { container.version }

    /// Serialises a network.
    public static func encode(_ g: RoadNetwork) -> [UInt8] {
        var w = BinaryWriter()
        w.array(g.latE7); w.array(g.lonE7)
        w.array(g.firstOut); w.array(g.head); w.array(g.tail); w.array(g.lengthDm); w.array(g.timeMs); w.array(g.edgePiece)
        w.array(g.firstIn); w.array(g.inEdge)
        w.array(g.pieceStart); w.array(g.pointLatE7); w.array(g.pointLonE7); w.array(g.pieceName)
        w.array(g.pieceEdgeStart); w.array(g.pieceEdges)
        w.int(g.names.count)
        for n in g.names { w.string(n) }
        w.int(g.hierarchies.count)
        for h in g.hierarchies {
            w.int(h.originalEdgeCount)
            w.array(h.upFirst); w.array(h.up); w.array(h.downFirst); w.array(h.down)
            w.array(h.shortcutFirst); w.array(h.shortcutSecond)
        }
        return container.wrap(w.bytes)
    }

    /// Reads a network back; a foreign, truncated, corrupt or other-version file is a
    /// clear error naming `path`.
    public static func decode(_ bytes: [UInt8], path: String) throws(GraphError) -> RoadNetwork {
        let payload: [UInt8]
        do { payload = try container.unwrap(bytes) } catch { throw GraphError("\(path): \(error.reason)") }
        do {
            var r = BinaryReader(bytes: payload)
            let latE7: [Int32] = try r.array(), lonE7: [Int32] = try r.array()
            let firstOut: [UInt32] = try r.array(), head: [UInt32] = try r.array(), tail: [UInt32] = try r.array()
            let lengthDm: [UInt32] = try r.array(), timeMs: [UInt32] = try r.array(), edgePiece: [UInt32] = try r.array()
            let firstIn: [UInt32] = try r.array(), inEdge: [UInt32] = try r.array()
            let pieceStart: [UInt32] = try r.array(), pointLat: [Int32] = try r.array(), pointLon: [Int32] = try r.array()
            let pieceName: [UInt32] = try r.array(), pieceEdgeStart: [UInt32] = try r.array(), pieceEdges: [UInt32] = try r.array()
            let nameCount = try r.int()
            var names: [String] = []
            for _ in 0..<nameCount { names.append(try r.string()) }
            let hierarchyCount = try r.int()
            guard hierarchyCount == Metric.allCases.count else { throw BinaryReader.Failure.inconsistent }
            var hierarchies: [ContractionHierarchy] = []
            for _ in 0..<hierarchyCount {
                let original = try r.int()
                hierarchies.append(ContractionHierarchy(
                    upFirst: try r.array(), up: try r.array(), downFirst: try r.array(), down: try r.array(),
                    shortcutFirst: try r.array(), shortcutSecond: try r.array(), originalEdgeCount: original))
            }
            guard r.isAtEnd else { throw BinaryReader.Failure.inconsistent }
            var g = RoadNetwork(latE7: latE7, lonE7: lonE7, firstOut: firstOut, head: head, tail: tail,
                                lengthDm: lengthDm, timeMs: timeMs, edgePiece: edgePiece, firstIn: firstIn, inEdge: inEdge,
                                pieceStart: pieceStart, pointLatE7: pointLat, pointLonE7: pointLon, pieceName: pieceName,
                                pieceEdgeStart: pieceEdgeStart, pieceEdges: pieceEdges, names: names, hierarchies: hierarchies)
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
        do { try BinaryFile.writeAtomically(encode(g), to: path) } catch { throw GraphError("\(path): \(error.reason)") }
    }
}

extension RoadNetwork {
    /// Whether every index a query can follow is in bounds and every offset array is
    /// monotone: the check that makes a loaded file safe to search.
    var isConsistent: Bool {
        let n = latE7.count, m = head.count, p = pieceName.count, points = pointLatE7.count
        func offsets(_ a: [UInt32], count: Int, limit: Int) -> Bool {
            a.count == count + 1 && a.first == 0 && Int(a.last!) == limit && zip(a, a.dropFirst()).allSatisfy { $0 <= $1 }
        }
        guard lonE7.count == n, offsets(firstOut, count: n, limit: m), offsets(firstIn, count: n, limit: m),
              tail.count == m, lengthDm.count == m, timeMs.count == m, edgePiece.count == m, inEdge.count == m,
              head.allSatisfy({ Int($0) < n }), inEdge.allSatisfy({ Int($0) < m }),
              offsets(pieceStart, count: p, limit: points), pointLonE7.count == points,
              zip(pieceStart, pieceStart.dropFirst()).allSatisfy({ $1 >= $0 + 2 }),
              offsets(pieceEdgeStart, count: p, limit: m), pieceEdges.allSatisfy({ Int($0) < m }),
              edgePiece.allSatisfy({ Int($0 & ~Self.reversedBit) < p }), !names.isEmpty,
              pieceName.allSatisfy({ Int($0) < names.count })
        else { return false }
        for v in 0..<n {
            for e in Int(firstOut[v])..<Int(firstOut[v + 1]) where Int(tail[e]) != v { return false }
        }
        return hierarchies.allSatisfy { $0.isConsistent(nodeCount: n, edgeCount: m) }
    }
}

extension ContractionHierarchy {
    func isConsistent(nodeCount n: Int, edgeCount m: Int) -> Bool {
        func offsets(_ a: [UInt32], limit: Int) -> Bool {
            a.count == n + 1 && a.first == 0 && Int(a.last!) == limit && zip(a, a.dropFirst()).allSatisfy { $0 <= $1 }
        }
        let total = m + shortcutFirst.count
        // Shortcuts refer only to edges made before them, so unpacking always ends.
        guard originalEdgeCount == m, shortcutSecond.count == shortcutFirst.count,
              offsets(upFirst, limit: up.count), offsets(downFirst, limit: down.count),
              up.allSatisfy({ Int($0.node) < n && Int($0.edge) < total }),
              down.allSatisfy({ Int($0.node) < n && Int($0.edge) < total })
        else { return false }
        for k in shortcutFirst.indices where Int(shortcutFirst[k]) >= m + k || Int(shortcutSecond[k]) >= m + k { return false }
        return true
    }
}
