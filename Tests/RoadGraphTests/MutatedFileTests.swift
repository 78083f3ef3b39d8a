import Testing
import Foundation
import Geodesy
import TestSupport
@testable import RoadGraph

/// Structure-aware fuzzing of the graph file: each mutant changes fields of the Monaco
/// graph's payload (counts, offsets, heads, costs, shortcut ids, coordinates) and carries a
/// valid checksum. Every accepted mutant then answers every routing query: all three
/// algorithms, both metrics, geometry and streets, snapping and ETAs. It may answer wrongly
/// (the file lies) but must not trap, loop or allocate without bound.
@Suite struct MutatedGraphFileTests {
    static let mutants = 800

    @Test func mutatedGraphFilesAreRefusedOrAnswerEveryQuery() throws {
        let path = SharedData.projectRoot.appendingPathComponent("Data/monaco/monaco.osm.pbf").path
        let (g, _) = try RoadNetwork.importOSM(path: path)
        var mutator = PayloadMutator(GraphFile.payload(g), seed: 16)
        let places = [(43.7393, 7.4277), (43.7314, 7.4197), (43.7250, 7.4150), (43.7480, 7.4370), (43.7280, 7.4140)]
            .map { Coordinate(unchecked: $0.0, $0.1) }
        var accepted = 0, refused = 0, answered = 0
        for _ in 0..<Self.mutants {
            let (payload, _) = mutator.next()
            guard let m = try? GraphFile.decode(GraphFile.container.wrap(payload), path: "mutant.wfg") else {
                refused += 1; continue
            }
            accepted += 1
            answered += exerciseEveryQuery(m, places)
        }
        #expect(accepted >= Self.mutants / 10, "accepted \(accepted), refused \(refused)")
        #expect(refused >= Self.mutants / 10, "accepted \(accepted), refused \(refused)")
        // Most accepted mutants change a cost or a coordinate somewhere: they still route.
        #expect(answered > 0)
        print("graph file mutants: \(accepted) accepted, \(refused) refused; \(answered) routes answered")
    }

    private func exerciseEveryQuery(_ g: RoadNetwork, _ places: [Coordinate]) -> Int {
        let router = Router(network: g)
        var answered = 0
        for (a, b) in zip(places, places.dropFirst()) {
            for metric in Metric.allCases {
                for algorithm in RoutingAlgorithm.allCases {
                    if let r = try? router.route(from: a, to: b, metric: metric, algorithm: algorithm) {
                        answered += 1
                        #expect(r.geometry.count >= 1)
                        _ = r.streets
                    }
                }
            }
        }
        _ = try? router.etas(to: places[0], from: places)
        _ = try? router.snap(places[1], within: 50)
        for v in stride(from: 0, to: g.nodeCount, by: max(1, g.nodeCount / 50)) { _ = g.coordinate(ofNode: v) }
        _ = g.memoryBytes
        return answered
    }
}
