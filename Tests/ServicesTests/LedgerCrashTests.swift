import Foundation
import Geodesy
import Services
import Storage
import TestSupport
import Testing

/// Kills a paying process with SIGKILL at random moments, reopens the store, and checks that
/// the ledger balances and that every payment the process acknowledged is there.
@Suite("Ledger crash: SIGKILL in the middle of payments")
struct LedgerCrashTests {
    /// The worker executable, built beside the test bundle.
    static var worker: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("LedgerCrashWorker")
    }

    @Test("acknowledged payments survive SIGKILL and the ledger balances after each kill", arguments: Engine.allCases)
    func killMidPayment(engine: Engine) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.worker.path) else {
            Issue.record("the LedgerCrashWorker executable is missing at \(Self.worker.path); build with `swift build --build-tests`")
            return
        }
        guard let h = try Harness(engine) else { return }
        let admin = try await h.adminSession()
        let driver = try await h.driver(1, adminSession: admin).id
        var passengers: [Int64] = []
        for n in 1...4 { passengers.append(try await h.passenger(n).id) }
        var rng = SeededRandom(seed: 2026)
        var acknowledged: [[Substring]] = []
        for round in 1...4 {
            let lines = try runAndKill(address: h.scratch.address, seed: UInt64(round), driver: driver,
                                       passengers: passengers, afterAcks: 15 + Int(rng.next() % 40),
                                       extraMicroseconds: UInt32(rng.next() % 20_000))
            let acks = lines.filter { $0.hasPrefix("ACK ") }.map { $0.split(separator: " ") }
            #expect(acks.count >= 15, "round \(round): the worker acknowledged only \(acks.count) payments: \(lines.suffix(3))")
            acknowledged += acks
            // Reopened from another process's point of view: this process's store sees the
            // database as the killed worker left it.
            let audit = try LedgerAudit.run(on: h.store)
            #expect(audit.isSound, "round \(round): \(audit)")
        }
        let acks = acknowledged.map { $0.map(String.init) }
        try await h.store.read { c in
            for ack in acks {
                let kind = ack[1], key = ack[2]
                let row = try c.first("SELECT operation FROM idempotency WHERE key = ?", [.text(key)])
                #expect(row != nil, "acknowledged \(kind) \(key) is missing")
                if kind == "settle" || kind == "release" {
                    let status = try c.first("SELECT status FROM trip_payments WHERE reference = ?", [.text(ack[3])])?.string("status")
                    #expect(status == (kind == "settle" ? "settled" : "released"), "\(kind) \(key)")
                }
            }
        }
        // Replaying every acknowledged call changes nothing.
        let before = try LedgerAudit.run(on: h.store)
        for ack in acknowledged where ack[1] == "refill" {
            let result = try await h.wallet.refill(passenger: Int64(ack[3])!, amount: Int64(ack[4])!, paymentToken: "tok_visa",
                                                   key: try IdempotencyKey(String(ack[2])))
            guard case .completed = result else { Issue.record("replay of \(ack[2]): \(result)"); continue }
        }
        #expect(try LedgerAudit.run(on: h.store) == before)
        #expect(acknowledged.count >= 60)
    }

    /// Starts the worker, waits for `afterAcks` acknowledgements and a little more, kills it
    /// with SIGKILL, and returns every line it printed.
    func runAndKill(address: String, seed: UInt64, driver: Int64, passengers: [Int64], afterAcks: Int,
                    extraMicroseconds: UInt32) throws -> [String] {
        let process = Process()
        process.executableURL = Self.worker
        process.arguments = [address, "\(seed)", "\(driver)"] + passengers.map { "\($0)" }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = pipe.fileHandleForReading
        var buffer = Data()
        var acks = 0
        let deadline = Date().addingTimeInterval(120)
        while acks < afterAcks && Date() < deadline && process.isRunning {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            acks = String(decoding: buffer, as: UTF8.self).components(separatedBy: "\nACK ").count - 1
                + (buffer.starts(with: Data("ACK ".utf8)) ? 1 : 0)
        }
        usleep(extraMicroseconds)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the worker ended on its own")
        buffer.append(reader.readDataToEndOfFile())
        // Only whole lines: a line cut by the kill was never acknowledged.
        let text = String(decoding: buffer, as: UTF8.self)
        var lines = text.components(separatedBy: "\n")
        if !text.hasSuffix("\n") { lines.removeLast() }
        return lines.filter { !$0.isEmpty }
    }
}
