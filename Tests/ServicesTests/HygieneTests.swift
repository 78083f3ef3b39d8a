import Fleet
import Foundation
import Services
import Storage
import TaxiDispatch
import TestSupport
import Testing

/// A notifier that refuses the notifications of one kind up to an id, and records the rest.
final class RefusingNotifier: Notifier {
    let refused: NotificationKind, upTo: Int64
    let delivered = RecordingNotifier()
    init(refusing kind: NotificationKind, upTo id: Int64 = .max) { refused = kind; upTo = id }
    func send(_ notification: OutgoingNotification) async throws {
        if notification.kind == refused && notification.id <= upTo { throw CancellationError() }
        try await delivered.send(notification)
    }
}

@Suite("Hygiene: reset links that end, purges on schedule, an outbox that nothing blocks, a driver's old cab retired")
struct HygieneTests {
    @Test("a new reset, a password change or a reset that went through ends the older reset links", arguments: Engine.allCases)
    func olderResetTokensEnd(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let user = try await h.passenger(1)
        try await h.accounts.requestPasswordReset(email: user.email)
        let first = try #require(h.notifier.notifications.last?.fields["token"])
        try await h.accounts.requestPasswordReset(email: user.email)
        let second = try #require(h.notifier.notifications.last?.fields["token"])
        await #expect(throws: ServiceError.unauthorized("invalid or expired reset token")) {
            try await h.accounts.resetPassword(token: first, new: "a fresh ride 1", confirmation: "a fresh ride 1")
        }
        // A password change ends the second link too.
        let session = try await h.accounts.logIn(mobile: user.mobile, password: "correct horse 1")
        try await h.accounts.changePassword(session: session.token, old: "correct horse 1", new: "a fresh ride 2", confirmation: "a fresh ride 2")
        await #expect(throws: ServiceError.unauthorized("invalid or expired reset token")) {
            try await h.accounts.resetPassword(token: second, new: "a fresh ride 3", confirmation: "a fresh ride 3")
        }
        try await h.accounts.requestPasswordReset(email: user.email)
        let third = try #require(h.notifier.notifications.last?.fields["token"])
        try await h.accounts.resetPassword(token: third, new: "a fresh ride 4", confirmation: "a fresh ride 4")
        _ = try await h.accounts.logIn(mobile: user.mobile, password: "a fresh ride 4")
    }

    @Test("housekeeping purges ended sessions and reset tokens a day on, idempotency answers and sent notifications after 30 days", arguments: Engine.allCases)
    func purgesOnSchedule(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let user = try await h.passenger(2)
        let kept = try await h.accounts.logIn(mobile: user.mobile, password: "correct horse 2")
        let ended = try await h.accounts.logIn(mobile: user.mobile, password: "correct horse 2")
        try await h.accounts.logOut(ended.token)
        try await h.accounts.requestPasswordReset(email: user.email)
        _ = try await h.wallet.refill(passenger: user.id, amount: 10_000, paymentToken: "tok_visa", key: .random())
        _ = try await Outbox(store: h.store, clock: h.clock).deliver(through: RecordingNotifier())
        func count(_ table: String) async throws -> Int {
            // A table name is SQL, not a value: the string form, with no arguments.
            try await h.store.read { c in try c.first("SELECT COUNT(*) AS n FROM \(table)", [])!.int("n") }
        }
        let housekeeping = Housekeeping(store: h.store, clock: h.clock)
        #expect(try await housekeeping.run() == Housekeeping.Purged(), "nothing is old yet")
        h.clock.advance(by: 86_400 + 3_600)
        let day = try await housekeeping.run()
        #expect(day.sessions == 1 && day.resets == 1 && day.idempotency == 0 && day.notifications == 0, "\(day)")
        #expect(try await h.accounts.authenticate(kept.token).id == user.id, "the live session stays")
        let (answers, sent) = (try await count("idempotency"), try await count("outbox WHERE sent_ms IS NOT NULL"))
        #expect(answers > 0 && sent > 0)
        h.clock.advance(by: 30 * 86_400)
        let month = try await housekeeping.run()
        #expect(month.idempotency == answers && month.notifications == sent && month.sessions == 1, "the 30-day session expired: \(month)")
        // A registration nobody verified is gone a day after its code expired.
        _ = try await h.accounts.register(Registration(name: "Nobody", mobile: "9811111111", email: "n@example.com",
                                                       password: "never verified 1", confirmation: "never verified 1"))
        h.clock.advance(by: 15 * 60 + 86_400 + 1)
        #expect(try await housekeeping.run().unverified == 1)
        #expect(try await count("users WHERE verified_ms IS NULL") == 0)
        #expect(try await count("idempotency") == 0)
    }

    @Test("a notification that keeps failing is retried with a doubling wait, then set aside; the others behind it go out", arguments: Engine.allCases)
    func outboxNothingBlocks(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let user = try await h.passenger(3)
        _ = try await h.wallet.refill(passenger: user.id, amount: 10_000, paymentToken: "tok_visa", key: .random())
        let outbox = Outbox(store: h.store, clock: h.clock)
        let failing = try await h.store.read { c in try c.first("SELECT MAX(id) AS id FROM outbox")!.int64("id") }
        let notifier = RefusingNotifier(refusing: .walletRefilled, upTo: failing)
        #expect(try await outbox.deliver(through: notifier) == 0, "the refill notice fails first")
        // The next one, behind it, goes out at once: the failed one waits its turn.
        _ = try await h.wallet.refill(passenger: user.id, amount: 10_000, paymentToken: "tok_visa", key: .random())
        #expect(try await outbox.deliver(through: notifier) == 1 && notifier.delivered.notifications.map(\.id) == [failing + 1])
        var waits: [Int64] = []
        func attempts() async throws -> (Int64, Int64, Int64?) {
            try await h.store.read { c in
                let row = try c.first("SELECT attempts, next_attempt_ms, set_aside_ms FROM outbox WHERE kind = 'wallet-refilled' ORDER BY id LIMIT 1")!
                return (try row.int64("attempts"), try row.int64("next_attempt_ms"), try row.optionalInt64("set_aside_ms"))
            }
        }
        for _ in 0..<12 {
            let (_, next, aside) = try await attempts()
            if aside != nil { break }
            let now = Int64(h.clock.now().timeIntervalSince1970 * 1000)
            waits.append((next - now) / 1000)
            h.clock.advance(by: TimeInterval(max(0, next - now)) / 1000)
            _ = try await outbox.deliver(through: notifier)
        }
        let (tried, _, aside) = try await attempts()
        #expect(tried == Int64(Outbox.maximumAttempts) && aside != nil, "set aside after \(tried) attempts")
        #expect(waits == [10, 20, 40, 80, 160, 320, 640, 1280, 2560], "\(waits)")
        // Set aside, it is never tried again.
        h.clock.advance(by: 86_400)
        #expect(try await outbox.deliver(through: RecordingNotifier()) == 0)
    }

    @Test("a driver who changes cab leaves the old one out of the fleet; not in the middle of a trip", arguments: Engine.allCases)
    func changingCabRetiresTheOld(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let d = try await r.driver(1, at: Monaco.portHercule)
        #expect(r.bookings.dispatcher.fleet.allCabs().map(\.id) == ["cab-1"])
        try await r.bookings.startShift(driver: d, cab: CabProfile(id: "cab-1b", type: .sedan, seats: 4))
        #expect(r.bookings.dispatcher.fleet.allCabs().map(\.id) == ["cab-1b"])
        try r.bookings.report(driver: d, position: Monaco.portHercule, at: r.h.clock.now())
        try r.bookings.setAvailable(driver: d, true)
        // On a trip, the cab cannot be changed.
        let p = try await r.passenger(1, balance: 100_000)
        let b = try await r.bookings.bookNow(r.request(p), key: .random())
        try await r.accept(d)
        try await r.bookings.arrived(b.number, driver: d)
        try await r.bookings.started(b.number, driver: d)
        await #expect(throws: ServiceError.self) {
            try await r.bookings.startShift(driver: d, cab: CabProfile(id: "cab-1c", type: .sedan, seats: 4))
        }
        #expect(r.bookings.dispatcher.fleet.allCabs().map(\.id) == ["cab-1b"])
    }
}
