import Geodesy

/// A run of a route's points: the network's points `from` through `to`, in that order,
/// which may run backwards (`to < from`) where the route drives a piece against its
/// drawing direction.
package struct PointRun {
    package var from: Int, to: Int
    package init(from: Int, to: Int) { self.from = from; self.to = to }
    /// How many points the run holds.
    var count: Int { (to >= from ? to - from : from - to) + 1 }
}

extension RoadNetwork {
    /// A route's line: `start`, the points of each of `runs` in turn, then `end`, leaving out
    /// any point equal to the one before it.
    ///
    /// Why a buffer written in place: a route's assembly spent most of its instructions
    /// appending points (about 290 a Monaco route), and each `append` checks that the
    /// array is uniquely held and has room. The runs give the count's upper bound, so the
    /// array is allocated once at that size and each point is a store; the one check left
    /// is against that bound. `RouteGeometryTests` compares it with plain appends.
    package func geometry(from start: Coordinate, runs: [PointRun], to end: Coordinate) -> [Coordinate] {
        var bound = 2
        for run in runs { bound += run.count }
        return [Coordinate](unsafeUninitializedCapacity: bound) { buffer, count in
            // The first and last writes cannot pass the bound (it counts both ends); each
            // point between is checked against it.
            buffer.initializeElement(at: 0, to: start)
            var n = 1, last = start
            for run in runs {
                let step = run.from <= run.to ? 1 : -1
                var k = run.from
                while true {
                    let c = pointCoordinate(k)
                    if c != last {
                        precondition(n < bound - 1, "a route's geometry outgrew the bound of its runs")
                        buffer.initializeElement(at: n, to: c)
                        n += 1
                        last = c
                    }
                    if k == run.to { break }
                    k += step
                }
            }
            if end != last { buffer.initializeElement(at: n, to: end); n += 1 }
            count = n
        }
    }
}
