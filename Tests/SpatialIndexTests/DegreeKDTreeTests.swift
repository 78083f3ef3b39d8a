import Testing
import Workloads
import Geodesy
@testable import SpatialIndex

/// The planar baseline against a plain scan in the same planar degrees: it is only worth
/// comparing with if it answers its own question right.
@Suite struct DegreeKDTreeTests {
    func planar(_ p: Coordinate, _ q: Coordinate) -> Double {
        let dy = p.latitude - q.latitude, dx = p.longitude - q.longitude
        return dx * dx + dy * dy
    }

    @Test func nearestAndRadiusMatchAPlanarScan() {
        let centre = Coordinate(unchecked: 40.7, -73.95)
        for clustered in [false, true] {
            let pts = points(5_000, around: centre, spread: 0.2, clustered: clustered, seed: 61)
            let tree = DegreeKDTree(pts)
            var out: [Int] = []
            for q in points(200, around: centre, spread: 0.25, clustered: clustered, seed: 62) {
                let truth = pts.indices.map { planar(pts[$0], q) }.sorted()
                tree.nearest(10, to: q, into: &out)
                #expect(out.map { planar(pts[$0], q) } == Array(truth.prefix(10)))
                #expect(planar(pts[tree.nearest(to: q)], q) == truth[0])
                let r = 0.01
                tree.within(r, of: q, into: &out)
                #expect(Set(out) == Set(pts.indices.filter { planar(pts[$0], q) <= r * r }))
            }
        }
    }

    @Test func tinyAndEmptyInputs() {
        var out: [Int] = [1]
        DegreeKDTree([]).nearest(3, to: Coordinate(unchecked: 0, 0), into: &out)
        #expect(out.isEmpty)
        let one = DegreeKDTree([Coordinate(unchecked: 1, 2)])
        one.nearest(3, to: Coordinate(unchecked: 0, 0), into: &out)
        #expect(out == [0])
    }
}
