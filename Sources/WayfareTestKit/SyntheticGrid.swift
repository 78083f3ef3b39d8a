import Foundation
import Geodesy
import RoadGraph

/// A seeded synthetic city laid out as a jittered grid, for measuring how routing scales
/// with graph size: 120 m blocks, 30 km/h streets (a tenth of them one-way), 50 km/h
/// avenues every tenth row and column, 90 km/h expressways every hundredth, and 3 % of
/// street links missing.
public struct SyntheticGrid: Sendable {
    /// One directed edge.
    public struct Edge: Sendable { public var from, to: Int; public var lengthMetres, timeSeconds: Double }
    /// The nodes' positions.
    public private(set) var coordinates: [Coordinate] = []
    /// The directed edges.
    public private(set) var edges: [Edge] = []

    /// A grid of about `nodes` nodes, perturbed by `seed`.
    public init(nodes: Int, seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let side = max(2, Int(Double(nodes).squareRoot().rounded()))
        let dLat = 120 / 111_195.0, dLon = 120 / (111_195.0 * cos(52.0 * .pi / 180))
        coordinates.reserveCapacity(side * side)
        for r in 0..<side {
            for c in 0..<side {
                coordinates.append(Coordinate(unchecked: 52.0 + (Double(r) + Double.random(in: -0.15...0.15, using: &rng)) * dLat,
                                              4.5 + (Double(c) + Double.random(in: -0.15...0.15, using: &rng)) * dLon))
            }
        }
        edges.reserveCapacity(side * side * 4)
        for r in 0..<side {
            for c in 0..<side {
                let v = r * side + c
                for (dr, dc) in [(0, 1), (1, 0)] where r + dr < side && c + dc < side {
                    let w = (r + dr) * side + c + dc
                    let line = dr == 0 ? r : c
                    let speed = line % 100 == 0 ? 90.0 : line % 10 == 0 ? 50.0 : 30.0
                    if speed == 30, Double.random(in: 0..<1, using: &rng) < 0.03 { continue }
                    let length = coordinates[v].distance(to: coordinates[w]) * Double.random(in: 1.0...1.1, using: &rng)
                    let time = length / (speed / 3.6)
                    let oneWay = speed == 30 && Double.random(in: 0..<1, using: &rng) < 0.1
                    let forward = !oneWay || Bool.random(using: &rng)
                    if forward || !oneWay { edges.append(Edge(from: v, to: w, lengthMetres: length, timeSeconds: time)) }
                    if !forward || !oneWay { edges.append(Edge(from: w, to: v, lengthMetres: length, timeSeconds: time)) }
                }
            }
        }
    }

    /// The grid as a routable network (largest strongly connected part, contracted).
    public func network() -> (RoadNetwork, BuildReport) {
        RoadNetwork.build(nodes: coordinates, edges: edges.map { ($0.from, $0.to, $0.lengthMetres, $0.timeSeconds) })
    }
}

extension RoadNetwork {
    /// Seeded random origin–destination pairs: points on random road segments, moved up to
    /// 15 m off the road in a random direction, so routes start and end mid-edge.
    public func randomPairs(_ count: Int, seed: UInt64) -> [(Coordinate, Coordinate)] {
        var rng = SeededRandom(seed: seed)
        func point() -> Coordinate {
            let p = Int.random(in: 0..<pieceCount, using: &rng)
            let k = Int.random(in: Int(pieceStart[p])..<(Int(pieceStart[p + 1]) - 1), using: &rng)
            let a = pointCoordinate(k), b = pointCoordinate(k + 1), t = Double.random(in: 0...1, using: &rng)
            let on = Coordinate(unchecked: a.latitude + t * (b.latitude - a.latitude), a.longitude + t * (b.longitude - a.longitude))
            return on.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0...15, using: &rng))
        }
        return (0..<count).map { _ in (point(), point()) }
    }
}
