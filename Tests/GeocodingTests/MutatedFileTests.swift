import Testing
import Foundation
import Geodesy
import TestSupport
@testable import Geocoding

/// Structure-aware fuzzing of the geocoder table: each mutant changes fields of the Monaco
/// table's payload (labels, coordinates, postings, typo index, tree nodes, street grid) and
/// carries a valid checksum. Every accepted mutant then answers forward and reverse
/// geocoding, with and without a focus; it may answer wrongly but must not trap.
@Suite struct MutatedGeocoderFileTests {
    static let mutants = 500

    @Test func mutatedGeocoderTablesAreRefusedOrAnswerEveryQuery() throws {
        let t = try #require(GeocoderAPIEdgeTests.monaco)
        var mutator = PayloadMutator(GeocoderFile.payload(t), seed: 16)
        let queries = ["Boulevard des Moulins", "12 bd des moulins", "Casino", "avenue princesse grace 98000",
                       "Monaco", "boulvard", "7 rue", ""]
        let points = [(43.7393, 7.4277), (43.7314, 7.4197), (43.7405, 7.4255), (10, 10)].map { Coordinate(unchecked: $0.0, $0.1) }
        var accepted = 0, refused = 0, answered = 0
        for _ in 0..<Self.mutants {
            let (payload, _) = mutator.next()
            guard let m = try? GeocoderFile.decode(GeocoderFile.container.wrap(payload), path: "mutant.wfgc") else {
                refused += 1; continue
            }
            accepted += 1
            for q in queries {
                if let found = try? m.geocode(q), !found.isEmpty { answered += 1 }
                _ = try? m.geocode(q, near: points[0], limit: 20)
            }
            for p in points { _ = m.reverse(p) }
            _ = m.cityCoordinates
        }
        #expect(accepted >= Self.mutants / 10, "accepted \(accepted), refused \(refused)")
        #expect(refused >= Self.mutants / 10, "accepted \(accepted), refused \(refused)")
        #expect(answered > 0)
        print("geocoder table mutants: \(accepted) accepted, \(refused) refused; \(answered) searches answered")
    }
}
