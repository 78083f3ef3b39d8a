import Crypto
import Essentials
import Fleet
import Foundation
import Storage

/// Registration, login, sessions, password changes and resets, and suspensions
/// (000 UC01–04, 003, 004).
///
/// Passwords are hashed with scrypt (``PasswordHasher``) outside any transaction (a hash
/// takes a tenth of a second on purpose); tokens are 256 random bits stored as SHA-256
/// hashes, so a copy of the database lets no one log in or reset a password.
///
/// `Sendable`: every stored property is immutable and `Sendable`.
public struct Accounts: Sendable {
    let store: any SQLStore
    let clock: any FleetClock
    let hasher: PasswordHasher
    let notifier: any Notifier
    /// Passwords checked so far (a reference: every copy of this value counts together).
    let checks = Locked(0)
    /// The settings.
    public let settings: AccountSettings

    /// The accounts service on `store` (migrated to ``ServiceSchema``); password-reset
    /// tokens go out through `notifier`.
    public init(store: any SQLStore, notifier: any Notifier, clock: any FleetClock = SystemClock(),
                settings: AccountSettings = AccountSettings()) {
        self.init(store: store, notifier: notifier, clock: clock, settings: settings, hasher: .standard)
    }

    package init(store: any SQLStore, notifier: any Notifier, clock: any FleetClock, settings: AccountSettings,
                 hasher: PasswordHasher) {
        self.store = store
        self.clock = clock
        self.hasher = hasher
        self.notifier = notifier
        self.settings = settings
    }

    private var now: Int64 { milliseconds(clock.now()) }

    // MARK: Registration

    /// Registers a passenger (000 UC01): the account exists from now, and becomes active
    /// once the one-time code sent to its mobile number comes back (``verify(mobile:code:)``),
    /// as cab apps do: nobody registers a number they cannot receive texts on.
    ///
    /// The answer is the same whether or not the mobile number or e-mail address is taken,
    /// and so is the work behind it, so that registering tells nobody who has an account. When
    /// one is taken, its owner is told that someone tried (a ``NotificationKind/registrationAttempt``)
    /// and no code is sent. A registration that was never verified does not hold its number:
    /// registering again replaces it and sends a new code.
    ///
    /// - Throws: ``ServiceError/invalid(field:reason:)`` naming the field: a name longer
    ///   than 32 characters, a mobile number that is not 10 digits, an invalid e-mail, a
    ///   password shorter than 8 characters or among the common ones, a confirmation that
    ///   differs.
    public func register(_ registration: Registration) async throws(ServiceError) -> RegistrationReceipt {
        let name = try Validate.text(registration.name, field: "name", maximum: Registration.maximumNameLength)
        let mobile = try Validate.mobile(registration.mobile)
        let email = try Validate.email(registration.email)
        try PasswordPolicy.check(registration.password, confirmation: registration.confirmation, role: .passenger)
        let hasher = self.hasher, password = registration.password
        let hash = try await serviceCall { try await offThePool { try hasher.hash(password) } }
        let now = self.now
        let expires = now + Int64(settings.codeLifetime.components.seconds) * 1000
        let code = Self.newCode()
        enum Outcome: Sendable { case created(user: Int64, outbox: Int64), taken(owners: [Int64], outbox: [Int64]) }
        let outcome = try await serviceCall {
            try await store.write { c -> Outcome in
                let accounts = AccountStatements(c)
                let holders = try accounts.holders(mobile: mobile, email: email)
                let owners = holders.filter { $0.verifiedMs != nil }.map(\.id)
                if !owners.isEmpty {
                    let outbox = try owners.map { owner in
                        try Outbox.enqueue(c, user: owner, kind: .registrationAttempt, payload: ["at": "\(now)"], now: now)
                    }
                    return .taken(owners: owners, outbox: outbox)
                }
                // Registrations never verified hold nothing: the new one replaces them.
                for holder in holders { try accounts.deleteUnverified(holder.id) }
                let id = try accounts.insertUser(role: .passenger, name: name, mobile: mobile, email: email, passwordHash: hash,
                                                 at: now, verified: nil)
                try accounts.insertCode(mobile: mobile, user: id, codeHash: Self.codeHash(mobile: mobile, code: code), expires: expires)
                let outbox = try Outbox.enqueue(c, user: id, kind: .verificationCode, payload: ["expires": "\(expires)"], now: now)
                return .created(user: id, outbox: outbox)
            }
        }
        // Sent here, after the commit: only this process knows the code. Both branches send one
        // message and mark it, so that the two take the same time.
        switch outcome {
        case let .created(user, outbox):
            await deliver(OutgoingNotification(id: outbox, user: user, kind: .verificationCode,
                                               fields: ["mobile": mobile, "code": code, "expires": "\(expires)"]))
        case let .taken(owners, outbox):
            for (owner, id) in zip(owners, outbox) {
                await deliver(OutgoingNotification(id: id, user: owner, kind: .registrationAttempt, fields: ["at": "\(now)"]))
            }
        }
        return RegistrationReceipt(mobile: mobile, codeExpires: date(milliseconds: expires))
    }

