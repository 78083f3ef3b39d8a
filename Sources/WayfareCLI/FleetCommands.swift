import CSVFile
import ArgumentParser
import Foundation
import Workloads
import Geodesy
import SpatialIndex

struct FleetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet", abstract: "Fleet data tools.", subcommands: [FleetSample.self])
}

struct FleetSample: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample",
        abstract: "Write the seeded NYC-like benchmark data: cabs.csv (id,lat,lon), queries.csv (lat,lon), moves.csv (id,lat,lon).")
    @Option(help: "Number of cabs.") var cabs: Int = 100_000
    @Option(help: "Number of query points.") var queries: Int = 100_000
    @Option(help: "Random seed.") var seed: UInt64 = 42
    @Option(name: .customLong("out-dir"), help: "Folder for the three files.") var outDir: String

    func run() throws {
        guard (1...50_000_000).contains(cabs), (1...50_000_000).contains(queries) else {
            throw CLIError("--cabs and --queries must be between 1 and 50000000")
        }
        try createFolder(outDir)
        let city = SyntheticCity(seed: seed)
        let cabPoints = city.points(cabs, seed: seed &+ 1)
        let queryPoints = city.points(queries, seed: seed &+ 2)
        let moved = city.moves(of: cabPoints, seed: seed &+ 3)
        func table(_ header: String, _ rows: [Coordinate], ids: Bool) -> String {
            var s = header + "\n"
            s.reserveCapacity(rows.count * 32)
            for (i, p) in rows.enumerated() { s += ids ? "\(i),\(coordinateText(p))\n" : "\(coordinateText(p))\n" }
            return s
        }
        try writeOutput(table("id,lat,lon", cabPoints, ids: true), to: (outDir as NSString).appendingPathComponent("cabs.csv"))
        try writeOutput(table("lat,lon", queryPoints, ids: false), to: (outDir as NSString).appendingPathComponent("queries.csv"))
        try writeOutput(table("id,lat,lon", moved, ids: true), to: (outDir as NSString).appendingPathComponent("moves.csv"))
    }
}

/// Reads an `id,lat,lon` CSV; with `uniqueIds`, a repeated id is an error naming its line.
func readIdentifiedPoints(_ path: String, uniqueIds: Bool) throws(CLIError) -> (ids: [String], points: [Coordinate]) {
    let table = try CSVTable(reading: path, required: ["id", "lat", "lon"])
    let i = try table.index(of: "id"), la = try table.index(of: "lat"), lo = try table.index(of: "lon")
    var ids: [String] = [], points: [Coordinate] = []
    ids.reserveCapacity(table.rows.count); points.reserveCapacity(table.rows.count)
    var seen = Set<String>()
    for row in table.rows {
        let id = table.text(row, i)
        guard !id.isEmpty else { throw CLIError("\(path): line \(row.line): empty id") }
        let lat = try table.value(row, la), lon = try table.value(row, lo)
        do { points.append(try Coordinate(latitude: lat, longitude: lon)) } catch {
            throw CLIError("\(path): line \(row.line): \(error)")
        }
        ids.append(id)
        if uniqueIds, !seen.insert(id).inserted {
            throw CLIError("\(path): line \(row.line): duplicate id \"\(id)\"")
        }
    }
    return (ids, points)
}

