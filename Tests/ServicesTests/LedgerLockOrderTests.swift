import Storage
import TestSupport
import Testing
@testable import Services

/// Transfers between the same accounts in opposite orders, at once: the shape that deadlocks
/// a ledger locking rows in the order it meets them. No deadlock (nor serialization failure)
/// may reach a caller, and nothing is lost. Whatever the ledger's locking, this must hold.
@Suite("LedgerLockOrderTests: transfers in opposite orders on both stores")
struct LedgerLockOrderTests {
    @Test("eight writers move money both ways between two wallets and the revenue account: every transfer lands once",
          arguments: Engine.allCases)
    func oppositeOrders(engine: Engine) async throws {
        guard let scratch = try ScratchStore.make(engine) else { return }
        let store = scratch.store
        let a = Ledger.wallet(1), b = Ledger.wallet(2), revenue = Ledger.revenue(for: "trip:1")
        try await store.write { c in
            try Ledger.open(c, a, normal: .credit, noOverdraft: false)
            try Ledger.open(c, b, normal: .credit, noOverdraft: false)
        }
        let writers = 8, transfers = 20
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<writers {
                group.addTask {
                    for k in 0..<transfers {
                        // Even writers go a → b → revenue, odd ones revenue → b → a: each
                        // transaction touches the same three accounts, in opposite orders.
                        // Under row locks, as the bookings move money: the accounts locked
                        // first, all at once, then the transfers in the path's order.
                        let path = w.isMultiple(of: 2) ? [a, b, revenue] : [revenue, b, a]
                        try await store.write(isolation: .rowLocks) { c in
                            try Ledger.lock(c, path)
                            for (step, (from, to)) in zip(path, path.dropFirst()).enumerated() {
                                try Ledger.transfer(c, key: "w\(w)-t\(k)-s\(step)", from: from, to: to, amount: Int64(k + 1),
                                                    reference: "w\(w)-t\(k)", now: 0)
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let audit = try LedgerAudit.run(on: store)
        #expect(audit.isSound, "\(audit)")
        // Each direction carried 4 writers × (1 + … + 20) through each hop: every account nets to zero.
        let (count, balances) = try await store.read { c in
            (try c.first("SELECT count(*) AS n FROM ledger_transfers")!.int64("n"),
             try [a, b, revenue].map { try Ledger.balances(c, $0)!.posted })
        }
        #expect(count == Int64(writers * transfers * 2))
        #expect(balances == [0, 0, 0])
    }
}
