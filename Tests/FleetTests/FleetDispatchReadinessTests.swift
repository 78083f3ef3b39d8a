import Essentials
import Foundation
import Testing
import Geodesy
import SpatialIndex
import TestSupport
@testable import Fleet

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let pickup = Coordinate(unchecked: 43.7393, 7.4277)

/// What dispatch needs of a fleet, each with the clock in the test's hands: no stale reads
/// after a quiet spell, no report from the future, staleness to the millisecond, a city's
/// fleet registered at once, cabs removed, handles.
@Suite struct FleetDispatchReadinessTests {
    func fleet(_ clock: ManualClock, interval: TimeInterval = 0.05) throws -> Fleet {
        var config = Fleet.Configuration()
        config.publishInterval = interval
        return try Fleet(configuration: config, clock: clock)
    }

    @Test func aQueryNeverSeesDataOlderThanThePublishInterval() throws {
        let clock = ManualClock(t0)
        let fleet = try fleet(clock)
        try fleet.register(id: "a", type: .sedan, status: .available)
        try fleet.report(cab: "a", position: pickup, at: t0)
        clock.advance(by: 0.05)
        #expect(fleet.nearest(1, to: pickup).map(\.cab.id) == ["a"])   // the query publishes
        // The last write of a burst: the cab turns busy, then the city goes quiet.
        clock.advance(by: 0.01)
        try fleet.setStatus(of: "a", to: .busy)
        // Within the interval the query may still see it available (the data is 10 ms old)…
        #expect(fleet.nearest(1, to: pickup).count <= 1)
        // …but once the interval has passed, with no further write, it must not.
        clock.advance(by: 0.05)
        #expect(fleet.nearest(1, to: pickup).isEmpty, "a busy cab offered after a quiet spell")
        #expect(fleet.publishedAt == clock.now())
    }

