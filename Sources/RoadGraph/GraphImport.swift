import CSVFile
import Foundation
import Geodesy
import OSM

/// Why a graph cannot be imported or loaded: one line naming the file and, where it
/// helps, the line or block.
public struct GraphError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The error in one line, naming the file and, where it helps, the line or way.
    public let description: String
    /// An error with its one-line text.
    public init(_ description: String) { self.description = description }
}

/// A stage of an import and how far it has got (0…1), for progress bars.
public typealias ImportProgress = (_ stage: String, _ done: Double) -> Void

extension RoadNetwork {
    /// Imports the car network of an OSM extract (`.osm.pbf`, or OSM XML for `.osm`/`.xml`).
    ///
    /// Two passes over a PBF keep memory bounded by the roads, not the file: ways and
    /// turn restrictions first, then only the coordinates of nodes those ways use.
    public static func importOSM(path: String, profile: CarProfile = CarProfile(),
                                 progress: ImportProgress? = nil) throws(GraphError) -> (RoadNetwork, BuildReport) {
        var builder = OSMGraphBuilder(profile: profile)
        var report = BuildReport()
        let lower = path.lowercased()
        var phaseStart = ContinuousClock.now
        func phase(_ name: String) { report.endPhase(name, startedAt: &phaseStart) }
        do {
            if lower.hasSuffix(".osm") || lower.hasSuffix(".xml") {
                progress?("reading XML", 0)
                let block = try OSMXMLReader.read(path: path)
                builder.collect(block)
                builder.indexNodes()
                builder.locate(block.nodes)
                phase("reading")
            } else {
                let reader = try PBFReader(path: path)
                try reader.forEachBlock([.ways, .relations]) { block in
                    builder.collect(block)
                    progress?("ways", Double(reader.bytesRead) / Double(max(1, reader.size)))
                }
                builder.indexNodes()
                phase("ways")
                let second = try PBFReader(path: path)
                try second.forEachBlock([.nodes]) { block in
                    builder.locate(block.nodes)
                    progress?("nodes", Double(second.bytesRead) / Double(max(1, second.size)))
                }
                phase("nodes")
            }
        } catch let e as OSMError {
            throw GraphError(e.description)
        } catch {
            throw GraphError("\(path): \(error)")
        }
        guard !builder.wayIDs.isEmpty else { throw GraphError("\(path): no road a car may drive (no usable highway ways)") }
        progress?("building", 0)
        var draft = builder.draft(report: &report)
        if let costs = profile.turnCosts { draft.priceTurns(costs) }
        phase("junctions and pieces")
        let network = RoadNetwork(emptying: &draft, report: &report, progress: progress)
        progress?("done", 1)
        guard network.nodeCount > 1 else { throw GraphError("\(path): the road network is empty after keeping its largest connected part") }
        return (network, report)
    }

