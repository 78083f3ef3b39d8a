import Foundation
import Fleet
import Geodesy
import TaxiDispatch
import Testing
import TestSupport

@Suite struct DecisionLogTests {
    /// A scripted day: the log holds every step in order, and the statistics computed from
    /// it alone match what the script did, counted by hand.
    @Test func statisticsComeFromTheLogAlone() throws {
        let h = try Harness()
        let (_, pickup, places) = try OfferTests.home()
        try h.cabs([("a", places[0]), ("b", places[1])])
        // 1: a declines after 4 s, b accepts after 6 s.
        let r1 = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
        h.scheduler.advance(by: 4)
        try h.dispatcher.answer(h.lastOffer!.id, accept: false)
        h.scheduler.advance(by: 6)
        try h.dispatcher.answer(h.lastOffer!.id, accept: true)
        // 2: a lets it lapse, then declines; the search ends unserved.
        let r2 = try h.dispatcher.request(RideRequest(customer: "bob", pickup: pickup))
        h.scheduler.advance(by: 15)
        h.scheduler.advance(by: 2)
        try h.dispatcher.answer(h.lastOffer!.id, accept: false)
        h.scheduler.advance(by: 120)
        // 3: cancelled.
        let r3 = try h.dispatcher.request(RideRequest(customer: "cy", pickup: pickup))
        try h.dispatcher.cancel(r3)

        let records = h.log.records
        #expect(records.allSatisfy { [r1, r2, r3].map(\.value).contains($0.request) })
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.time <= $1.time })
        #expect(records.filter { $0.request == r1.value }.map(\.kind.name) ==
                ["requested", "candidates", "offered", "declined", "candidates", "offered", "accepted", "assigned"])
        #expect(records.filter { $0.request == r2.value }.map(\.kind.name) ==
                ["requested", "candidates", "offered", "timedOut", "candidates", "offered", "declined", "candidates", "notServed"])

        let stats = DispatchStatistics(records)
        #expect(stats.requests == 3 && stats.served == 1 && stats.cancelled == 1 && stats.open == 0)
        #expect(stats.notServed == [.noTaxiAccepted: 1])
        // a, b for ann; a, a for bob; none for cy: by then a's last report is 147 s old.
        #expect(stats.offersPerRequest == 4.0 / 3.0)
        let a = try #require(stats.drivers["a"])
        #expect(a.offers == 3 && a.accepted == 0 && a.declined == 2 && a.timedOut == 1 && a.acceptanceRate == 0)
        #expect(a.meanResponseSeconds == 3)  // 4 s and 2 s
        #expect(stats.drivers["b"]?.accepted == 1 && stats.drivers["b"]?.meanResponseSeconds == 6)
        #expect(stats.timeToDispatch?.p50 == 10)
    }

    @Test func theFileLogRoundTripsAndNamesATornLine() throws {
        let folder = TemporaryFolder()
        let path = folder.path("decisions.jsonl")
        let log = try FileDecisionLog(path: path)
        let h = try Harness()
        let records = [
            DecisionRecord(time: h.now, request: 1, kind: .requested(customer: "ann \"x\"", latitude: 43.7, longitude: 7.4, zone: 3, type: nil, seats: 2)),
            DecisionRecord(time: h.now.addingTimeInterval(0.25), request: 1, kind: .candidates(cabs: ["a", "b"], etaSeconds: [61.5, 90])),
            DecisionRecord(time: h.now.addingTimeInterval(1), request: 1, kind: .notServed(reason: .noTaxiAvailable)),
        ]
        for r in records { log.append(r) }
        try log.sync()
        #expect(try FileDecisionLog.read(path: path) == records)
        #expect(log.failedWrites == 0)
        log.closeFile()
        log.append(records[0])
        #expect(log.failedWrites == 1)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("{\"request\":1,\"ti".utf8))
        try handle.close()
        #expect { try FileDecisionLog.read(path: path) } throws: { ($0 as? FileDecisionLog.Failure)?.description == "\(path): line 4: not a decision record" }
        #expect(throws: FileDecisionLog.Failure.self) { try FileDecisionLog(path: folder.path("missing/x.jsonl")) }
    }
}

extension DecisionRecord.Kind {
    /// The case's name, for comparing sequences.
    var name: String { String(describing: self).prefix { $0 != "(" }.description }
}
