import Dispatch
import Essentials
import Foundation
import Geodesy
import SpatialIndex
import Testing
import TestSupport
@testable import Fleet

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let centre = Coordinate(unchecked: 40.7580, -73.9855)

/// Reports in batches, and the publishing they leave to the writer.
@Suite struct FleetBatchTests {
    /// A fleet of `count` sedans, hatchbacks and Tata Nanos around the centre, all reported at
    /// `t0` and published.
    private func fleet(count: Int, publishInterval: TimeInterval, clock: ManualClock) throws -> (Fleet, [CabHandle]) {
        var config = Fleet.Configuration()
        config.publishInterval = publishInterval
        let fleet = try Fleet(configuration: config, clock: clock)
        var rng = SeededRandom(seed: 5)
        let handles = try fleet.register((0..<count).map { i in
            Cab(id: "c\(i)", type: [CabType.sedan, .hatchback, .tataNano][i % 3], status: .available,
                position: centre.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0..<6_000, using: &rng)),
                lastReport: t0)
        })
        fleet.publish()
        return (fleet, handles)
    }

    /// A batch gives each report the outcome the single report gives it, and leaves the fleet
    /// as the single reports do: the same records, counters and answers, which a brute force
    /// over the records confirms. 6,000 reports in batches of 1 to 1,500 (so several holds of
    /// the lock each), with unknown handles, times from the future and out-of-order reports
    /// among them; with publishing by hand and at every write.
    @Test(arguments: [3600.0, 0.0])
    func aBatchHasTheOutcomesOfSingleReports(publishInterval: TimeInterval) throws {
        let clock = ManualClock(t0.addingTimeInterval(100))
        let (batched, handles) = try fleet(count: 2_000, publishInterval: publishInterval, clock: clock)
        let (single, _) = try fleet(count: 2_000, publishInterval: publishInterval, clock: clock)
        try batched.unregister("c7"); try single.unregister("c7")
        var rng = SeededRandom(seed: 21)
        var reports: [CabReport] = []
        for _ in 0..<6_000 {
            let roll = Int.random(in: 0..<100, using: &rng)
            let cab = roll < 2 ? CabHandle(slot: [-1, 2_000, 7, Int32.max][Int.random(in: 0..<4, using: &rng)])
                : handles[Int.random(in: 0..<handles.count, using: &rng)]
            let time = roll < 4 ? t0.addingTimeInterval(1_000)        // from the future: refused
                : roll < 14 ? t0.addingTimeInterval(-5)               // older than the cab's last: ignored
                : t0.addingTimeInterval(Double.random(in: 0..<99, using: &rng))
            let p = centre.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0..<6_000, using: &rng))
            reports.append(CabReport(cab, position: p, at: time))
        }
        // One by one, as the single form answers.
        var expected = BatchReportOutcome()
        for (i, r) in reports.enumerated() {
            do {
                switch try single.report(r.cab, position: r.position, at: r.time) {
                case .applied: expected.applied += 1
                case .ignoredOutOfOrder: expected.ignoredOutOfOrder += 1
                }
            } catch { expected.refused.append(.init(index: i, error: error)) }
        }
        // In batches of random sizes, their indices shifted back to the whole run's.
        var got = BatchReportOutcome(), start = 0
        while start < reports.count {
            let end = min(reports.count, start + Int.random(in: 1...1_500, using: &rng))
            let outcome = batched.report(Array(reports[start..<end]))
            got.applied += outcome.applied
            got.ignoredOutOfOrder += outcome.ignoredOutOfOrder
            got.refused += outcome.refused.map { .init(index: $0.index + start, error: $0.error) }
            start = end
        }
        #expect(got == expected)
        #expect(expected.applied > 2_500 && expected.ignoredOutOfOrder > 600 && expected.refused.count > 150, "\(expected.applied) \(expected.ignoredOutOfOrder) \(expected.refused.count)")
        #expect(batched.outOfOrderReports == single.outOfOrderReports)
        #expect(batched.allCabs() == single.allCabs())
        // The answers, against a brute force over the single fleet's records.
        batched.publish(); single.publish()
        let records = single.allCabs()
        let now = clock.now()
        for q in 0..<25 {
            let at = centre.destination(bearing: Double(q * 53 % 360), distance: Double(q) * 250)
            let truth = records.filter { now.timeIntervalSince($0.lastReport!) <= 120 }
                .map { (id: $0.id, d: at.distance(to: $0.position!)) }.sorted { $0.d < $1.d }.prefix(10)
            let found = batched.nearest(10, to: at)
            #expect(found.map(\.cab.id) == truth.map(\.id), "query \(q)")
            #expect(zip(found, truth).allSatisfy { abs($0.distance - $1.d) < 1e-6 })
        }
    }

    /// An empty batch changes nothing and reports nothing.
    @Test func anEmptyBatchIsNothing() throws {
        let clock = ManualClock(t0)
        let (fleet, _) = try fleet(count: 10, publishInterval: 0, clock: clock)
        #expect(fleet.report([]) == BatchReportOutcome())
        #expect(fleet.allCabs().allSatisfy { $0.lastReport == t0 })
    }

    /// A query that publishes leaves the replay of the log to the next write: it swaps the
    /// replicas and goes, and the writer's replica catches up at the next change.
    @Test func aQueryThatPublishesLeavesTheReplayToTheWriter() throws {
        let clock = ManualClock(t0)
        let (fleet, handles) = try fleet(count: 50, publishInterval: 0.05, clock: clock)
        let moved = centre.destination(bearing: 90, distance: 20)
        // Not due (the clock has not moved since the publish): logged, not published.
        try fleet.report(handles[0], position: moved, at: t0)
        try fleet.report(handles[1], position: moved, at: t0)
        #expect(!fleet.replicas.replayPending && fleet.replicas.log.count == 2)
        clock.advance(by: 1)
        #expect(fleet.nearest(1, to: moved).first?.distance ?? 1 < 1e-6)   // this query published
        #expect(fleet.replicas.replayPending && fleet.replicas.log.count == 2)
        try fleet.report(handles[2], position: centre, at: clock.now())
        #expect(!fleet.replicas.replayPending && fleet.replicas.log.count == 1)
        // Both replicas now place cab 0 where it reported.
        for replica in [fleet.replicas.left, fleet.replicas.right] {
            #expect(replica.tree.position(of: EntryID(rawValue: replica.entryOfCab[0])) == moved)
        }
    }

    /// A query made while somebody holds the fleet's lock does not wait for it: it searches
    /// the published replica as it is. (Before, a query that found the replica due waited
    /// for the lock, and a writer that took it back at once could keep it asleep.) The test
    /// holds the lock and runs the query on another thread; the semaphore's deadline is only
    /// there so that a regression fails instead of hanging.
    @Test func aQueryDoesNotWaitForTheLock() throws {
        let clock = ManualClock(t0)
        let (fleet, handles) = try fleet(count: 50, publishInterval: 0.05, clock: clock)
        let moved = centre.destination(bearing: 0, distance: 30_000)
        try fleet.report(handles[0], position: moved, at: t0)   // not due yet: not published
        clock.advance(by: 1)
        let answered = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var nearestToMoved: Double?
        let finished: Bool = fleet.state.withLock { _ in
            Thread {
                nearestToMoved = fleet.nearest(1, to: moved).first?.distance
                answered.signal()
            }.start()
            return answered.wait(timeout: .now() + 10) == .success
        }
        if !finished { answered.wait() }
        #expect(finished)
        // It saw the published replica, where cab 0 had not moved yet.
        #expect((nearestToMoved ?? 0) > 20_000)
        // With the lock free, the next query publishes and finds it.
        #expect(fleet.nearest(1, to: moved).first?.distance ?? 1 < 1e-6)
    }
}
