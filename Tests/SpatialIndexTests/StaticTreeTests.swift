import Foundation
import Testing
import Geodesy
import TestSupport
@testable import SpatialIndex

/// The static trees (reverse geocoding's points and streets) against brute force.
@Suite struct PointTreeTests {
    @Test(arguments: RTreeAgainstBruteForceTests.cities, [false, true])
    func nearestMatchesBruteForce(city: (String, Coordinate, Double), clustered: Bool) {
        let pts = points(3_000, around: city.1, spread: city.2, clustered: clustered, seed: 23)
        let tree = PointTree(pts)
        for q in points(150, around: city.1, spread: city.2 * 1.5, clustered: false, seed: 5) {
            let truth = bruteForce(pts, from: q)[0]
            let got = tree.nearest(to: q)
            #expect(got?.index == truth.id || abs(q.distance(to: pts[got!.index]) - truth.d) < 1e-6, "\(city.0) \(q)")
            #expect(abs((got?.metres ?? -1) - truth.d) < 1e-6)
            // A limit just under the answer finds nothing; at the answer, the answer.
            #expect(tree.nearest(to: q, within: truth.d * 0.999_999 - 1e-6) == nil)
            #expect(tree.nearest(to: q, within: truth.d + 1e-6)?.index == got?.index)
        }
    }

    @Test func worldWideGazetteerLikePointsMatchBruteForce() {
        var rng = SeededRandom(seed: 8)
        let pts = (0..<20_000).map { _ in Coordinate(unchecked: asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi,
                                                     Double.random(in: -180...180, using: &rng)) }
        let tree = PointTree(pts)
        for _ in 0..<300 {
            let q = Coordinate(unchecked: Double.random(in: -90...90, using: &rng), Double.random(in: -180...180, using: &rng))
            let truth = bruteForce(pts, from: q)[0]
            #expect(abs(tree.nearest(to: q)!.metres - truth.d) < 1e-6)
        }
    }

    @Test func duplicatesTieToTheSmallestIndexAndEmptyAnswersNothing() {
        let p = Coordinate(unchecked: 43.73, 7.42)
        let pts = [Coordinate(unchecked: 43.74, 7.42)] + Array(repeating: p, count: 40) + [Coordinate(unchecked: 43.72, 7.41)]
        #expect(PointTree(pts).nearest(to: p)?.index == 1)
        #expect(PointTree([]).nearest(to: p) == nil)
        #expect(PointTree([p]).nearest(to: Coordinate(unchecked: -43.73, -172.58))?.index == 0)
    }
}