struct BenchKNN: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "knn",
        abstract: "Bulk-load cabs into the R-tree, run k-nearest and radius queries, apply moves, query again; one JSON line.")
    @Option(help: "CSV id,lat,lon of the cabs.") var cabs: String
    @Option(help: "CSV lat,lon of the query points.") var queries: String
    @Option(help: "k for the k-nearest pass.") var k: Int = 10
    @Option(name: .customLong("radius-m"), help: "Radius in metres for the radius pass.") var radiusM: Double = 1_000
    @Option(help: "CSV id,lat,lon: one new position per cab, applied as position reports.") var moves: String?
    @Option(help: "Write the k nearest of every query (final fleet) as query,rank,id,distance_m.") var answers: String?
    @Option(help: "Timed repetitions of each query pass (the median is printed).") var repeats: Int = 3
    @Option(name: .customLong("brute-queries"), help: "Queries also answered by a brute-force scan, for the comparison.") var bruteQueries: Int = 200

    func run() throws {
        guard (1...10_000).contains(k) else { throw CLIError("--k must be between 1 and 10000") }
        guard radiusM.isFinite, radiusM >= 0 else { throw CLIError("--radius-m must be a finite number ≥ 0") }
        guard (1...100).contains(repeats) else { throw CLIError("--repeats must be between 1 and 100") }
        let (ids, cabPoints) = try readIdentifiedPoints(cabs, uniqueIds: true)
        let (queryPoints, _) = try readPoints(queries)
        guard !cabPoints.isEmpty else { throw CLIError("\(cabs): no cabs") }
        guard !queryPoints.isEmpty else { throw CLIError("\(queries): no queries") }
        var entryOf: [String: Int32] = [:]
        for (i, id) in ids.enumerated() { entryOf[id] = Int32(i) }
        var moveEntries: [EntryID] = [], movePoints: [Coordinate] = []
        if let moves {
            // A moves file may report one cab several times: applied in order.
            let (moveIds, points) = try readIdentifiedPoints(moves, uniqueIds: false)
            for (n, id) in moveIds.enumerated() {
                guard let e = entryOf[id] else { throw CLIError("\(moves): row \(n + 1): unknown cab id \"\(id)\"") }
                moveEntries.append(EntryID(rawValue: e)); movePoints.append(points[n])
            }
        }

        var tree = RTree<Int32>()
        let ones = [UInt32](repeating: 1, count: cabPoints.count), zeros = [Int64](repeating: 0, count: cabPoints.count)
        let payloads = (0..<Int32(cabPoints.count)).map { $0 }
        let buildTimes = (0..<repeats).map { _ in
            seconds { tree = try! RTree(coordinates: cabPoints, tags: ones, stamps: zeros, payloads: payloads) }  // equal lengths by construction
        }
        let workspace = SearchWorkspace(); var out: [Neighbour] = []
        func perQuery(_ body: (Coordinate) -> Void) -> Double {
            median((0..<repeats).map { _ in seconds { for q in queryPoints { body(q) } } }) / Double(queryPoints.count) * 1e9
        }
        // Queries read a `let` copy: a closure capturing the `var` would copy the tree (and
        // retain its arrays) on every call. The copy is scoped, so it is gone before the moves,
        // which would otherwise pay for a full copy-on-write of the tree.
        let (knn1, knnk, radius): (Double, Double, Double) = {
            let built = tree
            return (perQuery { built.nearest(1, to: $0, into: &out, using: workspace) },
                    perQuery { built.nearest(k, to: $0, into: &out, using: workspace) },
                    perQuery { built.within(radiusM, of: $0, into: &out, using: workspace) })
        }()
        // The same k-nearest by scanning every cab, on a prefix of the queries.
        let bruteCount = min(bruteQueries, queryPoints.count)
        let brute = bruteForceNanoseconds(cabPoints, Array(queryPoints.prefix(bruteCount)), k: k)
        // The planar baseline (a static k-d tree in raw degrees, as nanoflann is commonly
        // used) on the same queries in this process: ratios against it survive the noise.
        // Its radius is the same metres as degrees of latitude.
        let baseline = DegreeKDTree(cabPoints)
        var indices: [Int] = []
        let radiusDegrees = radiusM / (Earth.meanRadius * .pi / 180)
        let baseline1 = perQuery { baseline.nearest(1, to: $0, into: &indices) }
        let baselineK = perQuery { baseline.nearest(k, to: $0, into: &indices) }
        let baselineRadius = perQuery { baseline.within(radiusDegrees, of: $0, into: &indices) }

        var fields = [("cabs", "\(cabPoints.count)"), ("queries", "\(queryPoints.count)"),
                      ("build_ms", format(median(buildTimes) * 1e3)), ("knn1_ns", format(knn1)), ("knnk_ns", format(knnk)),
                      ("radius_ns", format(radius)), ("brute_knnk_ns", format(brute)),
                      ("baseline_knn1_ns", format(baseline1)), ("baseline_knnk_ns", format(baselineK)),
                      ("baseline_radius_ns", format(baselineRadius))]
        if !moveEntries.isEmpty {
            // Each repetition applies every move to a freshly loaded fleet (the load is not
            // timed), so the rate is a median like the other figures, not one 20 ms sample.
            // Fresh also for the first: the tree the queries read may still share its arrays,
            // and the first report would then time a copy of the whole tree (measured: 18 ms
            // for 100k moves instead of 12).
            let moveTimes = (0..<repeats).map { _ in
                tree = try! RTree(coordinates: cabPoints, tags: ones, stamps: zeros, payloads: payloads)  // equal lengths by construction
                return seconds { for (e, p) in zip(moveEntries, movePoints) { _ = try? tree.move(e, to: p, stamp: 1) } }
            }
            let moved = tree
            let after = perQuery { moved.nearest(k, to: $0, into: &out, using: workspace) }
            fields += [("updates_per_s", "\(Int(Double(moveEntries.count) / median(moveTimes)))"), ("knnk_ns_after_moves", format(after))]
        } else {
            fields += [("updates_per_s", "null"), ("knnk_ns_after_moves", "null")]
        }
        if let answers {
            var csv = "query,rank,id,distance_m\n"
            for (qi, q) in queryPoints.enumerated() {
                tree.nearest(k, to: q, into: &out, using: workspace)
                for (rank, n) in out.enumerated() {
                    csv += "\(qi),\(rank + 1),\(csvField(tree[n.entry].map { ids[Int($0)] } ?? "")),\(n.distance)\n"
                }
            }
            try writeOutput(csv, to: answers)
        }
        print("{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
    }

    func format(_ v: Double) -> String { String(format: "%.1f", v) }

    /// Nanoseconds per k-nearest query by a full scan (haversine on every cab).
    func bruteForceNanoseconds(_ cabs: [Coordinate], _ queries: [Coordinate], k: Int) -> Double {
        guard !queries.isEmpty else { return 0 }
        var sink = 0.0
        let t = seconds {
            var best: [Double] = []
            for q in queries {
                best.removeAll(keepingCapacity: true)
                for c in cabs {
                    let d = q.distance(to: c)
                    if best.count < k { best.append(d); if best.count == k { best.sort() } }
                    else if d < best[k - 1] {
                        var i = k - 1
                        while i > 0 && best[i - 1] > d { best[i] = best[i - 1]; i -= 1 }
                        best[i] = d
                    }
                }
                sink += best.first ?? 0
            }
        }
        precondition(sink >= 0)
        return t / Double(queries.count) * 1e9
    }
}
