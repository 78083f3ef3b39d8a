import Foundation
import Geodesy

/// The seeded NYC-like data of the fleet benchmarks: 70 % of points around 20 hot spots
/// (σ ≈ 1.5 km), 30 % uniform in the box lat 40.49…40.92, lon −74.26…−73.70; moves of at
/// most 250 m. Same seed, same data, on every machine.
public struct SyntheticCity: Sendable {
    /// The box the city's points fall in (New York's five boroughs), in degrees.
    public static let south = 40.49, north = 40.92, west = -74.26, east = -73.70
    let hubs: [Coordinate]

    /// A city whose hot spots depend only on `seed`.
    public init(seed: UInt64) {
        var g = SeededRandom(seed: seed ^ 0x5EED)
        hubs = (0..<20).map { _ in
            Coordinate(unchecked: Double.random(in: 40.60...40.85, using: &g), Double.random(in: -74.05 ... -73.80, using: &g))
        }
    }

    /// `count` points drawn the benchmark's way.
    public func points(_ count: Int, seed: UInt64) -> [Coordinate] {
        var g = SeededRandom(seed: seed)
        return (0..<count).map { _ in
            if Double.random(in: 0..<1, using: &g) < 0.7 {
                let hub = hubs[Int.random(in: 0..<hubs.count, using: &g)]
                let dx = g.gaussian() * 1_500, dy = g.gaussian() * 1_500
                let frame = LocalFrame(origin: hub)
                let c = frame.unproject(LocalPoint(x: dx, y: dy))
                return Coordinate(unchecked: min(Self.north, max(Self.south, c.latitude)),
                                  min(Self.east, max(Self.west, c.longitude)))
            }
            return Coordinate(unchecked: Double.random(in: Self.south...Self.north, using: &g),
                              Double.random(in: Self.west...Self.east, using: &g))
        }
    }

    /// A move of at most 250 m in a random direction for each point.
    public func moves(of points: [Coordinate], seed: UInt64) -> [Coordinate] {
        var g = SeededRandom(seed: seed)
        return points.map { p in
            p.destination(bearing: Double.random(in: 0..<360, using: &g), distance: Double.random(in: 0...250, using: &g))
        }
    }
}
