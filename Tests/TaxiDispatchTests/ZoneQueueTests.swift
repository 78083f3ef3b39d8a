import Foundation
import Fleet
import Geodesy
import TaxiDispatch
import TestSupport
import Testing
import Workloads
import Zones

/// The zone queues and zone events against a model written apart from the dispatcher:
/// plain arrays per zone, and zones found by GEOS (not the zone set's cover).
@Suite struct ZoneQueueTests {
    /// "Every available, fresh taxi is in exactly one queue, the one of the zone containing
    /// its last position", in FIFO order, after every step of long random sequences of
    /// reports (on roads, anywhere in and around Monaco, far outside), out-of-order reports,
    /// status changes and time passing (staleness); and every zone event exactly once, in
    /// order, with gapless per-cab sequence numbers.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func queuesAndEventsFollowTheRulesOverRandomEvents(seed: UInt64) async throws {
        let h = try Harness()
        let zones = Monaco.zones
        let geos = try GEOSZoneLocator(zones)
        let junctions = Monaco.junctions()
        let events = h.dispatcher.zoneEvents(capacity: 1 << 20)
        var rng = SeededRandom(seed: seed)
        let ids = (0..<40).map { "cab\($0)" }
        try h.dispatcher.register(ids.map { CabProfile(id: $0, type: .sedan, seats: 4) })

        struct ModelCab { var status = CabStatus.unattended; var last: Date?; var zone = -1; var sequence: UInt64 = 0 }
        var cabs = [String: ModelCab](uniqueKeysWithValues: ids.map { ($0, ModelCab()) })
        var queues = [[String]](repeating: [], count: zones.zones.count)
        var expectedEvents: [ZoneEvent] = []
        let staleAfter = h.dispatcher.fleet.configuration.staleAfter

        func eligible(_ c: ModelCab) -> Bool {
            c.status == .available && c.zone >= 0 && c.last.map { h.now.timeIntervalSince($0) <= staleAfter } == true
        }
        func place(_ id: String, moved: Bool) {
            let c = cabs[id]!
            let at = queues.firstIndex { $0.contains(id) }
            if let at, !eligible(c) || moved { queues[at].removeAll { $0 == id } }
            if eligible(c), !queues.contains(where: { $0.contains(id) }) { queues[c.zone].append(id) }
        }

        for step in 0..<3000 {
            let id = ids[Int.random(in: 0..<ids.count, using: &rng)]
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<60:  // a report
                let p: Coordinate
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<7:
                    let z = junctions[Int.random(in: 0..<junctions.count, using: &rng)]
                    p = z[Int.random(in: 0..<z.count, using: &rng)]
                case 7, 8: p = Coordinate(unchecked: Double.random(in: 43.720...43.755, using: &rng), Double.random(in: 7.405...7.442, using: &rng))
                default: p = Coordinate(unchecked: 43.70, 7.27)  // Nice
                }
                let late = Int.random(in: 0..<10, using: &rng) == 0
                let time = h.now.addingTimeInterval(late ? -Double.random(in: 1...60, using: &rng) : 0)
                let outcome = try h.dispatcher.report(cab: id, position: p, at: time)
                if let last = cabs[id]!.last, time < last {
                    #expect(outcome == .ignoredOutOfOrder)
                    continue
                }
                #expect(outcome == .applied)
                let zone = geos.zoneIndex(longitude: p.longitude, latitude: p.latitude), before = cabs[id]!.zone
                cabs[id]!.last = time
                cabs[id]!.zone = zone
                if zone != before {
                    cabs[id]!.sequence += 1
                    let kind: ZoneEvent.Kind = before < 0 ? .entered(zone: zone) : zone < 0 ? .exited(zone: before) : .crossed(from: before, to: zone)
                    expectedEvents.append(ZoneEvent(cab: id, sequence: cabs[id]!.sequence, kind: kind, time: time))
                }
                place(id, moved: zone != before)
            case 60..<80:
                let status = CabStatus.allCases[Int.random(in: 0..<3, using: &rng)]
                try h.dispatcher.setStatus(of: id, to: status)
                cabs[id]!.status = status
                place(id, moved: false)
            default:
                h.scheduler.advance(by: Double(Int.random(in: 0...40, using: &rng)))
                for q in queues.indices { queues[q].removeAll { !eligible(cabs[$0]!) } }
            }
            for z in queues.indices {
                let got = h.dispatcher.queue(ofZone: z)
                #expect(got == queues[z], "step \(step), zone \(z)")
                if got != queues[z] { return }
            }
            // The invariant itself, read from the fleet's records rather than the model.
            if step % 100 == 0 {
                let all = queues.indices.flatMap { h.dispatcher.queue(ofZone: $0) }
                #expect(Set(all).count == all.count)
                for id in ids {
                    let cab = try h.dispatcher.fleet.cab(id)
                    let fresh = cab.lastReport.map { h.now.timeIntervalSince($0) <= staleAfter } ?? false
                    let zone = cab.position.map { geos.zoneIndex(longitude: $0.longitude, latitude: $0.latitude) } ?? -1
                    let shouldQueue = cab.status == .available && fresh && zone >= 0
                    #expect(shouldQueue == all.contains(id))
                    if shouldQueue { #expect(h.dispatcher.queue(ofZone: zone).contains(id)) }
                }
            }
        }
        events.finish()
        var got: [ZoneEvent] = []
        for await d in events { if case let .event(e) = d { got.append(e) } else { Issue.record("dropped with a large buffer") } }
        #expect(got == expectedEvents)
        #expect(expectedEvents.count > 300)
    }

    /// Tile38's users lose fence events under bursts; here a burst of a million reports,
    /// each crossing a border, is accounted for to the event: with a buffer big enough
    /// nothing is dropped, and with a small one every drop is counted and the per-cab
    /// sequence numbers show exactly which.
    @Test(arguments: [2_000_000, 1000])
    func aBurstOfAMillionReportsLosesNoEventSilently(capacity: Int) async throws {
        let h = try Harness()
        let junctions = Monaco.junctions()
        let zones = Monaco.zones
        let a = 0, b = zones.adjacency[0][0]
        let here = junctions[a][0], there = junctions[b][0]
        let ids = (0..<100).map { "cab\($0)" }
        try h.dispatcher.register(ids.map { CabProfile(id: $0, type: .sedan, seats: 4) })
        let sub = h.dispatcher.zoneEvents(capacity: capacity)
        let consumer = Task { () -> (events: Int, dropped: Int, gapsMatch: Bool) in
            var last = [String: UInt64](), events = 0, dropped = 0, gaps = 0
            for await d in sub {
                switch d {
                case let .event(e):
                    let previous = last[e.cab] ?? 0
                    if e.sequence <= previous { return (events, dropped, false) }
                    gaps += Int(e.sequence - previous - 1)
                    last[e.cab] = e.sequence
                    events += 1
                case let .dropped(n): dropped += n
                }
            }
            // Drops after a cab's last delivered event show as the distance to its final count.
            return (events, dropped, gaps <= dropped)
        }
        let reports = 1_000_000
        var time = h.now
        for i in 0..<reports {
            if i % ids.count == 0 { time = time.addingTimeInterval(0.001) }
            try h.dispatcher.report(cab: ids[i % ids.count], position: (i / ids.count) % 2 == 0 ? here : there, at: time)
        }
        sub.finish()
        let (events, dropped, gapsMatch) = await consumer.value
        #expect(events + dropped == reports)  // every report crossed (or entered) a zone
        #expect(sub.produced == reports)
        #expect(gapsMatch)
        if capacity >= reports { #expect(dropped == 0) }
    }
}
