import Essentials
import Foundation
import Fleet
import Storage

/// What a notification is about.
public enum NotificationKind: String, Sendable, Codable, CaseIterable {
    /// A booking was accepted.
    case bookingConfirmed = "booking-confirmed"
    /// A cab and driver were allocated to a booking.
    case cabAllocated = "cab-allocated"
    /// A booking for later: the cab is allocated and arrives soon.
    case pickupNotice = "pickup-notice"
    /// A booking was cancelled.
    case bookingCancelled = "booking-cancelled"
    /// No cab could serve a booking: the reason.
    case bookingNotServed = "booking-not-served"
    /// The fare of a finished trip and how it was paid.
    case invoice
    /// A password reset was asked for; the message carries the single-use token.
    case passwordReset = "password-reset"
    /// Money was added to the wallet.
    case walletRefilled = "wallet-refilled"
    /// The one-time code that activates a new account, sent to its mobile number.
    case verificationCode = "verification-code"
    /// Someone tried to register with this account's mobile number or e-mail address.
    case registrationAttempt = "registration-attempt"
}

/// A message to one user.
public struct OutgoingNotification: Sendable, Equatable {
    /// The outbox row's id.
    public var id: Int64
    /// The user it is for.
    public var user: Int64?
    /// What it is about.
    public var kind: NotificationKind
    /// Its fields (booking id, amounts…), as text.
    public var fields: [String: String]
}

/// Sends notifications: SMS, e-mail or push, whatever the company uses.
///
/// `Sendable`: called from any task. Delivery is at least once: a notifier may see the same
/// ``OutgoingNotification/id`` again after a crash, and should drop repeats by id.
public protocol Notifier: Sendable {
    /// Sends one notification; throws when it could not, and it is tried again later.
    func send(_ notification: OutgoingNotification) async throws
}

/// The notification outbox: services write notifications in the same transaction as the
/// change they announce, and ``deliver(through:limit:)`` sends them afterwards, outside
/// any transaction.
///
/// Why an outbox: a message sent inside a transaction that then rolls back announces
/// something that never happened, and one sent after the commit is lost if the process
/// dies in between. The outbox row commits with the change and is sent until it is marked.
public struct Outbox: Sendable {
    let store: any SQLStore
    let clock: any FleetClock

    /// The outbox of `store`.
    public init(store: any SQLStore, clock: any FleetClock = SystemClock()) {
        self.store = store
        self.clock = clock
    }

    /// Attempts before a notification is set aside (about two hours of retries).
    public static let maximumAttempts = 10

    /// Seconds to wait before attempt `n + 1` after `n` failed ones: 10 s, doubling, at most an
    /// hour.
    static func backoff(afterAttempts n: Int64) -> Int64 { min(3_600, 10 << min(max(n - 1, 0), 12)) }

    /// Sends up to `limit` notifications that are due, oldest due first, and marks each one
    /// sent.
    ///
    /// A notification whose send throws is tried again later, after a wait that doubles with
    /// each failure (10 s, doubling, at most an hour); after ``maximumAttempts`` it is set aside
    /// (`set_aside_ms`) for the operations team, so that one that keeps failing never holds
    /// back the others.
    ///
    /// Password-reset messages are the exception: their token is stored only as a hash, so
    /// the outbox row records that one was issued and ``Accounts`` sends it itself, with the
    /// token it holds in memory, right after the commit. If that send fails the passenger
    /// asks again; the unused token expires.
    /// Returns how many were sent.
    @discardableResult
    public func deliver(through notifier: any Notifier, limit: Int = 100) async throws(ServiceError) -> Int {
        let due = milliseconds(clock.now())
        let batch = try await serviceCall {
            try await store.read { c in
                try OutboxStatements(c).due(at: due, limit: max(1, limit)).map { record in
                    (OutgoingNotification(id: record.id, user: record.userID, kind: NotificationKind(rawValue: record.kind) ?? .invoice,
                                          fields: try Idempotency.decode([String: String].self, record.payload)),
                     record.attempts)
                }
            }
        }
        var sent = 0
        for (notification, attempts) in batch {
            let delivered: Bool
            do {
                try await notifier.send(notification)
                delivered = true
            } catch {
                delivered = false
            }
            let now = milliseconds(clock.now())
            let tried = attempts + 1
            try await serviceCall {
                try await store.write { c in
                    let outbox = OutboxStatements(c)
                    if delivered {
                        try outbox.markSent(notification.id, at: now, attempts: tried)
                    } else if tried >= Int64(Self.maximumAttempts) {
                        try outbox.setAside(notification.id, at: now, attempts: tried)
                    } else {
                        try outbox.retry(notification.id, at: now + Self.backoff(afterAttempts: tried) * 1000, attempts: tried)
                    }
                }
            }
            if delivered { sent += 1 }
        }
        return sent
    }

    /// Writes a notification inside the caller's transaction; returns its id.
    @discardableResult
    static func enqueue(_ c: any SQLConnection, user: Int64?, kind: NotificationKind, payload: [String: String],
                        now: Int64, sent: Bool = false) throws -> Int64 {
        try OutboxStatements(c).insert(user: user, kind: kind.rawValue, payload: try Idempotency.encode(payload), at: now,
                                       sent: sent ? now : nil)
    }
}

/// A notifier that keeps what it was given, for tests and the demo.
///
/// `Sendable`: its list sits behind a lock.
public final class RecordingNotifier: Notifier {
    private let sent = Locked<[OutgoingNotification]>([])

    /// An empty recorder.
    public init() {}

    /// Records `notification`.
    public func send(_ notification: OutgoingNotification) async throws {
        sent.withLock { $0.append(notification) }
    }

    /// What was sent, in order.
    public var notifications: [OutgoingNotification] { sent.withLock { $0 } }

    /// The latest verification code sent to `mobile` (the ten digits), for a program that
    /// stands in for the passenger's phone: a simulation, a test, the demo.
    public func verificationCode(for mobile: String) -> String? {
        notifications.last { $0.kind == .verificationCode && $0.fields["mobile"] == mobile }?.fields["code"]
    }
}

/// Phones that receive one-time codes: keeps the latest verification code of each mobile
/// number and passes every notification on to `next` (if any). For a program that stands in
/// for its passengers' phones (a simulation, a benchmark) and for a server on test SMS,
/// which gives the code back in the registration's answer. At most 100,000 numbers are kept
/// (by then the oldest codes have expired).
///
/// `Sendable`: the codes sit behind a lock; the next notifier is `Sendable`.
public final class PhoneInbox: Notifier {
    let next: (any Notifier)?
    let codes = Locked<[String: String]>([:])

    /// An inbox that passes notifications on to `next`.
    public init(forwardingTo next: (any Notifier)? = nil) { self.next = next }

    /// Keeps a verification code; passes the notification on.
    public func send(_ notification: OutgoingNotification) async throws {
        if notification.kind == .verificationCode, let mobile = notification.fields["mobile"], let code = notification.fields["code"] {
            codes.withLock { codes in
                if codes.count >= 100_000 { codes.removeAll(keepingCapacity: true) }
                codes[mobile] = code
            }
        }
        try await next?.send(notification)
    }

    /// The latest code sent to `mobile` (ten digits).
    public func code(for mobile: String) -> String? { codes.withLock { $0[mobile] } }
}
