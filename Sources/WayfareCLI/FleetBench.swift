import ArgumentParser
import Dispatch
import Essentials
import Fleet
import Foundation
import Geodesy
import WayfareAPI

struct BenchFleet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Load cabs into a Fleet; one thread streams the moves as reports (one by one, or in batches with --batch) while another runs k-nearest queries (handles and distances, as the dispatcher asks); one JSON line.")
    @Option(help: "CSV id,lat,lon of the cabs.") var cabs: String
    @Option(help: "CSV lat,lon of the query points.") var queries: String
    @Option(help: "CSV id,lat,lon: new positions, reported over and over (alternating with the cabs' first positions).") var moves: String
    @Option(help: "k for the queries.") var k: Int = 10
    @Option(help: "How long both threads run, in seconds.") var seconds: Double = 5
    @Option(name: .customLong("publish-ms"), help: "The fleet's publish interval in milliseconds.") var publishMs: Double = 50
    @Option(help: "Reports per call: 1 reports one at a time (report(_:position:at:)), more in batches (report(_:)).") var batch: Int = 1

    func run() throws {
        guard (1...10_000).contains(k) else { throw CLIError("--k must be between 1 and 10000") }
        guard seconds.isFinite, seconds > 0, seconds <= 3600 else { throw CLIError("--seconds must be in (0, 3600]") }
        guard publishMs.isFinite, publishMs >= 0, publishMs <= 60_000 else { throw CLIError("--publish-ms must be in [0, 60000]") }
        guard (1...100_000).contains(batch) else { throw CLIError("--batch must be between 1 and 100000") }
        let (ids, starts) = try readIdentifiedPoints(cabs, uniqueIds: true)
        let (queryPoints, _) = try readPoints(queries)
        let (moveIDs, movePoints) = try readIdentifiedPoints(moves, uniqueIds: false)
        guard !ids.isEmpty else { throw CLIError("\(cabs): no cabs") }
        guard !queryPoints.isEmpty else { throw CLIError("\(queries): no query points") }
        guard !moveIDs.isEmpty else { throw CLIError("\(moves): no moves") }

        var config = Fleet.Configuration()
        config.cabTypes = [.sedan]
        config.publishInterval = publishMs / 1000
        let fleet: Fleet
        let handles: [CabHandle]
        do {
            fleet = try Fleet(configuration: config)
            let now = Date()
            handles = try fleet.register(zip(ids, starts).map { Cab(id: $0, type: .sedan, status: .available, position: $1, lastReport: now) })
        } catch { throw CLIError("\(cabs): \(error)") }
        var slotOf: [String: Int] = [:]
        for (i, id) in ids.enumerated() { slotOf[id] = i }
        var slots: [Int] = []
        for (n, id) in moveIDs.enumerated() {
            guard let s = slotOf[id] else { throw CLIError("\(moves): row \(n + 1): cab \"\(id)\" is not in \(cabs)") }
            slots.append(s)
        }
        let moveSlots = slots
        // The option read once: a property wrapper's getter inside the timed loop put
        // ArgumentParser's generic metadata lookups into every query's time.
        let k = k, batchSize = batch

        // Published now, and twice, so that both replicas hold the cabs before the clock
        // starts: the second replica catches up at the next change after a publish, and
        // the time of the data queries read starts from here, not from the registration
        // (a query that finds the writer busy reads the published replica as it is).
        fleet.publish(); fleet.publish()
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let done = DispatchGroup()
        // The writer: every move as a report, then every cab back to its start, over and
        // over. The report time is read once per 1,024 reports (a clock read costs as much as
        // a tenth of a report).
        nonisolated(unsafe) var reports = 0
        nonisolated(unsafe) var writerSeconds = 0.0
        nonisolated(unsafe) var writerError: String?
        done.enter()
        Thread {
            let t0 = DispatchTime.now().uptimeNanoseconds
            var n = 0, round = 0, now = Date()
            var pending: [CabReport] = []
            pending.reserveCapacity(batchSize)
            outer: while true {
                for (j, slot) in moveSlots.enumerated() {
                    if n & 1023 == 0 {
                        if DispatchTime.now().uptimeNanoseconds >= deadline { break outer }
                        now = Date()
                    }
                    let p = round & 1 == 0 ? movePoints[j] : starts[slot]
                    n += 1
                    if batchSize == 1 {
                        do { try fleet.report(handles[slot], position: p, at: now) } catch {
                            writerError = "\(error)"; break outer
                        }
                        continue
                    }
                    pending.append(CabReport(handles[slot], position: p, at: now))
                    if pending.count == batchSize {
                        if let refusal = fleet.report(pending).refused.first { writerError = "\(refusal.error)"; break outer }
                        pending.removeAll(keepingCapacity: true)
                    }
                }
                round += 1
            }
            n -= pending.count   // reports not yet sent when time ran out
            reports = n
            writerSeconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
            done.leave()
        }.start()
        // The reader: k-nearest queries, each timed, and the age of the data it searched.
        nonisolated(unsafe) var timings: [Double] = []
        nonisolated(unsafe) var maxAge = 0.0
        done.enter()
        Thread {
            let workspace = FleetWorkspace()
            var found: [NearbyCab] = []
            var times: [Double] = []
            times.reserveCapacity(1 << 20)
            var oldest = 0.0, q = 0
            while DispatchTime.now().uptimeNanoseconds < deadline {
                let p = queryPoints[q % queryPoints.count]
                q += 1
                let start = DispatchTime.now().uptimeNanoseconds
                fleet.nearest(k, to: p, using: workspace, into: &found)
                let end = DispatchTime.now().uptimeNanoseconds
                let asked = Date()
                if let seen = workspace.lastSearchDataTime { oldest = max(oldest, asked.timeIntervalSince(seen)) }
                if times.count < 10_000_000 { times.append(Double(end - start)) }
                precondition(found.count <= k)
            }
            timings = times
            maxAge = oldest
            done.leave()
        }.start()
        done.wait()
        if let writerError { throw CLIError("\(moves): \(writerError)") }
        guard !timings.isEmpty, writerSeconds > 0 else { throw CLIError("--seconds is too short to measure anything") }
        let sorted = timings.sorted()
        let (p50, p99, p999) = (percentile(0.5, ofSorted: sorted) ?? 0, percentile(0.99, ofSorted: sorted) ?? 0, percentile(0.999, ofSorted: sorted) ?? 0)
        // The reader's whole time in its searches, lock waits included: the tail the
        // percentiles do not show.
        let readerBusy = timings.reduce(0, +) / 1e9
        struct Measured: Encodable {
            let cabs, batch, reportsPerS, readerQueries: Int
            let readerP50Ns, readerP99Ns, readerP999Ns, readerMaxNs, readerBusyS, maxStalenessMs: Double
        }
        printJSONLine(Measured(cabs: ids.count, batch: batchSize, reportsPerS: Int((Double(reports) / writerSeconds).rounded()), readerQueries: timings.count,
                               readerP50Ns: p50.rounded(), readerP99Ns: p99.rounded(), readerP999Ns: p999.rounded(), readerMaxNs: sorted.last ?? 0,
                               readerBusyS: rounded(readerBusy, 2), maxStalenessMs: rounded(maxAge * 1000, 2)))
    }
}
