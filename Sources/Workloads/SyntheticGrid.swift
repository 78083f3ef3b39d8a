import Foundation
import Geodesy
import GeoJSON
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

    /// Square zones tiling the points' bounding box (grown by 100 m), row by row from the
    /// south-west, named by row and column.
    public func squareZonesGeoJSON(sideKm: Double) -> String {
        let points = coordinates
        let south = points.map(\.latitude).min()!, north = points.map(\.latitude).max()!
        let west = points.map(\.longitude).min()!, east = points.map(\.longitude).max()!
        let margin = 100 / 111_195.0, mid = (south + north) / 2
        let dLat = sideKm * 1000 / 111_195.0, dLon = sideKm * 1000 / (111_195.0 * cos(mid * .pi / 180))
        let (s, w) = (south - margin, west - margin / cos(mid * .pi / 180))
        let rows = max(1, Int(((north + margin - s) / dLat).rounded(.up))), cols = max(1, Int(((east + margin / cos(mid * .pi / 180) - w) / dLon).rounded(.up)))
        func degrees(_ v: Double) -> JSONValue { .number(Coordinate.sevenDecimals(v)) }
        var features: [JSONValue] = []
        for r in 0..<rows {
            for c in 0..<cols {
                let y0 = s + Double(r) * dLat, y1 = s + Double(r + 1) * dLat, x0 = w + Double(c) * dLon, x1 = w + Double(c + 1) * dLon
                let ring: [JSONValue] = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)].map { .array([degrees($0.0), degrees($0.1)]) }
                features.append(.object([("type", .string("Feature")),
                                         ("properties", .object([("id", .string("r\(r)c\(c)")), ("name", .string("Row \(r + 1), column \(c + 1)"))])),
                                         ("geometry", .object([("type", .string("Polygon")), ("coordinates", .array([.array(ring)]))]))]))
            }
        }
        return JSONValue.object([("type", .string("FeatureCollection")), ("features", .array(features))]).serialized + "\n"
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