    /// Imports a graph that does not come from OSM: `nodes` has the columns `id,lat,lon`
    /// and `edges` `from,to,length_m,time_s`, one directed edge per row, with an optional
    /// `wkt` (or `geometry`) column holding the edge's `LINESTRING (lon lat, …)` (other
    /// columns are ignored). An edge without geometry is drawn straight between its nodes.
    ///
    /// Two rows between the same nodes in opposite directions along the same line (as
    /// exports write a two-way street) become one piece with two edges, each keeping its
    /// own length and time. A geometry must start within ``maximumGeometryGapMetres`` of
    /// its `from` node and end as near its `to` node (one drawn the other way round is
    /// turned); its ends are then moved onto the nodes so that pieces meet exactly.
    public static func importCSV(nodes nodesPath: String, edges edgesPath: String,
                                 progress: ImportProgress? = nil) throws(GraphError) -> (RoadNetwork, BuildReport) {
        var draft = NetworkDraft()
        var index = NodeIDIndex()
        var report = BuildReport()
        var phaseStart = ContinuousClock.now
        func phase(_ name: String) { report.endPhase(name, startedAt: &phaseStart) }
        do {
            progress?("nodes", 0)
            // Both files are streamed row by row: kept whole as strings, a million-row
            // file took several times its size in memory.
            // The columns are looked up once, at the first row (the header is known by then).
            var nodeColumns: (id: Int, lat: Int, lon: Int)?
            try CSVTable.forEachRow(path: nodesPath, required: ["id", "lat", "lon"]) { nodes, row in
                if nodeColumns == nil { nodeColumns = try (nodes.column("id"), nodes.column("lat"), nodes.column("lon")) }
                let (idc, lac, loc) = nodeColumns!
                let id = nodes.text(row, idc)
                guard !id.isEmpty else { throw GraphError("\(nodesPath): line \(row.line): empty id") }
                let lat = try nodes.number(row, lac), lon = try nodes.number(row, loc)
                guard (-90...90).contains(lat), (-180...180).contains(lon) else {
                    throw GraphError("\(nodesPath): line \(row.line): impossible coordinate \(lat),\(lon)")
                }
                let node = draft.addNode(latE7: Int32((lat * 1e7).rounded()), lonE7: Int32((lon * 1e7).rounded()))
                guard index.insert(id, node: node) else {
                    throw GraphError("\(nodesPath): line \(row.line): duplicate node id \"\(id)\"")
                }
            }
            phase("nodes")
            progress?("edges", 0)
            var edgeColumns: (from: Int, to: Int, length: Int, time: Int, geometry: Int?)?
            try CSVTable.forEachRow(path: edgesPath, required: ["from", "to", "length_m", "time_s"]) { edges, row in
                if edgeColumns == nil {
                    edgeColumns = try (edges.column("from"), edges.column("to"), edges.column("length_m"), edges.column("time_s"),
                                       edges.optionalColumn("wkt") ?? edges.optionalColumn("geometry"))
                }
                let (fc, tc, lc, sc, gc) = edgeColumns!
                func node(_ c: Int) throws(GraphError) -> UInt32 {
                    let id = edges.text(row, c)
                    guard let v = index.node(id) else { throw GraphError("\(edgesPath): line \(row.line): \(edges.header[c]) is an unknown node \"\(id)\"") }
                    return v
                }
                let a = try node(fc), b = try node(tc)
                let length = try edges.number(row, lc), time = try edges.number(row, sc)
                // Bounds keep every sum of a few edges inside 32-bit costs.
                guard length >= 0, length <= 1e7 else { throw GraphError("\(edgesPath): line \(row.line): length_m \(length) is not between 0 and 10,000,000") }
                guard time >= 0, time <= 1e6 else { throw GraphError("\(edgesPath): line \(row.line): time_s \(time) is not between 0 and 1,000,000") }
                guard a != b else { return }  // a loop never shortens a route
                guard let gc, !edges.text(row, gc).isEmpty else {
                    draft.addStraightEdge(tail: a, head: b, lengthMetres: length, timeSeconds: time)
                    return
                }
                let lat: [Int32], lon: [Int32]
                do {
                    (lat, lon) = try Self.lineString(row.fields[gc], from: (draft.latE7[Int(a)], draft.lonE7[Int(a)]),
                                                     to: (draft.latE7[Int(b)], draft.lonE7[Int(b)]))
                } catch let error as GraphError { throw GraphError("\(edgesPath): line \(row.line): \(edges.header[gc]): \(error.description)") }
                draft.addEdge(tail: a, head: b, lat: lat, lon: lon, lengthMetres: length, timeSeconds: time)
            }
        } catch let e as GraphError {
            throw e
        } catch let e as CSVError {
            throw GraphError(e.description)
        } catch {
            throw GraphError("\(error)")
        }
        guard !draft.edges.isEmpty else { throw GraphError("\(edgesPath): no edges") }
        draft.stopPairing()
        index = NodeIDIndex()
        phase("edges")
        let network = RoadNetwork(emptying: &draft, report: &report, progress: progress)
        progress?("done", 1)
        return (network, report)
    }
}

