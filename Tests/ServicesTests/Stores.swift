import Foundation
import Fleet
import PostgresStorage
import SQLiteStorage
import Services
import Storage
import TaxiDispatch
import TestSupport
import Testing

/// The services on one scratch store with a manual clock, fast password hashing, the
/// test-mode gateway and a recording notifier.
struct Harness: Sendable {
    let scratch: ScratchStore
    /// The clock of every service, and the dispatcher's timers: advancing it runs what fell due.
    let clock: VirtualScheduler
    let notifier = RecordingNotifier()
    let gateway = TestModeGateway()
    let accounts: Accounts
    let wallet: Wallet

    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    init?(_ engine: Engine, wallet settings: WalletSettings = WalletSettings()) throws {
        guard let scratch = try ScratchStore.make(engine) else { return nil }
        self.scratch = scratch
        clock = VirtualScheduler(start: Self.start)
        accounts = Accounts(store: scratch.store, notifier: notifier, clock: clock, settings: AccountSettings(),
                            hasher: .fastForTests)
        wallet = Wallet(store: scratch.store, gateway: gateway, clock: clock, settings: settings)
    }

    var store: any SQLStore { scratch.store }

    /// Registers a passenger with a valid registration numbered `n`, verified with the code
    /// their phone (the recording notifier) received.
    func passenger(_ n: Int) async throws -> User {
        let receipt = try await accounts.register(Registration(
            name: "Passenger \(n)", mobile: String(format: "98%08d", n), email: "p\(n)@example.com",
            password: "correct horse \(n)", confirmation: "correct horse \(n)"))
        return try await accounts.verify(mobile: receipt.mobile, code: try #require(notifier.verificationCode(for: receipt.mobile)))
    }

    /// An admin session (the first admin is created without one).
    func adminSession() async throws -> String {
        let password = "Adm1n!pass-\(UUID().uuidString.prefix(6))"
        let admin = try await accounts.createAdmin(Registration(
            name: "Admin", mobile: "9000000001", email: "admin@example.com", password: password,
            confirmation: password), adminSession: nil)
        return try await accounts.logIn(mobile: admin.mobile, password: password).token
    }

    /// A driver created by an admin.
    func driver(_ n: Int, adminSession: String) async throws -> User {
        try await accounts.createDriver(Registration(
            name: "Driver \(n)", mobile: String(format: "97%08d", n), email: "d\(n)@example.com",
            password: "steady wheels \(n)", confirmation: "steady wheels \(n)"), adminSession: adminSession)
    }

    /// Checks the ledger's invariants from the transfers alone.
    func expectSoundLedger(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let audit = try LedgerAudit.run(on: store)
        #expect(audit.isSound, "ledger audit: \(audit)", sourceLocation: sourceLocation)
    }
}
