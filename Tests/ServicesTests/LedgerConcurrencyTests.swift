import Foundation
import Geodesy
import Services
import Storage
import TestSupport
import Testing

/// Many passengers paying at once, each call sent twice at the same time with one key (a
/// phone that retried): the ledger must balance, no one is charged twice, and the totals
/// match what the callers were told. Also run under ThreadSanitizer (scripts/test.sh).
@Suite("LedgerConcurrencyTests: concurrent payments on both stores")
struct LedgerConcurrencyTests {
    struct Tally: Sendable {
        var refilled: Int64 = 0
        var walletPaid: Int64 = 0
        var commission: Int64 = 0
        var cash: Int64 = 0
    }

    @Test("concurrent refills, holds, settlements and releases, each sent twice at once", arguments: Engine.allCases)
    func concurrentPayments(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let admin = try await h.adminSession()
        let driver = try await h.driver(1, adminSession: admin).id
        let passengers = 6, trips = 12
        var ids: [Int64] = []
        for n in 1...passengers { ids.append(try await h.passenger(n).id) }
        let wallet = h.wallet

        /// Runs `call` twice concurrently and checks both got the same answer.
        @Sendable func twice<R: Equatable & Sendable>(_ call: @escaping @Sendable () async throws -> R) async throws -> R {
            async let a = call()
            async let b = call()
            let (x, y) = try await (a, b)
            #expect(x == y, "the same key answered differently")
            return x
        }

        let tallies = try await withThrowingTaskGroup(of: Tally.self) { group in
            for (n, passenger) in ids.enumerated() {
                group.addTask {
                    var tally = Tally()
                    var rng = SeededRandom(seed: UInt64(n + 1))
                    for trip in 0..<trips {
                        let tag = "p\(n)-t\(trip)"
                        if trip % 3 == 0 {
                            let amount = Int64(5_000 + rng.next() % 20_000)
                            let key = try IdempotencyKey("refill-\(tag)")
                            let result = try await twice { try await wallet.refill(passenger: passenger, amount: amount, paymentToken: "tok_visa", key: key) }
                            guard case .completed = result else { Issue.record("\(result)"); continue }
                            tally.refilled += amount
                        }
                        let reference = "trip-\(tag)"
                        let estimate = Int64(2_000 + rng.next() % 8_000)
                        let holdKey = try IdempotencyKey("hold-\(tag)")
                        _ = try await twice { try await wallet.holdFare(reference: reference, passenger: passenger, estimate: estimate, key: holdKey) }
                        if rng.next() % 5 == 0 {
                            let key = try IdempotencyKey("release-\(tag)")
                            _ = try await twice { try await wallet.releaseFare(reference: reference, key: key); return true }
                            continue
                        }
                        let fare = Int64(1_000 + rng.next() % 12_000)
                        let settleKey = try IdempotencyKey("settle-\(tag)")
                        let paid = try await twice { try await wallet.settleFare(reference: reference, fare: fare, driver: driver, key: settleKey) }
                        tally.walletPaid += paid.walletPaid
                        tally.cash += paid.cashPaid
                        tally.commission += paid.commission
                    }
                    return tally
                }
            }
            var all: [Tally] = []
            for try await t in group { all.append(t) }
            return all
        }

        let audit = try LedgerAudit.run(on: h.store)
        #expect(audit.isSound, "\(audit)")
        #expect(audit.totalDebitsPending == 0, "every hold was settled or released")
        let refilled = tallies.reduce(0) { $0 + $1.refilled }
        let walletPaid = tallies.reduce(0) { $0 + $1.walletPaid }
        let commission = tallies.reduce(0) { $0 + $1.commission }
        var walletTotal: Int64 = 0
        for p in ids { walletTotal += try await wallet.balance(of: p).available }
        #expect(walletTotal == refilled - walletPaid)
        #expect(h.gateway.approvedTotal == refilled, "each refill charged the card once")
        let (revenue, gatewayOwes) = try await h.store.read { c in
            // The company's accounts are in shards: each summed over its own.
            (try c.first("SELECT CAST(SUM(credits_posted - debits_posted) AS BIGINT) AS b FROM ledger_accounts WHERE id LIKE 'revenue:%'")!.int64("b"),
             try c.first("SELECT CAST(SUM(debits_posted - credits_posted) AS BIGINT) AS b FROM ledger_accounts WHERE id LIKE 'gateway:%'")!.int64("b"))
        }
        #expect(revenue == commission)
        #expect(gatewayOwes == refilled)
    }
}
