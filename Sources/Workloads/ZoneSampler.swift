import Geodesy
import Zones

/// Seeded random points over a zone set, for tests and benchmarks.
public enum ZoneSampler {
    /// `count` points: `insideShare` of them drawn until they fall in a zone, the rest
    /// uniform over the zones' bounding box (inside or not).
    public static func points(in set: ZoneSet, count: Int, insideShare: Double, seed: UInt64) -> [Coordinate] {
        var rng = SeededRandom(seed: seed)
        let box = set.bounds
        var out: [Coordinate] = []
        out.reserveCapacity(count)
        let insideCount = Int((Double(count) * insideShare).rounded())
        func draw() -> Coordinate {
            Coordinate(unchecked: Double.random(in: box.south...box.north, using: &rng),
                       Double.random(in: box.west...box.east, using: &rng))
        }
        var attempts = 0
        while out.count < insideCount && attempts < insideCount * 1000 + 1000 {
            attempts += 1
            let p = draw()
            if set.zone(containing: p) != nil { out.append(p) }
        }
        while out.count < count { out.append(draw()) }
        // Interleave inside and uniform points so no run of the input is all one kind.
        out.shuffle(using: &rng)
        return out
    }
}
