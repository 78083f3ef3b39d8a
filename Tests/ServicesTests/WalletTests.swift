import Foundation
import Services
import Storage
import TestSupport
import Testing

@Suite("Wallet: a double-entry ledger with idempotent refills and fare holds (000 UC12–13)")
struct WalletTests {
    func key(_ s: String) throws -> IdempotencyKey { try IdempotencyKey(s) }

    @Test("refills: approved, repeated, reused keys, declines, 3-D Secure, time-outs, double callbacks", arguments: Engine.allCases)
    func refills(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let p = try await h.passenger(1).id
        let w = h.wallet
        #expect(try await w.refill(passenger: p, amount: 50_000, paymentToken: "tok_visa", key: key("r1")) == .completed(balance: 50_000))
        // The same key again: the first answer, no second charge.
        #expect(try await w.refill(passenger: p, amount: 50_000, paymentToken: "tok_visa", key: key("r1")) == .completed(balance: 50_000))
        await #expect(throws: ServiceError.idempotencyKeyReused("r1")) {
            _ = try await w.refill(passenger: p, amount: 60_000, paymentToken: "tok_visa", key: key("r1"))
        }
        #expect(try await w.refill(passenger: p, amount: 1_000, paymentToken: "tok_decline", key: key("r2")) == .declined(reason: "card declined"))
        #expect(try await w.refill(passenger: p, amount: 1_000, paymentToken: "tok_nofunds", key: key("r3"))
                == .declined(reason: "insufficient funds on the card"))
        let action = try await w.refill(passenger: p, amount: 2_000, paymentToken: "tok_3ds", key: key("r4"))
        guard case .requiresAction(let intent, let challenge) = action else { Issue.record("\(action)"); return }
        #expect(challenge.hasPrefix("https://3ds.example/"))
        #expect(try await w.balance(of: p).available == 50_000)
        #expect(try await w.completeRefill(intent: intent) == .completed(balance: 52_000))
        #expect(try await w.completeRefill(intent: intent) == .completed(balance: 52_000))
        let timedOut = try await w.refill(passenger: p, amount: 3_000, paymentToken: "tok_timeout", key: key("r5"))
        guard case .pending(let pendingIntent) = timedOut else { Issue.record("\(timedOut)"); return }
        // The gateway's webhook arrives twice: credited once.
        #expect(try await w.gatewayCallback(intent: pendingIntent, outcome: .approved(reference: "ch_x")) == .completed(balance: 55_000))
        #expect(try await w.gatewayCallback(intent: pendingIntent, outcome: .approved(reference: "ch_x")) == .completed(balance: 55_000))
        // A late decline after the approval changes nothing.
        #expect(try await w.gatewayCallback(intent: pendingIntent, outcome: .declined(reason: "late")) == .completed(balance: 55_000))
        #expect(try await w.balance(of: p) == WalletBalance(available: 55_000, held: 0))
        #expect(h.gateway.approvedTotal == 55_000)
        // Refills credited: exactly three transfers from the gateway (its shards).
        let refills = try await h.store.read { c in
            try c.first("SELECT COUNT(*) AS n, CAST(SUM(amount) AS BIGINT) AS s FROM ledger_transfers WHERE debit_account LIKE 'gateway:%'")!
        }
        #expect(try refills.int("n") == 3 && refills.int64("s") == 55_000)
        try h.expectSoundLedger()
    }

    @Test("refills nobody settled are reconciled with the gateway after a minute; a 3-D Secure step never finished is declined after a day", arguments: Engine.allCases)
    func reconciliation(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let p = try await h.passenger(2).id
        let w = h.wallet
        guard case .pending = try await w.refill(passenger: p, amount: 3_000, paymentToken: "tok_timeout", key: key("t1")),
              case .requiresAction = try await w.refill(passenger: p, amount: 2_000, paymentToken: "tok_3ds", key: key("t2")) else {
            Issue.record("expected a pending and a 3-D Secure refill"); return
        }
        #expect(try await w.reconcile() == Wallet.Reconciliation(), "too young: the app or the callback may still settle them")
        h.clock.advance(by: 61)
        var settled = Wallet.Reconciliation()
        settled.completed = 2
        #expect(try await w.reconcile() == settled, "the test gateway approves both once asked")
        #expect(try await w.balance(of: p).available == 5_000)
        h.clock.advance(by: 61)
        #expect(try await w.reconcile() == Wallet.Reconciliation(), "nothing twice")
        // The app retrying the refill gets the answer recorded then (the balance after it).
        #expect(try await w.refill(passenger: p, amount: 3_000, paymentToken: "tok_timeout", key: key("t1")) == .completed(balance: 3_000))

        // A gateway on which the passenger never finishes the 3-D Secure step.
        let stuck = Wallet(store: h.store, gateway: StuckGateway(), clock: h.clock)
        guard case .requiresAction = try await stuck.refill(passenger: p, amount: 1_000, paymentToken: "tok_any", key: key("t3")) else {
            Issue.record("expected a 3-D Secure refill"); return
        }
        h.clock.advance(by: 3_600)
        var waiting = Wallet.Reconciliation()
        waiting.waiting = 1
        #expect(try await stuck.reconcile() == waiting)
        h.clock.advance(by: 86_400)
        var declined = Wallet.Reconciliation()
        declined.declined = 1
        #expect(try await stuck.reconcile() == declined)
        #expect(try await w.balance(of: p).available == 5_000)
        try h.expectSoundLedger()
    }

    @Test("refill input: amounts, tokens, keys and passengers are checked before anything is stored", arguments: Engine.allCases)
    func refillInput(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let p = try await h.passenger(2).id
        let w = h.wallet
        for amount: Int64 in [0, -1, Int64.min, 5_000_001, Int64.max] {
            await #expect(throws: ServiceError.invalid(field: "amount", reason: "must be between 1 and 5000000 minor units")) {
                _ = try await w.refill(passenger: p, amount: amount, paymentToken: "tok_visa", key: .random())
            }
        }
        for token in ["", "tok visa", "tok\u{0}", String(repeating: "t", count: 257)] {
            await #expect(throws: ServiceError.invalid(field: "paymentToken", reason: "must be 1 to 256 visible ASCII characters")) {
                _ = try await w.refill(passenger: p, amount: 100, paymentToken: token, key: .random())
            }
        }
        for bad in ["", String(repeating: "k", count: 65), "k'; DROP TABLE idempotency;--", "k\u{7}", "ключ"] {
            #expect(throws: ServiceError.self) { _ = try IdempotencyKey(bad) }
        }
        await #expect(throws: ServiceError.notFound("passenger 424242")) {
            _ = try await w.refill(passenger: 424_242, amount: 100, paymentToken: "tok_visa", key: .random())
        }
        let stored = try await h.store.read { c in
            try c.first("SELECT (SELECT COUNT(*) FROM payment_intents) + (SELECT COUNT(*) FROM idempotency) + (SELECT COUNT(*) FROM ledger_transfers) AS n")!.int("n")
        }
        #expect(stored == 0)
    }

    @Test("paying for travel: hold the estimate, post the fare, release the rest, split the commission", arguments: Engine.allCases)
    func travel(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let admin = try await h.adminSession()
        let p = try await h.passenger(3).id
        let d = try await h.driver(1, adminSession: admin).id
        let w = h.wallet
        _ = try await w.refill(passenger: p, amount: 100_000, paymentToken: "tok_visa", key: key("top-up"))

        // Fare below the estimate: the rest is released.
        #expect(try await w.holdFare(reference: "100001", passenger: p, estimate: 30_000, key: key("h1")) == .held(amount: 30_000))
        #expect(try await w.balance(of: p) == WalletBalance(available: 70_000, held: 30_000))
        let first = try await w.settleFare(reference: "100001", fare: 27_350, driver: d, key: key("s1"))
        #expect(first == TripPayment(method: "wallet", fare: 27_350, walletPaid: 27_350, cashPaid: 0, commission: 5_470))
        #expect(try await w.balance(of: p) == WalletBalance(available: 72_650, held: 0))
        // Repeating the settlement with its key answers the same; another key is refused.
        #expect(try await w.settleFare(reference: "100001", fare: 27_350, driver: d, key: key("s1")) == first)
        await #expect(throws: ServiceError.conflict("trip 100001 is already settled")) {
            _ = try await w.settleFare(reference: "100001", fare: 27_350, driver: d, key: key("s1-again"))
        }

        // Fare above the estimate, wallet can pay the extra.
        _ = try await w.holdFare(reference: "100002", passenger: p, estimate: 20_000, key: key("h2"))
        let second = try await w.settleFare(reference: "100002", fare: 25_000, driver: d, key: key("s2"))
        #expect(second == TripPayment(method: "wallet", fare: 25_000, walletPaid: 25_000, cashPaid: 0, commission: 5_000))
        #expect(try await w.balance(of: p).available == 47_650)

        // Fare above the estimate, wallet cannot: the hold is posted, the rest is cash.
        _ = try await w.holdFare(reference: "100003", passenger: p, estimate: 40_000, key: key("h3"))
        let third = try await w.settleFare(reference: "100003", fare: 50_000, driver: d, key: key("s3"))
        #expect(third == TripPayment(method: "wallet", fare: 50_000, walletPaid: 40_000, cashPaid: 10_000, commission: 10_000))
        #expect(try await w.balance(of: p).available == 7_650)

        // Too little for the estimate: pay cash; the driver owes the commission.
        #expect(try await w.holdFare(reference: "100004", passenger: p, estimate: 9_000, key: key("h4")) == .payCash(available: 7_650))
        let cash = try await w.settleFare(reference: "100004", fare: 9_100, driver: d, key: key("s4"))
        #expect(cash == TripPayment(method: "cash", fare: 9_100, walletPaid: 0, cashPaid: 9_100, commission: 1_820))
        #expect(try await w.balance(of: p).available == 7_650)

        // Cancelled: the hold is released whole.
        _ = try await w.holdFare(reference: "100005", passenger: p, estimate: 5_000, key: key("h5"))
        #expect(try await w.balance(of: p) == WalletBalance(available: 2_650, held: 5_000))
        try await w.releaseFare(reference: "100005", key: key("c5"))
        try await w.releaseFare(reference: "100005", key: key("c5"))
        #expect(try await w.balance(of: p) == WalletBalance(available: 7_650, held: 0))
        await #expect(throws: ServiceError.conflict("trip 100005 is already released")) {
            _ = try await w.settleFare(reference: "100005", fare: 1, driver: d, key: key("s5"))
        }
        await #expect(throws: ServiceError.conflict("trip 100001 already has a payment")) {
            _ = try await w.holdFare(reference: "100001", passenger: p, estimate: 1, key: key("h1-again"))
        }

        // The books, computed here independently: revenue is every commission; the driver
        // is owed what the wallet paid minus commissions; the escrow is empty.
        let rows = try await h.store.read { c in
            try c.query("SELECT id, credits_posted - debits_posted AS b FROM ledger_accounts", [])
        }
        var balances: [String: Int64] = [:]
        for row in rows { balances[try row.string("id")] = try row.int64("b") }
        let revenue: Int64 = 5_470 + 5_000 + 10_000 + 1_820
        let driverOwed: Int64 = (27_350 + 25_000 + 40_000) - (5_470 + 5_000 + 10_000) - 1_820
        // The company's accounts are in shards: each summed over its own.
        func company(_ kind: String) -> Int64 {
            balances.filter { $0.key == kind || $0.key.hasPrefix(kind + ":") }.values.reduce(0, +)
        }
        #expect(company("revenue") == revenue)
        #expect(company("escrow") == 0)
        #expect(balances["driver:\(d)"] == driverOwed)
        #expect(balances["wallet:\(p)"] == 7_650)
        try h.expectSoundLedger()
    }

    @Test("the commission is rounded half up to the minor unit", arguments: Engine.allCases)
    func commissionRounding(engine: Engine) async throws {
        guard let h = try Harness(engine, wallet: WalletSettings(commissionPercent: 15)) else { return }
        let admin = try await h.adminSession()
        let p = try await h.passenger(4).id
        let d = try await h.driver(2, adminSession: admin).id
        _ = try await h.wallet.refill(passenger: p, amount: 10_000, paymentToken: "tok_visa", key: .random())
        // 15 % of 10 is 1.5 → 2; of 13, 1.95 → 2; of 12, 1.8 → 2; of 3, 0.45 → 0; of 7, 1.05 → 1.
        for (i, (fare, commission)) in [(10, 2), (13, 2), (12, 2), (3, 0), (7, 1), (0, 0)].enumerated() {
            let ref = "20000\(i)"
            _ = try await h.wallet.holdFare(reference: ref, passenger: p, estimate: 20, key: .random())
            let paid = try await h.wallet.settleFare(reference: ref, fare: Int64(fare), driver: d, key: .random())
            #expect(paid.commission == Int64(commission), "fare \(fare)")
        }
        try h.expectSoundLedger()
    }

    @Test("a passenger and a driver without ledger accounts (made before accounts opened them) get them at the hold and the settlement", arguments: Engine.allCases)
    func accountsOpenedWhenMissing(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let admin = try await h.adminSession()
        let p = try await h.passenger(6).id
        let d = try await h.driver(3, adminSession: admin).id
        try await h.store.write { c in
            try c.execute("DELETE FROM ledger_accounts WHERE id IN (?, ?)", [.text("wallet:\(p)"), .text("driver:\(d)")])
        }
        // No wallet: nothing available, the trip is paid in cash, and the wallet now exists.
        #expect(try await h.wallet.holdFare(reference: "300001", passenger: p, estimate: 1_000, key: .random()) == .payCash(available: 0))
        #expect(try await h.wallet.balance(of: p) == WalletBalance(available: 0, held: 0))
        let count = { (id: String) in
            try await h.store.read { c in try c.query("SELECT id FROM ledger_accounts WHERE id = ?", [.text(id)]).count }
        }
        #expect(try await count("wallet:\(p)") == 1)
        // No driver account: the settlement opens it and books the cash commission against it.
        let paid = try await h.wallet.settleFare(reference: "300001", fare: 1_000, driver: d, key: .random())
        #expect(paid.commission > 0)
        #expect(try await count("driver:\(d)") == 1)
        try h.expectSoundLedger()
    }

    @Test("no balance goes negative, even when the code is bypassed: the schema refuses it", arguments: Engine.allCases)
    func schemaRefusesOverdraft(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let p = try await h.passenger(5).id
        _ = try await h.wallet.refill(passenger: p, amount: 1_000, paymentToken: "tok_visa", key: .random())
        var caught: (any Error)?
        do {
            try await h.store.write { c in
                try c.execute("UPDATE ledger_accounts SET debits_posted = debits_posted + 1001 WHERE id = ?", [.text("wallet:\(p)")])
            }
        } catch { caught = error }
        guard case .constraint = caught as? StoreError else { Issue.record("\(String(describing: caught))"); return }
        #expect(try await h.wallet.balance(of: p).available == 1_000)
    }
}

/// A gateway whose every charge waits for a 3-D Secure step that never comes.
struct StuckGateway: PaymentGateway {
    func charge(intent: String, amount: Int64, currency: String, paymentToken: String) async -> GatewayOutcome {
        .requiresAction(challenge: "https://3ds.example/\(intent)")
    }
    func status(of intent: String) async -> GatewayOutcome { .requiresAction(challenge: "https://3ds.example/\(intent)") }
}