    /// Activates the account registered with `mobile` with the code sent to it, and returns
    /// it. A code works once, for ``AccountSettings/codeLifetime``, and five wrong tries void it.
    /// - Throws: ``ServiceError/unauthorized(_:)`` ("invalid or expired code") for a wrong,
    ///   used, expired or voided code, or a number with no registration waiting: one answer for all.
    public func verify(mobile: String, code: String) async throws(ServiceError) -> User {
        let refused = ServiceError.unauthorized("invalid or expired code")
        guard let mobile = try? Validate.mobile(mobile), code.utf8.count == 6, code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw refused
        }
        let now = self.now
        enum Outcome: Sendable { case verified(User), wrong }
        let outcome = try await serviceCall {
            try await store.write { c -> Outcome in
                let accounts = AccountStatements(c)
                guard let waiting = try accounts.code(mobile: mobile), waiting.expiresMs > now, waiting.attempts < 5 else { return .wrong }
                guard Self.constantTimeEqual(waiting.codeHash, Self.codeHash(mobile: mobile, code: code)) else {
                    try accounts.countWrongCode(mobile: mobile)
                    return .wrong
                }
                let id = waiting.userID
                try accounts.deleteCode(mobile: mobile)
                try accounts.markVerified(id, at: now)
                try Ledger.open(c, Ledger.wallet(id), normal: .credit, noOverdraft: true)
                guard let user = try accounts.user(id) else { return .wrong }
                return .verified(user.user)
            }
        }
        guard case .verified(let user) = outcome else { throw refused }
        return user
    }

    /// Sends `message` and marks its outbox row sent; a send that fails leaves the row for the
    /// outbox's retries to account for (a code is never resent from the row: it is not stored).
    private func deliver(_ message: OutgoingNotification) async {
        guard (try? await notifier.send(message)) != nil else { return }
        let sentAt = self.now
        _ = try? await serviceCall {
            try await store.write { c in
                try OutboxStatements(c).markDelivered(message.id, at: sentAt)
            }
        }
    }

    /// Creates a driver's account (004: drivers are created by the company), on an admin's
    /// session.
    public func createDriver(_ registration: Registration, adminSession: String) async throws(ServiceError) -> User {
        _ = try await authenticate(adminSession, role: .admin)
        return try await create(registration, role: .driver)
    }

    /// Creates an admin account; the first admin is made by the `wayfare` command line, later
    /// ones on an admin's session. Admin passwords need 10 characters with letters, digits
    /// and symbols (004).
    public func createAdmin(_ registration: Registration, adminSession: String?) async throws(ServiceError) -> User {
        if let adminSession {
            _ = try await authenticate(adminSession, role: .admin)
        } else {
            let admins = try await serviceCall {
                try await store.read { c in try AccountStatements(c).count(role: .admin) }
            }
            guard admins == 0 else { throw .forbidden("only an admin may create another admin") }
        }
        return try await create(registration, role: .admin)
    }

    /// An account made by an admin (a driver or an admin), active at once: the admin vouches
    /// for the number, and a taken one is refused by name (an admin may know who is registered).
    private func create(_ registration: Registration, role: Role) async throws(ServiceError) -> User {
        let name = try Validate.text(registration.name, field: "name", maximum: Registration.maximumNameLength)
        let mobile = try Validate.mobile(registration.mobile)
        let email = try Validate.email(registration.email)
        try PasswordPolicy.check(registration.password, confirmation: registration.confirmation, role: role)
        let hasher = self.hasher, password = registration.password
        let hash = try await serviceCall { try await offThePool { try hasher.hash(password) } }
        let now = self.now
        return try await serviceCall {
            try await store.write { c -> User in
                // Checked first, so the answer names the field; the UNIQUE constraints stay
                // as the guard against a race between two registrations.
                let accounts = AccountStatements(c)
                if try accounts.isTaken(email: email) {
                    throw ServiceError.invalid(field: "email", reason: "e-mail is already registered")
                }
                if try accounts.isTaken(mobile: mobile) {
                    throw ServiceError.invalid(field: "mobile", reason: "mobile number is already registered")
                }
                let id = try accounts.insertUser(role: role, name: name, mobile: mobile, email: email, passwordHash: hash,
                                                 at: now, verified: now)
                if role == .driver {
                    try Ledger.open(c, Ledger.driver(id), normal: .credit, noOverdraft: false)
                }
                return User(id: id, role: role, name: name, mobile: mobile, email: email, suspendedUntil: nil)
            }
        }
    }

    // MARK: Login and sessions

    /// Logs in by mobile number and password (000 UC02).
    ///
    /// - Throws: ``ServiceError/unauthorized(_:)`` for a wrong mobile number or password (the
    ///   same message for both); ``ServiceError/suspended(until:)`` on the third failure in
    ///   a row and until the suspension ends, even with the right password.
    public func logIn(mobile: String, password: String) async throws(ServiceError) -> Session {
        let mobile = (try? Validate.mobile(mobile)) ?? ""
        let (user, verified) = try await verifyPassword(mobile: mobile, password: password)
        // Said only to whoever knows the password.
        guard verified else { throw .forbidden("verify the mobile number first: enter the code sent to it") }
        let token = Self.newToken()
        let now = self.now
        let expires = now + Int64(settings.sessionLifetime.components.seconds) * 1000
        try await serviceCall {
            try await store.write { c in
                try AccountStatements(c).insertSession(tokenHash: Self.tokenHash(token), user: user.id, at: now, expires: expires)
            }
        }
        return Session(token: token, user: user, expires: date(milliseconds: expires))
    }

    /// The user of a session token.
    /// - Throws: ``ServiceError/unauthorized(_:)`` when the token is unknown, expired or
    ///   logged out; ``ServiceError/forbidden(_:)`` when `role` is given and differs.
    public func authenticate(_ token: String, role: Role? = nil) async throws(ServiceError) -> User {
        guard (try? Validate.token(token, field: "token")) != nil else { throw .unauthorized("invalid session") }
        let now = self.now
        let user = try await serviceCall {
            try await store.read { c -> User? in
                try AccountStatements(c).user(session: Self.tokenHash(token), at: now)?.user
            }
        }
        guard let user else { throw .unauthorized("invalid session") }
        if let role, user.role != role { throw .forbidden("this needs the \(role.rawValue) role") }
        return user
    }

    /// Ends a session; ending one that already ended is not an error.
    public func logOut(_ token: String) async throws(ServiceError) {
        guard (try? Validate.token(token, field: "token")) != nil else { return }
        let now = self.now
        try await serviceCall {
            try await store.write { c in
                try AccountStatements(c).endSession(tokenHash: Self.tokenHash(token), at: now)
            }
        }
    }

    /// Changes the password of a session's user (000 UC03); the same lockout as login
    /// guards the old password. Every other session of the user ends.
    public func changePassword(session: String, old: String, new: String, confirmation: String) async throws(ServiceError) {
        let user = try await authenticate(session)
        try PasswordPolicy.check(new, confirmation: confirmation, role: user.role)
        _ = try await verifyPassword(mobile: user.mobile, password: old)
        try await setPassword(user: user.id, to: new, keeping: session)
    }

    /// Asks for a password reset (000 UC04): when `email` is registered, a single-use token
    /// valid for ``AccountSettings/resetLifetime`` goes to the user through the notifier.
    /// The answer is the same whether or not the address is registered, so that it tells no
    /// one who has an account.
    public func requestPasswordReset(email: String) async throws(ServiceError) {
        guard let email = try? Validate.email(email) else { return }
        let token = Self.newToken()
        let now = self.now
        let expires = now + Int64(settings.resetLifetime.components.seconds) * 1000
        let issued = try await serviceCall {
            try await store.write { c -> (user: Int64, outbox: Int64)? in
                let accounts = AccountStatements(c)
                guard let user = try accounts.verifiedUser(email: email) else {
                    // The same transaction's work as for a known address.
                    try Self.probe(c, name: email, now: now)
                    return nil
                }
                // A new reset ends the older ones: only the latest link works.
                try accounts.endResets(of: user, at: now)
                try accounts.insertReset(tokenHash: Self.tokenHash(token), user: user, at: now, expires: expires)
                let outbox = try Outbox.enqueue(c, user: user, kind: .passwordReset,
                                                payload: ["expires": "\(expires)"], now: now)
                return (user, outbox)
            }
        }
        guard let issued else {
            // The second write a known address's reset makes (marking its message sent).
            _ = try? await serviceCall { try await store.write { c in try Self.probe(c, name: email, now: now) } }
            return
        }
        // Sent here, after the commit, because only this process knows the token.
        await deliver(OutgoingNotification(id: issued.outbox, user: issued.user, kind: .passwordReset,
                                           fields: ["token": token, "expires": "\(expires)"]))
    }

    /// Sets a new password with a reset token; the token works once, and every session of
    /// the user ends. A reset also lifts a suspension.
    public func resetPassword(token: String, new: String, confirmation: String) async throws(ServiceError) {
        guard (try? Validate.token(token, field: "token")) != nil else { throw .unauthorized("invalid or expired reset token") }
        let now = self.now
        let found = try await serviceCall {
            try await store.read { c -> (Int64, Role)? in
                try AccountStatements(c).reset(tokenHash: Self.tokenHash(token), at: now).map { ($0.userID, $0.role) }
            }
        }
        guard let (user, role) = found else { throw .unauthorized("invalid or expired reset token") }
        try PasswordPolicy.check(new, confirmation: confirmation, role: role)
        let hasher = self.hasher
        let hash = try await serviceCall { try await offThePool { try hasher.hash(new) } }
        try await serviceCall {
            try await store.write { c in
                // Marked used in the same transaction, and only if still unused: two
                // concurrent resets with one token cannot both succeed.
                let accounts = AccountStatements(c)
                guard try accounts.useReset(tokenHash: Self.tokenHash(token), at: now) else {
                    throw ServiceError.unauthorized("invalid or expired reset token")
                }
                try accounts.resetPassword(user, to: hash)
                try accounts.endResets(of: user, at: now)
                try accounts.endSessions(of: user, keeping: nil, at: now)
            }
        }
    }

    // MARK: Suspensions

    /// The accounts suspended now (for an admin).
    public func suspendedAccounts(adminSession: String) async throws(ServiceError) -> [User] {
        _ = try await authenticate(adminSession, role: .admin)
        let now = self.now
        return try await serviceCall {
            try await store.read { c in
                try AccountStatements(c).suspended(at: now).map(\.user)
            }
        }
    }

    /// Lifts the suspension of `user` (for an admin).
    public func liftSuspension(of user: Int64, adminSession: String) async throws(ServiceError) {
        _ = try await authenticate(adminSession, role: .admin)
        try await serviceCall {
            try await store.write { c in
                guard try AccountStatements(c).clearAttempts(user) else { throw ServiceError.notFound("user \(user)") }
            }
        }
    }

    /// A user by id.
    public func user(_ id: Int64) async throws(ServiceError) -> User {
        let found = try await serviceCall {
            try await store.read { c in
                try AccountStatements(c).user(id)?.user
            }
        }
        guard let found else { throw .notFound("user \(id)") }
        return found
    }

    // MARK: Internals

    /// Checks a password with the lockout.
    ///
    /// The attempt is counted before its password is checked, in the transaction that reads
    /// the account: `failed_attempts` goes up by one only while it is below the maximum, so
    /// however many attempts arrive at once, at most ``AccountSettings/maximumFailedAttempts``
    /// passwords are ever evaluated before a success or the suspension. A success sets the
    /// count back to zero; a failure that finds the count at the maximum suspends the account.
    /// An attempt that finds every place taken (three guesses in flight) is answered as a wrong
    /// password after the same hashing work, so the answer tells nothing more than the others.
    /// An attempt whose process died after counting it stays counted: a failure, which errs
    /// on the side of the account.
    /// Returns the user and whether their mobile number is verified (read in the same row).
    private func verifyPassword(mobile: String, password: String) async throws(ServiceError) -> (User, verified: Bool) {
        let now = self.now
        let maximum = Int64(settings.maximumFailedAttempts)
        enum Admission { case unknown, suspended(Int64), full, admitted(User, String, verified: Bool) }
        let admission = try await serviceCall {
            try await store.write { c -> Admission in
                let accounts = AccountStatements(c)
                guard let found = try accounts.signIn(mobile: mobile) else {
                    try Self.probe(c, name: mobile, now: now)
                    return .unknown
                }
                if let until = found.suspendedUntilMs, until > now { return .suspended(until) }
                guard try accounts.countAttempt(found.id, maximum: maximum) else { return .full }
                return .admitted(found.user, found.passwordHash, verified: found.verifiedMs != nil)
            }
        }
        let hasher = self.hasher
        let user: User, stored: String, verified: Bool
        switch admission {
        case .suspended(let until):
            throw .suspended(until: date(milliseconds: until))
        case .unknown, .full:
            // The same work as a wrong password: a hash, and a second write.
            _ = try? await offThePool { try hasher.hash(password.isEmpty ? "-" : password) }
            _ = try? await serviceCall { try await store.write { c in try Self.probe(c, name: mobile, now: now) } }
            throw .unauthorized("wrong mobile number or password")
        case .admitted(let u, let s, let v):
            user = u
            stored = s
            verified = v
        }
        checks.withLock { $0 += 1 }
        let matches = try await serviceCall { try await offThePool { hasher.verify(password, against: stored) } }
        let suspendUntil = now + Int64(settings.suspension.components.seconds) * 1000
        if !matches {
            let suspended = try await serviceCall {
                try await store.write { c -> Int64? in
                    let accounts = AccountStatements(c)
                    if try accounts.suspend(user.id, until: suspendUntil, ifAttemptsReach: maximum) { return suspendUntil }
                    // Another attempt of the same burst suspended it already.
                    return try accounts.suspension(of: user.id).flatMap { $0 > now ? $0 : nil }
                }
            }
            if let suspended { throw .suspended(until: date(milliseconds: suspended)) }
            throw .unauthorized("wrong mobile number or password")
        }
        let upgraded = hasher.needsUpgrade(stored)
            ? try await serviceCall { try await offThePool { try hasher.hash(password) } } : nil
        try await serviceCall {
            try await store.write { c in
                let accounts = AccountStatements(c)
                try accounts.clearAttempts(user.id)
                if let upgraded { try accounts.upgradePasswordHash(user.id, from: stored, to: upgraded) }
            }
        }
        var fresh = user
        fresh.suspendedUntil = nil
        return (fresh, verified)
    }

    /// How many passwords this service has checked against a stored hash (the lockout test
    /// counts the guesses that were evaluated).
    package var passwordsChecked: Int { checks.withLock { $0 } }

    private func setPassword(user: Int64, to password: String, keeping session: String) async throws(ServiceError) {
        let hasher = self.hasher
        let hash = try await serviceCall { try await offThePool { try hasher.hash(password) } }
        let now = self.now
        try await serviceCall {
            try await store.write { c in
                let accounts = AccountStatements(c)
                try accounts.setPasswordHash(user, to: hash)
                try accounts.endResets(of: user, at: now)
                try accounts.endSessions(of: user, keeping: Self.tokenHash(session), at: now)
            }
        }
    }

    /// Records a try at a login name that matches no account: a write like the one a known
    /// account's try makes, so that the two cost the same (the table is purged daily).
    static func probe(_ c: any SQLConnection, name: String, now: Int64) throws {
        try AccountStatements(c).probe(nameHash: Idempotency.hash("probe:" + name), at: now)
    }

    /// Six random decimal digits.
    static func newCode() -> String {
        var rng = SystemRandomNumberGenerator()
        return String(format: "%06d", Int.random(in: 0...999_999, using: &rng))
    }

    /// How a code is stored: tied to its number, hashed.
    static func codeHash(mobile: String, code: String) -> String { Idempotency.hash("code:\(mobile):\(code)") }

    /// Equal strings, compared in time that does not depend on where they differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// 256 random bits, base64url without padding.
    static func newToken() -> String {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// How a token is stored: its SHA-256, in hex. A token is 256 random bits, so a fast hash
    /// is enough (no dictionary to try); a password is not, hence scrypt for those.
    static func tokenHash(_ token: String) -> String { Idempotency.hash("token:" + token) }
}

/// Checks on users inside another service's transaction.
enum Users {
    /// Throws ``ServiceError/notFound(_:)`` ("passenger 42") unless user `id` exists with `role`.
    static func require(_ c: any SQLConnection, _ id: Int64, role: Role, locked: Bool = false) throws {
        guard try AccountStatements(c).exists(id, role: role, locked: locked) else {
            throw ServiceError.notFound("\(role.rawValue) \(id)")
        }
    }
}