@Suite struct SegmentTreeTests {
    /// Random polylines around a city, as the CSR arrays the tree takes.
    static func lines(around c: Coordinate, count: Int, seed: UInt64) -> (lat: [Int32], lon: [Int32], start: [UInt32]) {
        var rng = SeededRandom(seed: seed)
        var lat: [Int32] = [], lon: [Int32] = [], start: [UInt32] = [0]
        for _ in 0..<count {
            var p = c.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0..<3_000, using: &rng))
            for _ in 0..<Int.random(in: 2...6, using: &rng) {
                lat.append(Int32((p.latitude * 1e7).rounded())); lon.append(Int32((p.longitude * 1e7).rounded()))
                p = p.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 5...200, using: &rng))
            }
            start.append(UInt32(lat.count))
        }
        return (lat, lon, start)
    }

    @Test(arguments: [Coordinate(unchecked: 43.73, 7.42), Coordinate(unchecked: 60.17, 24.94), Coordinate(unchecked: 78.22, 15.65)])
    func nearestSegmentMatchesBruteForce(center: Coordinate) {
        let (lat, lon, start) = Self.lines(around: center, count: 800, seed: 3)
        let tree = SegmentTree(latE7: lat, lonE7: lon, lineStart: start)
        let cosφ = { (q: Coordinate) in cos(q.latitude * .pi / 180) }
        for q in points(400, around: center, spread: 0.06, clustered: false, seed: 11) {
            let truth = (0..<tree.segmentPoint.count).map { tree.project(q, onSegment: $0, cosφ: cosφ(q)).metres }.min()!
            let got = tree.nearest(to: q, within: 1_000)
            if truth > 1_000 { #expect(got == nil); continue }
            #expect(got != nil)
            #expect(got!.metres == truth, "\(q): \(got!.metres) vs \(truth)")
            #expect(tree.project(q, onSegment: got!.segment, cosφ: cosφ(q)) == (got!.fraction, truth))
        }
    }

    /// Against an oracle that shares nothing with the tree: the haversine distance to each
    /// segment, minimised by golden-section search, written in the test kit. The tree's
    /// local planar metric differs from the sphere by well under 0.2 % over a few km.
    @Test(arguments: [Coordinate(unchecked: 43.73, 7.42), Coordinate(unchecked: 60.17, 24.94), Coordinate(unchecked: 78.22, 15.65)])
    func nearestSegmentDistanceMatchesAnIndependentFormula(center: Coordinate) {
        let (lat, lon, start) = Self.lines(around: center, count: 300, seed: 5)
        let tree = SegmentTree(latE7: lat, lonE7: lon, lineStart: start)
        var segments: [((lat: Double, lon: Double), (lat: Double, lon: Double))] = []
        for l in 0..<(start.count - 1) {
            for k in Int(start[l])..<(Int(start[l + 1]) - 1) {
                segments.append(((Double(lat[k]) * 1e-7, Double(lon[k]) * 1e-7), (Double(lat[k + 1]) * 1e-7, Double(lon[k + 1]) * 1e-7)))
            }
        }
        for q in points(60, around: center, spread: 0.04, clustered: false, seed: 12) {
            var best = Double.infinity
            for (a, b) in segments {
                // Skip a segment whose triangle-inequality bound already loses.
                let da = IndependentGeodesy.haversineMetres(q.latitude, q.longitude, a.lat, a.lon)
                let db = IndependentGeodesy.haversineMetres(q.latitude, q.longitude, b.lat, b.lon)
                let length = IndependentGeodesy.haversineMetres(a.lat, a.lon, b.lat, b.lon)
                guard (da + db - length) / 2 < best else { continue }
                best = min(best, IndependentGeodesy.metresToSegment(q.latitude, q.longitude, from: a, to: b))
            }
            guard let got = tree.nearest(to: q, within: 10_000) else { Issue.record("\(q): nothing found"); continue }
            #expect(abs(got.metres - best) <= 0.002 * best + 0.01, "\(q): tree \(got.metres) m, oracle \(best) m")
        }
    }

    /// The matcher's query, every segment within the nearest's squared distance plus a
    /// slack (and within a limit), against brute force over every segment: the same set,
    /// up to segments within a micrometre of the bound.
    @Test(arguments: [Coordinate(unchecked: 43.73, 7.42), Coordinate(unchecked: 78.22, 15.65)])
    func segmentsWithinTheNearestPlusASlackMatchBruteForce(center: Coordinate) {
        let (lat, lon, start) = Self.lines(around: center, count: 800, seed: 4)
        let tree = SegmentTree(latE7: lat, lonE7: lon, lineStart: start)
        var compared = 0
        for q in points(300, around: center, spread: 0.05, clustered: false, seed: 13) {
            let all = (0..<tree.segmentPoint.count).map { tree.project(q, onSegment: $0, cosφ: cos(q.latitude * .pi / 180)).metres }
            for (limit, slack2) in [(60.0, 250.0), (200, 2250), (1000, 0)] {
                var hits: [SegmentHit] = []
                tree.segments(within: limit, slack2: slack2, of: q, into: &hits)
                guard let nearest = all.min(), nearest <= limit else { #expect(hits.isEmpty); continue }
                let bound = min(limit, (nearest * nearest + slack2).squareRoot())
                let truth = Set(all.indices.filter { all[$0] <= bound - 1e-6 })
                let got = Set(hits.map(\.segment))
                #expect(truth.isSubset(of: got), "\(q) \(limit) \(slack2): missing \(truth.subtracting(got))")
                #expect(got.allSatisfy { all[$0] <= bound + 1e-6 }, "\(q) \(limit) \(slack2): too far")
                #expect(hits.allSatisfy { abs($0.metres - all[$0.segment]) < 1e-9 })
                compared += 1
            }
        }
        #expect(compared > 300)
    }

    @Test func emptyAndFarAnswerNothing() {
        #expect(SegmentTree().nearest(to: Coordinate(unchecked: 0, 0), within: 1_000) == nil)
        let (lat, lon, start) = Self.lines(around: Coordinate(unchecked: 43.73, 7.42), count: 50, seed: 1)
        let tree = SegmentTree(latE7: lat, lonE7: lon, lineStart: start)
        #expect(tree.nearest(to: Coordinate(unchecked: 48.85, 2.35), within: 1_000) == nil)
    }
}

extension PointTree {
    /// The first inner node whose sides are not split by its middle point, if any.
    func splitViolation(_ lo: Int = 0, _ hi: Int? = nil, node: Int = 1) -> String? {
        let hi = hi ?? count
        guard hi - lo > Self.leafSize else { return nil }
        let mid = (lo + hi) / 2, a = Int(axes[node]), s = xyz[3 * mid + a]
        for i in lo..<mid where xyz[3 * i + a] > s { return "node \(node) left \(i) above split" }
        for i in (mid + 1)..<hi where xyz[3 * i + a] < s { return "node \(node) right \(i) below split" }
        return splitViolation(lo, mid, node: 2 * node) ?? splitViolation(mid + 1, hi, node: 2 * node + 1)
    }
}

@Test func pointTreeSplitsHold() {
    let pts = points(1_000, around: Coordinate(unchecked: 43.7, 7.4), spread: 0.5, clustered: false, seed: 1)
    #expect(PointTree(pts).splitViolation() == nil)
}