    @Test func overRandomEventsNoQueryIsOlderThanTheInterval() throws {
        // Reports and clock steps at random; each query's answer must reflect every report
        // made at least one interval before it.
        let clock = ManualClock(t0)
        let fleet = try fleet(clock, interval: 0.05)
        var rng = SeededRandom(seed: 17)
        var truth: [String: (Coordinate, Date)] = [:]
        for i in 0..<20 { try fleet.register(id: "c\(i)", type: .sedan, status: .available) }
        for _ in 0..<3_000 {
            if Double.random(in: 0..<1, using: &rng) < 0.6 {
                let id = "c\(Int.random(in: 0..<20, using: &rng))"
                let p = pickup.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0..<3_000, using: &rng))
                try fleet.report(cab: id, position: p, at: clock.now())
                truth[id] = (p, clock.now())
            } else {
                clock.advance(by: Double.random(in: 0..<0.04, using: &rng))
                let now = clock.now()
                let seen = Dictionary(uniqueKeysWithValues: fleet.nearest(20, to: pickup).map { ($0.cab.id, $0.cab.position!) })
                for (id, (p, at)) in truth where now.timeIntervalSince(at) >= 0.05 {
                    #expect(seen[id] == p, "cab \(id) reported \(now.timeIntervalSince(at)) s ago is not seen")
                }
            }
        }
    }

    @Test func aReportFromTheFutureIsRefusedAndDoesNotFreezeTheCab() throws {
        let clock = ManualClock(t0)
        let fleet = try fleet(clock)
        try fleet.register(id: "a", type: .sedan, status: .available)
        #expect(throws: FleetError.reportFromTheFuture(cab: "a", reported: t0.addingTimeInterval(31), now: t0)) {
            try fleet.report(cab: "a", position: pickup, at: t0.addingTimeInterval(31))
        }
        // Within the allowed skew it is accepted; a later real report still applies.
        #expect(try fleet.report(cab: "a", position: pickup, at: t0.addingTimeInterval(29)) == .applied)
        clock.advance(by: 40)
        let moved = pickup.destination(bearing: 90, distance: 100)
        #expect(try fleet.report(cab: "a", position: moved, at: clock.now()) == .applied)
        #expect(try fleet.cab("a").position == moved)
    }

    @Test func stalenessIsComparedAtFullPrecision() throws {
        let clock = ManualClock(t0)
        let fleet = try fleet(clock, interval: 0)
        try fleet.register(id: "a", type: .sedan, status: .available)
        try fleet.report(cab: "a", position: pickup, at: t0.addingTimeInterval(0.9))
        // 119.6 s after the report: fresh (whole-second stamps used to drop it here).
        #expect(fleet.nearest(1, to: pickup, now: t0.addingTimeInterval(120.5)).map(\.cab.id) == ["a"])
        #expect(fleet.cabs(within: 10, of: pickup, now: t0.addingTimeInterval(120.5)).count == 1)
        var handles: [NearbyCab] = []
        fleet.nearest(1, to: pickup, now: t0.addingTimeInterval(120.5), using: FleetWorkspace(), into: &handles)
        #expect(try handles.map { try fleet.cab($0.handle).id } == ["a"])
        // 120.05 s after: stale.
        #expect(fleet.nearest(1, to: pickup, now: t0.addingTimeInterval(120.95)).isEmpty)
        fleet.nearest(1, to: pickup, now: t0.addingTimeInterval(120.95), using: FleetWorkspace(), into: &handles)
        #expect(handles.isEmpty)
        #expect(fleet.cabs(within: 10, of: pickup, now: t0.addingTimeInterval(120.95)).isEmpty)
    }

    @Test func aCabReportedAtTheCutoffIsFreshAndOneTickEarlierIsNot() throws {
        let clock = ManualClock(t0)
        let fleet = try fleet(clock, interval: 0)
        try fleet.register(id: "a", type: .sedan, status: .available)
        let reported = t0.addingTimeInterval(0.3)
        try fleet.report(cab: "a", position: pickup, at: reported)
        let atCutoff = reported.addingTimeInterval(fleet.configuration.staleAfter)
        #expect(fleet.nearest(1, to: pickup, now: atCutoff).count == 1)
        // The next representable time after the cutoff: the report is older than allowed.
        let later = Date(timeIntervalSinceReferenceDate: atCutoff.timeIntervalSinceReferenceDate.nextUp)
        #expect(fleet.nearest(1, to: pickup, now: later).isEmpty)
        #expect(fleet.cabs(within: 10, of: pickup, now: later).isEmpty)
    }

    @Test func stampsAreInTheOrderOfTheirTimes() {
        // The oracle is the comparison of the times themselves, over the edges of the Double
        // line (signs, zeros, subnormals, infinities) and seeded ordinary times.
        var times: [Double] = [-.infinity, -.greatestFiniteMagnitude, -1e9, -1, -.leastNormalMagnitude,
                               -.leastNonzeroMagnitude, -0.0, 0, .leastNonzeroMagnitude, .leastNormalMagnitude,
                               1, 1.0.nextUp, 8e8, 8e8.nextUp, .greatestFiniteMagnitude, .infinity]
        var rng = SeededRandom(seed: 11)
        for _ in 0..<2_000 { times.append(Double.random(in: -2e9...2e9, using: &rng)) }
        for _ in 0..<200 { times.append(Double.random(in: -1e-300...1e-300, using: &rng)) }
        let stamps = times.map { Fleet.stamp(Date(timeIntervalSinceReferenceDate: $0)) }
        for i in times.indices {
            for j in times.indices where (times[i] >= times[j]) != (stamps[i] >= stamps[j]) {
                Issue.record("time \(times[i]) >= \(times[j]) is \(times[i] >= times[j]), stamps say otherwise")
            }
        }
        #expect(Fleet.stamp(Date(timeIntervalSinceReferenceDate: .nan)) == .min)
    }

    @Test func aNearestSearchSkipsAlmostStaleCabsAndStillReturnsK() throws {
        // Ten cabs nearest the pickup are 120.4 s old (within a second of fresh, which
        // whole-second stamps once let through); twenty farther ones are fresh: k=5 must be
        // 5 fresh cabs.
        let clock = ManualClock(t0.addingTimeInterval(200))
        let fleet = try fleet(clock, interval: 0)
        for i in 0..<30 {
            try fleet.register(id: "c\(i)", type: .sedan, status: .available)
            try fleet.report(cab: "c\(i)", position: pickup.destination(bearing: 0, distance: Double(10 + i * 10)),
                             at: i < 10 ? t0.addingTimeInterval(79.6) : t0.addingTimeInterval(150))
        }
        let found = fleet.nearest(5, to: pickup, now: t0.addingTimeInterval(200))
        #expect(found.map(\.cab.id) == (10..<15).map { "c\($0)" })
        var handles: [NearbyCab] = []
        fleet.nearest(5, to: pickup, now: t0.addingTimeInterval(200), using: FleetWorkspace(), into: &handles)
        #expect(try handles.map { try fleet.cab($0.handle).id } == (10..<15).map { "c\($0)" })
    }

    @Test func aCitysFleetRegistersAtOnceAllOrNone() throws {
        let clock = ManualClock(t0)
        let fleet = try fleet(clock, interval: 0)
        var rng = SeededRandom(seed: 3)
        let cabs = (0..<5_000).map { i in
            Cab(id: "m\(i)", type: [CabType.sedan, .hatchback][i % 2], status: .available,
                position: pickup.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0..<4_000, using: &rng)),
                lastReport: t0)
        }
        let handles = try fleet.register(cabs)
        #expect(handles.count == 5_000)
        // The nearest sedans, against a brute force over the input.
        let truth = cabs.filter { $0.type == .sedan }.sorted { pickup.distance(to: $0.position!) < pickup.distance(to: $1.position!) }
        #expect(fleet.nearest(10, to: pickup, types: [.sedan]).map(\.cab.id) == truth.prefix(10).map(\.id))
        // A batch with a taken id, a repeated id, or a position without its time adds nothing.
        for bad in [[Cab(id: "new", type: .sedan), Cab(id: "m3", type: .sedan)],
                    [Cab(id: "x", type: .sedan), Cab(id: "x", type: .sedan)],
                    [Cab(id: "y", type: .sedan, position: pickup)]] {
            #expect(throws: FleetError.self) { try fleet.register(bad) }
        }
        #expect(throws: FleetError.unknownCab("new")) { try fleet.cab("new") }
        #expect(throws: FleetError.unknownCab("x")) { try fleet.cab("x") }
    }

    @Test func anUnregisteredCabIsGoneAndItsHandleWithIt() throws {
        let clock = ManualClock(t0)
        let fleet = try fleet(clock, interval: 0)
        let handle = try fleet.register(id: "a", type: .sedan, status: .available)
        try fleet.register(id: "b", type: .sedan, status: .available)
        try fleet.report(handle, position: pickup, at: t0)
        try fleet.report(cab: "b", position: pickup.destination(bearing: 0, distance: 50), at: t0)
        #expect(fleet.nearest(1, to: pickup).map(\.cab.id) == ["a"])
        try fleet.unregister("a")
        #expect(fleet.nearest(2, to: pickup).map(\.cab.id) == ["b"])
        #expect(throws: FleetError.unknownCab("a")) { try fleet.report(handle, position: pickup, at: t0) }
        #expect(throws: FleetError.self) { try fleet.cab(handle) }
        #expect(throws: FleetError.self) { try fleet.cab(CabHandle(slot: -1)) }
        #expect(throws: FleetError.self) { try fleet.cab(CabHandle(slot: 99)) }
        #expect(throws: FleetError.unknownCab("a")) { try fleet.unregister("a") }
        // The id can come back, with a new handle.
        let again = try fleet.register(id: "a", type: .hatchback, status: .available)
        #expect(again != handle)
        try fleet.report(again, position: pickup, at: t0)
        #expect(fleet.nearest(1, to: pickup).first?.cab.type == .hatchback)
    }

    @Test func aWorkspaceGivesTheSameAnswers() throws {
        let clock = ManualClock(t0)
        let fleet = try fleet(clock, interval: 0)
        var rng = SeededRandom(seed: 5)
        try fleet.register((0..<2_000).map { i in
            Cab(id: "w\(i)", type: .sedan, status: .available,
                position: pickup.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0..<4_000, using: &rng)),
                lastReport: t0)
        })
        let w = FleetWorkspace()
        var handles: [NearbyCab] = []
        for q in 0..<50 {
            let p = pickup.destination(bearing: Double(q * 7), distance: Double(q * 40))
            let matches = fleet.nearest(10, to: p)
            #expect(fleet.nearest(10, to: p, using: w) == matches)
            // Handles and distances: the same cabs in the same order, each record on demand.
            fleet.nearest(10, to: p, using: w, into: &handles)
            #expect(handles.map(\.distance) == matches.map(\.distance))
            #expect(try handles.map { try fleet.cab($0.handle) } == matches.map(\.cab))
            #expect(fleet.cabs(within: 300, of: p, using: w) == fleet.cabs(within: 300, of: p))
        }
    }
}