/// Turns OSM ways into a network draft: junctions become nodes, the chains of degree-2
/// nodes between them become pieces of geometry with one edge per driven direction, and
/// junctions with turn restrictions are split (one node per way in).
struct OSMGraphBuilder {
    let profile: CarProfile
    // Pass 1: driven ways.
    var wayIDs: [Int64] = []
    var wayNodeStart: [Int] = [0]
    var wayNodes: [Int64] = []
    var wayUse: [WayUse] = []
    var restrictions: [TurnRestriction] = []
    var skippedRestrictions = 0
    var implausibleSpeeds = 0
    // Node table: the ids the ways use, sorted, with their coordinates once located.
    var ids: [Int64] = []
    var uses: [UInt8] = []
    var latE7: [Int32] = []
    var lonE7: [Int32] = []
    var located: [Bool] = []

    init(profile: CarProfile) { self.profile = profile }

    mutating func collect(_ block: OSMBlock) {
        for w in block.ways {
            guard w.nodes.count >= 2, let use = profile.use(of: w.tags), use.forward || use.backward else { continue }
            wayIDs.append(w.id); wayNodes += w.nodes; wayNodeStart.append(wayNodes.count); wayUse.append(use)
            if use.postedSpeedIgnored { implausibleSpeeds += 1 }
        }
        for r in block.relations {
            if let t = TurnRestriction(r) { restrictions.append(t) }
            else if ["restriction", "restriction:motorcar"].contains(r.tags["type"] ?? "") { skippedRestrictions += 1 }
        }
    }

    mutating func indexNodes() {
        var all = wayNodes
        all.sort()
        ids.reserveCapacity(all.count / 2); uses.reserveCapacity(all.count / 2)
        for id in all {
            if ids.last == id { uses[uses.count - 1] = uses[uses.count - 1] &+ (uses[uses.count - 1] < 255 ? 1 : 0) }
            else { ids.append(id); uses.append(1) }
        }
        latE7 = .init(repeating: 0, count: ids.count); lonE7 = latE7
        located = .init(repeating: false, count: ids.count)
    }

