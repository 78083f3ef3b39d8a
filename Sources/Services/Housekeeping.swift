import Essentials
import Fleet
import Foundation
import Storage

/// What the store keeps and for how long: the purges a host runs on schedule.
///
/// Nothing here is money: ledger transfers and trip payments are kept for ever.
public struct RetentionSettings: Sendable, Equatable {
    /// Sessions that expired or were logged out are deleted this long after (a day: long
    /// enough to answer "why was I logged out").
    public var endedSessions: TimeInterval = 86_400
    /// Password-reset tokens that were used or expired, likewise.
    public var endedResets: TimeInterval = 86_400
    /// Stored answers to idempotency keys: a client retries within minutes, so 30 days is far
    /// past any retry. After it the same key is a new request.
    public var idempotencyAnswers: TimeInterval = 30 * 86_400
    /// Notifications that were sent.
    public var sentNotifications: TimeInterval = 30 * 86_400

    /// The defaults.
    public init() {}
}

/// The periodic purges: ended sessions and reset tokens, old idempotency answers and sent
/// notifications, and bookings past their retention (``Bookings/purgeHistory()``).
///
/// `Sendable`: immutable values and a `Sendable` store and clock.
public struct Housekeeping: Sendable {
    let store: any SQLStore
    let clock: any FleetClock
    /// How long things are kept.
    public let settings: RetentionSettings

    /// Housekeeping on `store`.
    public init(store: any SQLStore, clock: any FleetClock = SystemClock(), settings: RetentionSettings = RetentionSettings()) {
        self.store = store
        self.clock = clock
        self.settings = settings
    }

    /// Rows deleted by one run, by table.
    public struct Purged: Sendable, Equatable {
        /// Sessions.
        public var sessions = 0
        /// Password-reset tokens.
        public var resets = 0
        /// Idempotency answers.
        public var idempotency = 0
        /// Sent notifications.
        public var notifications = 0
        /// Registrations never verified, a day after their code expired.
        public var unverified = 0

        /// Nothing purged.
        public init() {}
    }

    /// Deletes what is past its time, in one transaction.
    @discardableResult
    public func run() async throws(ServiceError) -> Purged {
        let now = milliseconds(clock.now())
        let s = settings
        let sessions = now - Int64(s.endedSessions * 1000), resets = now - Int64(s.endedResets * 1000)
        let answers = now - Int64(s.idempotencyAnswers * 1000), sent = now - Int64(s.sentNotifications * 1000)
        return try await serviceCall {
            try await store.write { c in
                let accounts = AccountStatements(c)
                var purged = Purged()
                purged.sessions = try accounts.purgeSessions(endedBefore: sessions)
                purged.resets = try accounts.purgeResets(endedBefore: resets)
                purged.idempotency = try Idempotency.purge(c, before: answers)
                purged.notifications = try OutboxStatements(c).purge(before: sent)
                purged.unverified = try accounts.purgeUnverified(before: sessions)
                return purged
            }
        }
    }
}
