import Foundation
import Essentials
import Fleet
import Geodesy
import TaxiDispatch
import TestSupport
import Testing

/// Many requests at once on one dispatcher while reports stream in, drivers answer and the
/// clock moves, each from its own thread; then the invariants hold. Run under
/// ThreadSanitizer by `scripts/test.sh`.
@Suite struct DispatchConcurrencyTests {
    @Test func requestsReportsAnswersAndTimersFromManyThreads() throws {
        let h = try Harness()
        let junctions = Monaco.junctions().filter { !$0.isEmpty }
        let ids = (0..<60).map { "cab\($0)" }
        try h.cabs(ids.enumerated().map { i, id in (id, junctions[i % junctions.count][i % junctions[i % junctions.count].count]) })
        let requests = RequestBox()
        let groups = DispatchGroup()
        // The passengers, the reports and the clock; the drivers answer for as long as these run.
        let producers = DispatchGroup()
        let passes = PassCounter()
        // Each on a thread of its own, not a dispatch queue's: the clock blocks until the
        // drivers have looked, and a pool as wide as the machine's two cores could leave the
        // drivers waiting behind it (seen: a run of four minutes in the full suite).
        func spawn(_ body: @escaping @Sendable () -> Void) {
            groups.enter()
            Thread { body(); groups.leave() }.start()
        }
        for t in 0..<3 {  // passengers
            producers.enter()
            spawn {
                defer { producers.leave() }
                for k in 0..<15 {
                    let zone = junctions[(t + k) % junctions.count]
                    if let id = try? h.dispatcher.request(RideRequest(customer: "p\(t)-\(k)", pickup: zone[k % zone.count])) {
                        requests.add(id)
                    }
                }
            }
        }
        producers.enter()
        spawn {  // the fleet's reports
            defer { producers.leave() }
            for round in 0..<20 {
                for (i, id) in ids.enumerated() {
                    let zone = junctions[(i + round) % junctions.count]
                    _ = try? h.dispatcher.report(cab: id, position: zone[(i * 7 + round) % zone.count], at: h.now)
                }
            }
        }
        spawn {  // drivers: accept every third offer, decline the rest
            // For as long as the others run (a fixed number of rounds could end before the
            // first offer on a busy machine), then once more.
            var answered = Set<UInt64>()
            var running = true
            while running {
                running = producers.wait(timeout: .now()) == .timedOut
                for offer in h.offers where answered.insert(offer.id).inserted {
                    try? h.dispatcher.answer(offer.id, accept: offer.id % 3 == 0)
                }
                passes.completeOne()
            }
        }
        producers.enter()
        spawn {  // time passes: retries fall due, searches end
            defer { producers.leave() }
            // A second each, 60 in all (within the search limit and the cabs' freshness), each
            // after a whole pass of the drivers, so an offer lapses only if its driver never saw
            // it: on a starved thread (ThreadSanitizer, a busy machine) the clock waits for
            // the drivers instead of lapsing every offer, so some cab is always assigned.
            for _ in 0..<60 {
                passes.awaitOneMore()
                h.scheduler.advance(by: 1)
            }
        }
        groups.wait()
        h.scheduler.advance(by: 300)  // every search ends

        var assignedCabs: [String] = []
        for id in requests.all {
            switch try h.dispatcher.status(of: id) {
            case .searching: Issue.record("request \(id) still searching after its limit")
            case let .assigned(a): assignedCabs.append(a.cab)
            case .notServed, .cancelled: break
            }
        }
        #expect(Set(assignedCabs).count == assignedCabs.count)  // no cab given twice
        #expect(!assignedCabs.isEmpty)
        // The zone-queue invariant, from the fleet's records.
        let zones = Monaco.zones
        let queued = zones.zones.indices.flatMap { h.dispatcher.queue(ofZone: $0) }
        #expect(Set(queued).count == queued.count)
        for id in ids {
            let cab = try h.dispatcher.fleet.cab(id)
            let fresh = cab.lastReport.map { h.now.timeIntervalSince($0) <= 120 } ?? false
            let zone = cab.position.map { zones.zoneIndex(longitude: $0.longitude, latitude: $0.latitude) } ?? -1
            #expect((cab.status == .available && fresh && zone >= 0) == queued.contains(id))
            #expect(assignedCabs.contains(id) == (cab.status == .busy))
        }
        let stats = DispatchStatistics(h.log.records)
        #expect(stats.requests == requests.all.count && stats.open == 0)
    }
}

/// Counts the drivers' passes over the offers; the clock waits for a pass begun after it asked.
final class PassCounter: @unchecked Sendable {  // every field behind `condition`
    private let condition = NSCondition()
    private var passes = 0
    func completeOne() { condition.lock(); passes += 1; condition.broadcast(); condition.unlock() }
    /// Returns after a pass that began after this call (two completions: the one under way may
    /// have begun before).
    func awaitOneMore() {
        condition.lock()
        let target = passes + 2
        while passes < target { condition.wait() }
        condition.unlock()
    }
}

/// `Sendable`: its one field is behind `Locked`.
final class RequestBox: Sendable {
    private let items = Locked<[RequestID]>([])
    func add(_ id: RequestID) { items.withLock { $0.append(id) } }
    var all: [RequestID] { items.withLock { $0 } }
}