    func index(of id: Int64) -> Int? {
        var lo = 0, hi = ids.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if ids[mid] < id { lo = mid + 1 } else { hi = mid }
        }
        return lo < ids.count && ids[lo] == id ? lo : nil
    }

    mutating func locate(_ nodes: [OSMNode]) {
        for n in nodes {
            guard let i = index(of: n.id) else { continue }
            latE7[i] = Int32((n.latitude * 1e7).rounded()); lonE7[i] = Int32((n.longitude * 1e7).rounded())
            located[i] = true
        }
    }

    /// The node-table indices of way w's nodes, nil where the extract lacks the node.
    func refs(_ w: Int) -> [Int?] {
        wayNodes[wayNodeStart[w]..<wayNodeStart[w + 1]].map { id in index(of: id).flatMap { located[$0] ? $0 : nil } }
    }

    func draft(report: inout BuildReport) -> NetworkDraft {
        // Junctions: way ends, nodes used more than once, restriction via nodes, and the
        // neighbours of nodes missing from the extract (where a way is cut).
        var junction = uses.map { $0 > 1 }
        for t in restrictions { if let i = index(of: t.via) { junction[i] = true } }
        var wayRefs: [[Int?]] = []
        wayRefs.reserveCapacity(wayIDs.count)
        for w in wayIDs.indices {
            let r = refs(w)
            for (k, i) in r.enumerated() {
                guard let i else { continue }
                if k == 0 || k == r.count - 1 || r[k - 1] == nil || (k + 1 < r.count && r[k + 1] == nil) { junction[i] = true }
            }
            wayRefs.append(r)
        }
        // A closed chain from a junction back to itself gets a junction in its middle, so
        // every piece joins two different nodes.
        for r in wayRefs {
            var start: Int?, between: [Int] = []
            for i in r {
                guard let i else { start = nil; between = []; continue }
                if between.last == i || (between.isEmpty && start == i) { continue }
                if junction[i] {
                    if let s = start, s == i, !between.isEmpty { junction[between[between.count / 2]] = true }
                    start = i; between = []
                } else if start != nil { between.append(i) }
            }
        }

        var d = NetworkDraft()
        var node = [UInt32](repeating: RoadNetwork.none, count: ids.count)
        for i in ids.indices where junction[i] && located[i] { node[i] = d.addNode(latE7: latE7[i], lonE7: lonE7[i]) }
        var nameIndex: [String: UInt32] = ["": 0]
        var pieceWay: [Int] = []
        for (w, r) in wayRefs.enumerated() {
            let use = wayUse[w]
            let name: UInt32
            if let n = use.name, !n.isEmpty {
                if let k = nameIndex[n] { name = k } else { name = UInt32(d.names.count); nameIndex[n] = name; d.names.append(n) }
            } else { name = 0 }
            var points: [Int] = []
            for i in r {
                guard let i else { points = []; continue }
                if points.last == i { continue }
                if points.isEmpty { if junction[i] { points = [i] }; continue }
                points.append(i)
                guard junction[i] else { continue }
                var metres = 0.0
                for k in 1..<points.count {
                    metres += coordinate(points[k - 1]).distance(to: coordinate(points[k]))
                }
                let piece = d.addPiece(lat: points.map { latE7[$0] }, lon: points.map { lonE7[$0] }, name: name)
                pieceWay.append(w)
                if use.toll { d.tollWay[piece] = wayIDs[w] }
                let seconds = metres / (use.speedKmh / 3.6)
                let a = node[points[0]], b = node[i]
                if use.forward { d.edges.append(.init(tail: a, head: b, piece: piece, lengthMetres: metres, timeSeconds: seconds)) }
                if use.backward { d.edges.append(.init(tail: b, head: a, piece: piece | RoadNetwork.reversedBit, lengthMetres: metres, timeSeconds: seconds)) }
                points = [i]
            }
        }
        applyRestrictions(to: &d, node: node, pieceWay: pieceWay, report: &report)
        return d
    }

    func coordinate(_ i: Int) -> Coordinate { Coordinate(unchecked: Double(latE7[i]) * 1e-7, Double(lonE7[i]) * 1e-7) }

    /// Splits each restricted junction into one node per piece arriving at it; each copy
    /// keeps only the turns the restrictions allow from that way.
    func applyRestrictions(to d: inout NetworkDraft, node: [UInt32], pieceWay: [Int], report: inout BuildReport) {
        var byVia: [UInt32: [TurnRestriction]] = [:]
        report.restrictionsSkipped = skippedRestrictions
        report.implausibleSpeeds = implausibleSpeeds
        for t in restrictions {
            guard let i = index(of: t.via), node[i] != RoadNetwork.none else { report.restrictionsSkipped += 1; continue }
            byVia[node[i], default: []].append(t)
        }
        guard !byVia.isEmpty else { return }
        var into: [UInt32: [Int]] = [:], outOf: [UInt32: [Int]] = [:]
        for (k, e) in d.edges.enumerated() {
            if byVia[e.head] != nil { into[e.head, default: []].append(k) }
            if byVia[e.tail] != nil { outOf[e.tail, default: []].append(k) }
        }
        func way(_ e: NetworkDraft.DraftEdge) -> Int64 { wayIDs[pieceWay[Int(e.piece & ~RoadNetwork.reversedBit)]] }
        var removed = Set<Int>()
        for v in byVia.keys.sorted() {
            let rules = byVia[v]!
            let ins = into[v] ?? [], outs = outOf[v] ?? []
            for t in rules {
                if ins.contains(where: { way(d.edges[$0]) == t.fromWay }) && outs.contains(where: { way(d.edges[$0]) == t.toWay }) {
                    report.restrictionsApplied += 1
                } else { report.restrictionsSkipped += 1 }
            }
            var pieces: [UInt32] = []
            for k in ins where !pieces.contains(d.edges[k].piece) { pieces.append(d.edges[k].piece) }
            for (j, piece) in pieces.enumerated() {
                let from = way(d.edges[ins.first { d.edges[$0].piece == piece }!])
                let only = rules.filter { $0.kind == .mandatory && $0.fromWay == from }.map(\.toWay)
                let banned = Set(rules.filter { $0.kind == .forbidden && $0.fromWay == from }.map(\.toWay))
                func allowed(_ k: Int) -> Bool {
                    let to = way(d.edges[k])
                    return !banned.contains(to) && (only.isEmpty || only.contains(to))
                }
                if j == 0 {
                    for k in outs where !allowed(k) { removed.insert(k) }
                    continue
                }
                let copy = d.addNode(latE7: d.latE7[Int(v)], lonE7: d.lonE7[Int(v)])
                for k in ins where d.edges[k].piece == piece { d.edges[k].head = copy }
                for k in outs where allowed(k) {
                    var e = d.edges[k]
                    e.tail = copy
                    d.edges.append(e)
                    // A copy arriving at another restricted junction is one of its ways in.
                    if byVia[e.head] != nil { into[e.head, default: []].append(d.edges.count - 1) }
                }
            }
        }
        if !removed.isEmpty { d.edges = d.edges.enumerated().filter { !removed.contains($0.offset) }.map(\.element) }
    }
}

