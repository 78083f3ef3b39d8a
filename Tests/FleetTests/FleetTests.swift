import Essentials
import Foundation
import Testing
@testable import ZoneImport
import Geodesy
import Projection
import TestSupport
import Zones
@testable import Favourites
@testable import Fleet

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let pickup = Coordinate(unchecked: 40.7580, -73.9855)

/// A fleet of cabs around Times Square, every type and status, published at once.
private func sampleFleet(count: Int = 300) throws -> (Fleet, [String: Coordinate]) {
    var config = Fleet.Configuration()
    config.publishInterval = 3600   // publish by hand, so tests see exactly what they set up
    let fleet = try Fleet(configuration: config, clock: ManualClock(t0))
    var positions: [String: Coordinate] = [:]
    for i in 0..<count {
        let id = "cab-\(i)"
        let type = [CabType.tataNano, .hatchback, .sedan][i % 3]
        try fleet.register(id: id, type: type, status: [CabStatus.available, .busy, .unattended][i % 4 == 3 ? 1 : (i % 5 == 4 ? 2 : 0)])
        let p = pickup.destination(bearing: Double(i * 37 % 360), distance: Double(i) * 7)
        try fleet.report(cab: id, position: p, at: t0)
        positions[id] = p
    }
    fleet.publish()
    return (fleet, positions)
}

@Suite struct FleetTests {
    @Test func nearestRespectsTypeStatusAndDistance() throws {
        let (fleet, positions) = try sampleFleet()
        let found = fleet.nearest(10, to: pickup, types: [.sedan], statuses: [.available], within: 1_000, now: t0)
        #expect(found.count == 10)
        #expect(found.allSatisfy { $0.cab.type == .sedan && $0.cab.status == .available && $0.distance <= 1_000 })
        // Brute force over the same cabs.
        let truth = positions.compactMap { id, p -> (String, Double)? in
            let cab = try? fleet.cab(id)
            guard cab?.type == .sedan, cab?.status == .available else { return nil }
            let d = pickup.distance(to: p)
            return d <= 1_000 ? (id, d) : nil
        }.sorted { $0.1 < $1.1 }
        #expect(found.map(\.cab.id) == Array(truth.prefix(10).map(\.0)))
        #expect(zip(found, truth).allSatisfy { abs($0.distance - $1.1) < 1e-6 })
    }

    @Test func staleCabsAreNotOffered() throws {
        let (fleet, _) = try sampleFleet(count: 30)
        #expect(!fleet.nearest(5, to: pickup, now: t0.addingTimeInterval(119)).isEmpty)
        #expect(fleet.nearest(5, to: pickup, now: t0.addingTimeInterval(121)).isEmpty)
        // A fresh report brings one back.
        (fleet.clock as? ManualClock)?.set(t0.addingTimeInterval(200))
        try fleet.report(cab: "cab-0", position: pickup, at: t0.addingTimeInterval(200))
        fleet.publish()
        #expect(fleet.nearest(5, to: pickup, now: t0.addingTimeInterval(250)).map(\.cab.id) == ["cab-0"])
    }

    @Test func radiusSearchIsSortedAndInclusive() throws {
        let (fleet, positions) = try sampleFleet()
        let found = fleet.cabs(within: 700, of: pickup, statuses: Set(CabStatus.allCases), now: t0)
        let truth = positions.values.filter { pickup.distance(to: $0) <= 700 }.count
        #expect(found.count == truth)
        #expect(zip(found, found.dropFirst()).allSatisfy { $0.distance <= $1.distance })
    }

    @Test func badInputIsTyped() throws {
        let (fleet, _) = try sampleFleet(count: 3)
        #expect(throws: FleetError.unknownCab("nope")) { try fleet.report(cab: "nope", position: pickup, at: t0) }
        #expect(throws: FleetError.self) { try fleet.report(cab: "cab-1", latitude: 91, longitude: 0, at: t0) }
        #expect(throws: FleetError.duplicateCab("cab-1")) { try fleet.register(id: "cab-1", type: .sedan) }
        #expect(throws: FleetError.unknownCabType("Limousine")) { try fleet.register(id: "x", type: CabType("Limousine")) }
        #expect(throws: FleetError.unknownCab("ghost")) { try fleet.setStatus(of: "ghost", to: .busy) }
        // An older report is ignored and counted, and the position stays.
        let before = try fleet.cab("cab-1").position
        #expect(try fleet.report(cab: "cab-1", position: pickup, at: t0.addingTimeInterval(-5)) == .ignoredOutOfOrder)
        #expect(fleet.outOfOrderReports == 1)
        #expect(try fleet.cab("cab-1").position == before)
        var many = Fleet.Configuration()
        many.cabTypes = (0..<17).map { CabType("t\($0)") }
        #expect(throws: FleetError.tooManyCabTypes(17)) { try Fleet(configuration: many) }
    }

    @Test func statusChangesAreSeenBySearches() throws {
        let (fleet, _) = try sampleFleet(count: 10)
        let nearest = try #require(fleet.nearest(1, to: pickup, now: t0).first)
        try fleet.setStatus(of: nearest.cab.id, to: .busy)
        fleet.publish()
        #expect(fleet.nearest(1, to: pickup, now: t0).first?.cab.id != nearest.cab.id)
        #expect(fleet.nearest(1, to: pickup, statuses: [.busy], now: t0).first?.cab.id == nearest.cab.id)
    }