/// The two replicas behind the left–right publish: after any sequence of changes and
/// publishes, both hold exactly the fleet's records, and searches match a brute force.
@Suite struct FleetReplicaTests {
    @Test func bothReplicasConvergeOnTheRecordsOverRandomChanges() throws {
        for (seed, interval) in [(UInt64(1), 0.0), (2, 0.05), (3, 1.0)] {
            let clock = ManualClock(t0)
            var config = Fleet.Configuration()
            config.publishInterval = interval
            let fleet = try Fleet(configuration: config, clock: clock)
            var rng = SeededRandom(seed: seed)
            func spot() -> Coordinate {
                pickup.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0..<5_000, using: &rng))
            }
            // A bulk start, then single registrations, moves, status changes and removals.
            try fleet.register((0..<300).map { Cab(id: "b\($0)", type: .sedan, status: .available, position: spot(), lastReport: t0) })
            var next = 0
            for _ in 0..<6_000 {
                let ids = try fleet.state.withLock { s in s.indexOfID.keys.sorted() }
                switch Int.random(in: 0..<100, using: &rng) {
                case 0..<3:
                    try fleet.register(id: "n\(next)", type: .hatchback, status: .available); next += 1
                case 3..<5 where !ids.isEmpty:
                    try fleet.unregister(ids[Int.random(in: 0..<ids.count, using: &rng)])
                case 5..<15 where !ids.isEmpty:
                    try fleet.setStatus(of: ids[Int.random(in: 0..<ids.count, using: &rng)], to: CabStatus.allCases.randomElement(using: &rng)!)
                case 15..<20:
                    clock.advance(by: Double.random(in: 0..<0.1, using: &rng))
                    _ = fleet.nearest(3, to: spot())
                default:
                    if !ids.isEmpty { try fleet.report(cab: ids[Int.random(in: 0..<ids.count, using: &rng)], position: spot(), at: clock.now()) }
                }
            }
            // Two publishes bring both replicas up to date.
            fleet.publish(); fleet.publish()
            let records = fleet.state.withLock { $0 }
            for replica in [fleet.replicas.left, fleet.replicas.right] {
                #expect(replica.tree.invariantViolation() == nil)
                #expect(replica.cabs.count == records.cabs.count)
                var placed = 0
                for c in records.cabs.indices {
                    let inTree = replica.entryOfCab[c] >= 0
                    #expect(inTree == (records.live[c] && records.cabs[c].position != nil), "seed \(seed) slot \(c)")
                    guard records.live[c] else { continue }
                    #expect(replica.cabs[c] == records.cabs[c], "seed \(seed) slot \(c)")
                    if inTree {
                        placed += 1
                        let e = EntryID(rawValue: replica.entryOfCab[c])
                        #expect(replica.tree[e] == Int32(c) && replica.tree.position(of: e) == records.cabs[c].position)
                    }
                }
                #expect(replica.tree.count == placed)
            }
            // And a search equals a brute force over the records.
            let now = clock.now()
            let truth = records.cabs.indices.filter { records.live[$0] && records.cabs[$0].status == .available && records.cabs[$0].position != nil
                && now.timeIntervalSince(records.cabs[$0].lastReport!) <= 120 }
                .sorted { pickup.distance(to: records.cabs[$0].position!) < pickup.distance(to: records.cabs[$1].position!) }
            #expect(fleet.nearest(10, to: pickup).map(\.cab.id) == truth.prefix(10).map { records.cabs[$0].id }, "seed \(seed)")
        }
    }
}