extension RoadNetwork {
    /// How far a CSV edge's geometry may start or end from its nodes, in metres.
    public static let maximumGeometryGapMetres = 50.0

    /// Parses `LINESTRING (lon lat, lon lat, …)` (a `Z` or `M` value per point is read and
    /// dropped) into E7 arrays running from `from` to `to`, with its ends put on them.
    static func lineString(_ text: String, from: (Int32, Int32), to: (Int32, Int32)) throws(GraphError) -> ([Int32], [Int32]) {
        var t = Substring(text.trimmingCharacters(in: .whitespaces))
        guard t.uppercased().hasPrefix("LINESTRING") else { throw GraphError("expected LINESTRING (lon lat, …), got \"\(t.prefix(30))\"") }
        t = t.dropFirst("LINESTRING".count).drop(while: \.isWhitespace)
        for tag in ["ZM", "Z", "M"] where t.uppercased().hasPrefix(tag) { t = t.dropFirst(tag.count).drop(while: \.isWhitespace); break }
        guard t.first == "(", t.last == ")" else { throw GraphError("a LINESTRING needs its points in parentheses") }
        var lat: [Int32] = [], lon: [Int32] = []
        for (k, point) in t.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let numbers = point.split(whereSeparator: \.isWhitespace)
            guard (2...4).contains(numbers.count), let x = Double(numbers[0]), let y = Double(numbers[1]),
                  (-180...180).contains(x), (-90...90).contains(y) else {
                throw GraphError("point \(k + 1) \"\(point.trimmingCharacters(in: .whitespaces))\" is not \"lon lat\" on the globe")
            }
            let la = Int32((y * 1e7).rounded()), lo = Int32((x * 1e7).rounded())
            if lat.last == la && lon.last == lo { continue }
            lat.append(la); lon.append(lo)
        }
        guard lat.count >= 2 else { throw GraphError("a LINESTRING needs two distinct points") }
        func gap(_ i: Int, _ node: (Int32, Int32)) -> Double {
            Coordinate(unchecked: Double(lat[i]) * 1e-7, Double(lon[i]) * 1e-7)
                .distance(to: Coordinate(unchecked: Double(node.0) * 1e-7, Double(node.1) * 1e-7))
        }
        let last = lat.count - 1, limit = maximumGeometryGapMetres
        if !(gap(0, from) <= limit && gap(last, to) <= limit) {
            guard gap(0, to) <= limit && gap(last, from) <= limit else {
                throw GraphError(String(format: "the line starts %.0f m from its from node and ends %.0f m from its to node (at most %.0f m)",
                                        gap(0, from), gap(last, to), limit))
            }
            lat.reverse(); lon.reverse()
        }
        lat[0] = from.0; lon[0] = from.1; lat[last] = to.0; lon[last] = to.1
        // Moving the ends may have made a first or last step empty.
        if lat.count > 2, lat[1] == lat[0], lon[1] == lon[0] { lat.remove(at: 1); lon.remove(at: 1) }
        if lat.count > 2, lat[lat.count - 2] == lat[lat.count - 1], lon[lon.count - 2] == lon[lon.count - 1] { lat.remove(at: lat.count - 2); lon.remove(at: lon.count - 2) }
        return (lat, lon)
    }
}