    @Test func citiesConfigureTheirOwnTypes() throws {
        var config = Fleet.Configuration()
        config.cabTypes = [CabType("Tuk-tuk"), CabType("Minivan")]
        config.publishInterval = 0
        let fleet = try Fleet(configuration: config, clock: ManualClock(t0))
        try fleet.register(id: "t", type: CabType("Tuk-tuk"), status: .available)
        try fleet.register(id: "m", type: CabType("Minivan"), status: .available)
        try fleet.report(cab: "t", position: pickup, at: t0)
        try fleet.report(cab: "m", position: pickup.destination(bearing: 0, distance: 50), at: t0)
        #expect(fleet.nearest(5, to: pickup, types: [CabType("Minivan")], now: t0).map(\.cab.id) == ["m"])
    }

    /// Many reports, most across leaf cells (moves of up to 3 km), then the replicas checked
    /// in turn against a haversine brute force: what the reports wrote and what the publish
    /// replayed (each report's unit vector is computed once for both).
    @Test func reportedPositionsAreFoundInBothReplicas() throws {
        var config = Fleet.Configuration()
        config.publishInterval = 3600
        let fleet = try Fleet(configuration: config, clock: ManualClock(t0.addingTimeInterval(10)))
        var rng = SeededRandom(seed: 33)
        var positions: [Coordinate] = []
        for i in 0..<3_000 {
            let p = pickup.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0..<8_000, using: &rng))
            try fleet.register(id: "c\(i)", type: .sedan, status: .available)
            try fleet.report(cab: "c\(i)", position: p, at: t0)
            positions.append(p)
        }
        fleet.publish()
        for round in 1...4 {
            for i in 0..<3_000 where Bool.random(using: &rng) {
                let p = positions[i].destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0..<3_000, using: &rng))
                try fleet.report(cab: "c\(i)", position: p, at: t0.addingTimeInterval(Double(round)))
                positions[i] = p
            }
            // Half the cabs move each round, so from round 2 on the replica read holds some
            // positions from the last round's replay and some written directly.
            fleet.publish()
            for q in 0..<20 {
                let at = pickup.destination(bearing: Double(q * 47 % 360), distance: Double(q) * 300)
                let found = fleet.nearest(10, to: at, now: t0.addingTimeInterval(10))
                let truth = positions.indices.map { (id: "c\($0)", d: at.distance(to: positions[$0])) }
                    .sorted { $0.d < $1.d }.prefix(10)
                #expect(found.map(\.cab.id) == truth.map(\.id), "round \(round), query \(q)")
                #expect(zip(found, truth).allSatisfy { abs($0.distance - $1.d) < 1e-6 })
            }
        }
    }
}

@Suite(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
struct FleetZoneTests {
    @Test func cabsInsideANonRectangularZone() throws {
        let (zones, _) = try ZoneImporter.load(zonesAt: SharedData.path("monaco/wards.geojson"))
        var config = Fleet.Configuration()
        config.publishInterval = 0
        let fleet = try Fleet(configuration: config, clock: ManualClock(t0))
        var rng = SeededRandom(seed: 8)
        let box = zones.bounds
        var truth: [String: String] = [:]
        for i in 0..<2_000 {
            let p = Coordinate(unchecked: Double.random(in: box.south...box.north, using: &rng),
                               Double.random(in: box.west...box.east, using: &rng))
            try fleet.register(id: "c\(i)", type: .sedan, status: .available)
            try fleet.report(cab: "c\(i)", position: p, at: t0)
            truth["c\(i)"] = zones.zone(containing: p)?.name
        }
        for zone in zones.zones {
            let inside = fleet.cabs(in: zone, of: zones, now: t0).map(\.id)
            #expect(Set(inside) == Set(truth.filter { $0.value == zone.name }.keys), "\(zone.name)")
        }
    }
}

@Suite struct FleetConcurrencyTests {
    /// Writers stream reports while readers search (run under ThreadSanitizer by
    /// scripts/test.sh): no data race, and every answer is a consistent snapshot. Half the
    /// readers ask for the 10 nearest, half for every cab within 5 km (all 2,000), so that
    /// both kinds of search share a replica with each other and with the writers.
    @Test func readersAndWritersRunTogether() async throws {
        var config = Fleet.Configuration()
        config.publishInterval = 0.001
        let fleet = try Fleet(configuration: config, clock: ManualClock(t0.addingTimeInterval(20)))
        for i in 0..<2_000 {
            try fleet.register(id: "c\(i)", type: .hatchback, status: .available)
            try fleet.report(cab: "c\(i)", position: pickup.destination(bearing: Double(i % 360), distance: Double(i)), at: t0)
        }
        fleet.publish()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for w in 0..<2 {
                group.addTask {
                    for round in 1...20 {
                        for i in stride(from: w, to: 2_000, by: 2) {
                            let p = pickup.destination(bearing: Double((i + round * 13) % 360), distance: Double(i) + Double(round))
                            try fleet.report(cab: "c\(i)", position: p, at: t0.addingTimeInterval(Double(round)))
                        }
                    }
                    return 0
                }
            }
            for reader in 0..<6 {
                group.addTask {
                    var answers = 0
                    for _ in 0..<300 {
                        let found = reader.isMultiple(of: 2)
                            ? fleet.nearest(10, to: pickup, now: t0.addingTimeInterval(20))
                            : fleet.cabs(within: 5_000, of: pickup, now: t0.addingTimeInterval(20))
                        precondition(zip(found, found.dropFirst()).allSatisfy { $0.distance <= $1.distance })
                        answers += found.count
                    }
                    return answers
                }
            }
            var total = 0
            for try await n in group { total += n }
            #expect(total == 3 * 300 * 10 + 3 * 300 * 2_000)
        }
    }
}

