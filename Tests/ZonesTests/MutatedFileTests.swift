import Testing
import Foundation
import Geodesy
import TestSupport
@testable import Zones
@testable import ZoneImport

/// Structure-aware fuzzing of the zone file: each mutant changes fields of a real Monaco
/// zone file's payload (counts, adjacency ids, band parameters, vertices, cover cells) and
/// carries a valid checksum, so it reaches the loader's value checks. Every accepted mutant
/// then answers every query: it may answer wrongly (the file lies), but it must not trap,
/// loop or allocate without bound.
@Suite struct MutatedZoneFileTests {
    // A debug build checksums the 2 MB Monaco file in about 5 ms: 1,000 mutants keep the
    // test near ten seconds. The libFuzzer harness (Fuzz/) runs far more, optimised.
    static let mutants = 1_000

    @Test func mutatedZoneFilesAreRefusedOrAnswerEveryQuery() throws {
        let root = SharedData.projectRoot.appendingPathComponent("Data/monaco")
        let (set, _) = try ZoneImporter.load(zonesAt: root.appendingPathComponent("wards.geojson").path,
                                             serviceAreasAt: root.appendingPathComponent("communes.geojson").path)
        var mutator = PayloadMutator(ZoneFile.payload(set), seed: 16)
        // Points over the file's own box and beyond it, and the poles and antimeridian.
        var points: [Coordinate] = []
        var rng = SeededRandom(seed: 7)
        for _ in 0..<200 {
            points.append(Coordinate(unchecked: 43.70 + Double.random(in: 0..<1, using: &rng) * 0.08, 7.38 + Double.random(in: 0..<1, using: &rng) * 0.10))
        }
        points += [Coordinate(unchecked: 90, 180), Coordinate(unchecked: -90, -180), Coordinate(unchecked: 0, 0)]
        var accepted = 0, refused = 0
        for _ in 0..<Self.mutants {
            let (payload, _) = mutator.next()
            guard let z = try? ZoneFile.decode(ZoneFile.container.wrap(payload), path: "mutant.wfz") else {
                refused += 1; continue
            }
            accepted += 1
            exerciseEveryQuery(z, points)
        }
        // Both outcomes must be common: a loader that refuses everything, or a mutator whose
        // changes never reach the checks, would make this test unable to fail.
        #expect(accepted >= Self.mutants / 20, "accepted \(accepted), refused \(refused)")
        #expect(refused >= Self.mutants / 10, "accepted \(accepted), refused \(refused)")
        print("zone file mutants: \(accepted) accepted, \(refused) refused")
    }

    /// Found by the test above: a finite but huge band density (1e300 bands per degree)
    /// passed the checks, and the band of a point, `Int(1e299)`, trapped.
    @Test func aHugeBandDensityIsClampedNotTrapped() throws {
        let root = SharedData.projectRoot.appendingPathComponent("Data/monaco")
        let (set, _) = try ZoneImporter.load(zonesAt: root.appendingPathComponent("wards.geojson").path)
        var layer = set.zoneLayer
        for f in layer.bandInvHeight.indices { layer.bandInvHeight[f] = 1e300 }
        let crafted = ZoneSet(zones: set.zones, zoneLayer: layer, serviceAreas: set.serviceAreas, areaLayer: set.areaLayer,
                              adjacency: set.adjacency, zoneCover: set.zoneCover, areaCover: set.areaCover)
        let z = try ZoneFile.decode(ZoneFile.encode(crafted), path: "dense.wfz")
        let casino = try Coordinate(latitude: 43.7393, longitude: 7.4277)
        // Every point falls in the last band, which holds only some edges: the answer may be
        // wrong (the file lies) but it is an answer.
        for zone in z.zones { _ = z.covers(casino, zone: zone) }
    }

    private func exerciseEveryQuery(_ z: ZoneSet, _ points: [Coordinate]) {
        var sink = 0
        for p in points {
            if let zone = z.zone(containing: p) { sink &+= zone.index }
            sink &+= z.zoneIndex(longitude: p.longitude, latitude: p.latitude)
            if let area = try? z.serviceArea(containing: p) { sink &+= area.index }
            if z.isServed(p) { sink &+= 1 }
        }
        sink &+= z.zones(containing: points).count
        var out: [Int32] = []
        z.zoneIndices(longitudes: points.map(\.longitude), latitudes: points.map(\.latitude), into: &out)
        for zone in z.zones {
            sink &+= z.neighbours(of: zone).count
            sink &+= z.polygons(of: zone).count
            _ = z.bounds(of: zone)
            _ = try? z.zone(id: zone.id)
            if z.covers(points[0], zone: zone) { sink &+= 1 }
        }
        for area in z.serviceAreas { sink &+= z.polygons(ofServiceArea: area).count }
        _ = z.bounds
        #expect(sink != Int.min)
    }
}
