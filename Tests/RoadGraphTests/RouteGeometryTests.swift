import Testing
import Workloads
import Geodesy
@testable import RoadGraph

/// `RoadNetwork.geometry(from:runs:to:)` writes a route's points into a buffer sized from
/// its runs; these tests compare it with the plain appends it replaced, written here.
@Suite struct RouteGeometryTests {
    static let grid = SyntheticGrid(nodes: 2_000, seed: 5).network().0

    /// The oracle: each point appended unless it equals the one before.
    static func appended(_ g: RoadNetwork, from start: Coordinate, runs: [PointRun], to end: Coordinate) -> [Coordinate] {
        var line = [start]
        for run in runs {
            let ks = run.from <= run.to ? Array(run.from...run.to) : Array((run.to...run.from).reversed())
            for k in ks where line.last != g.pointCoordinate(k) { line.append(g.pointCoordinate(k)) }
        }
        if line.last != end { line.append(end) }
        return line
    }

    @Test func randomRunsMatchPlainAppends() {
        let g = Self.grid
        var rng = SeededRandom(seed: 3)
        let points = g.pointLatE7.count
        #expect(points > 1000)
        for _ in 0..<2_000 {
            var runs: [PointRun] = []
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                let a = Int.random(in: 0..<points, using: &rng)
                let b = min(points - 1, max(0, a + Int.random(in: -8...8, using: &rng)))
                runs.append(PointRun(from: a, to: b))
                // A run that starts where the last ended, as consecutive pieces do.
                if Bool.random(using: &rng) { runs.append(PointRun(from: b, to: min(points - 1, b + 3))) }
            }
            let start = g.pointCoordinate(runs.first?.from ?? 0)
            let end = Bool.random(using: &rng) ? g.pointCoordinate(runs.last?.to ?? 1) : Coordinate(unchecked: 1, 2)
            let line = g.geometry(from: start, runs: runs, to: end)
            #expect(line == Self.appended(g, from: start, runs: runs, to: end))
        }
    }

    @Test func aRouteWithoutRunsIsItsEnds() {
        let g = Self.grid, a = Coordinate(unchecked: 1, 2), b = Coordinate(unchecked: 1, 3)
        #expect(g.geometry(from: a, runs: [], to: b) == [a, b])
        #expect(g.geometry(from: a, runs: [], to: a) == [a])
        // Every point of the run equal to the start: only the start is kept.
        let p = g.pointCoordinate(7)
        #expect(g.geometry(from: p, runs: [PointRun(from: 7, to: 7), PointRun(from: 7, to: 7)], to: p) == [p])
    }
}
