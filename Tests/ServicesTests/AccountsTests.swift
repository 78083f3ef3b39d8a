import Foundation
import Services
import Storage
import TestSupport
import Testing

@Suite("Accounts: registration, login, lockout, sessions, resets (000 UC01–04, 004)")
struct AccountsTests {
    func registration(name: String = "Asha Rao", mobile: String = "9876543210", email: String = "asha@example.com",
                      password: String = "monsoon-ride-42", confirmation: String? = nil) -> Registration {
        Registration(name: name, mobile: mobile, email: email, password: password, confirmation: confirmation ?? password)
    }

    func expectInvalid(_ field: String, _ reason: String? = nil, _ work: () async throws -> Void,
                       sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            try await work()
            Issue.record("accepted; expected \(field) to be refused", sourceLocation: sourceLocation)
        } catch ServiceError.invalid(let f, let r) {
            #expect(f == field, "\(r)", sourceLocation: sourceLocation)
            if let reason { #expect(r == reason, sourceLocation: sourceLocation) }
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("registration rules: name, mobile, e-mail, password policy, confirmation", arguments: Engine.allCases)
    func registrationRules(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let a = h.accounts
        await expectInvalid("name") { _ = try await a.register(registration(name: String(repeating: "n", count: 33))) }
        await expectInvalid("name") { _ = try await a.register(registration(name: "   ")) }
        await expectInvalid("name") { _ = try await a.register(registration(name: "bell\u{7}")) }
        await expectInvalid("mobile") { _ = try await a.register(registration(mobile: "987654321")) }
        await expectInvalid("mobile") { _ = try await a.register(registration(mobile: "98765432101")) }
        await expectInvalid("mobile") { _ = try await a.register(registration(mobile: "98765abcde")) }
        await expectInvalid("mobile") { _ = try await a.register(registration(mobile: "９８７６５４３２１０")) }
        for email in ["", "asha", "asha@", "@example.com", "asha@example", "as ha@example.com", "asha@exa_mple.com",
                      "a@b..com", "asha@-example.com", "'; DROP TABLE users;--@x.com"] {
            await expectInvalid("email") { _ = try await a.register(registration(email: email)) }
        }
        await expectInvalid("password", "must be at least 8 characters") { _ = try await a.register(registration(password: "s3cr3t!")) }
        await expectInvalid("password", "is one of the most common passwords; choose another") {
            _ = try await a.register(registration(password: "password1"))
        }
        await expectInvalid("password") { _ = try await a.register(registration(password: "QWERTYUIOP")) }
        await expectInvalid("password") { _ = try await a.register(registration(password: String(repeating: "x", count: 129))) }
        await expectInvalid("confirmation") { _ = try await a.register(registration(confirmation: "monsoon-ride-43")) }
        #expect(try await h.store.read { c in try c.first("SELECT COUNT(*) AS n FROM users")!.int("n") } == 0)

        // 32 characters, any characters in the password (spaces, non-ASCII): accepted, and
        // active once the code sent to the mobile number comes back.
        let receipt = try await a.register(registration(name: String(repeating: "ñ", count: 32), mobile: "98765-43210",
                                                        email: "Asha@Example.COM", password: "मानसून की सवारी"))
        #expect(receipt.mobile == "9876543210")
        let code = try #require(h.notifier.verificationCode(for: "9876543210"))
        let user = try await a.verify(mobile: "9876543210", code: code)
        #expect(user.mobile == "9876543210")
        #expect(user.email == "asha@example.com")
        #expect(user.role == .passenger)
        // Taken: the same answer as a free number, no second account, and the owner is told.
        let taken = try await a.register(registration(mobile: "9123456789", email: "ASHA@example.com"))
        #expect(taken.mobile == "9123456789" && h.notifier.verificationCode(for: "9123456789") == nil)
        _ = try await a.register(registration(email: "other@example.com"))
        #expect(h.notifier.notifications.filter { $0.kind == .registrationAttempt }.map(\.user) == [user.id, user.id])
        #expect(try await h.store.read { c in try c.first("SELECT COUNT(*) AS n FROM users")!.int("n") } == 1)
        // Stored only as an scrypt hash with its parameters.
        let stored = try await h.store.read { c in try c.first("SELECT password_hash FROM users")!.string("password_hash") }
        #expect(stored.hasPrefix("scrypt$10$8$1$"))
        #expect(!stored.contains("मानसून"))
    }

    @Test("an account is active only with the code sent to its mobile: wrong, expired and used codes fail alike; a number never verified holds nothing", arguments: Engine.allCases)
    func verification(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let a = h.accounts
        let mobile = "9812345670"
        _ = try await a.register(registration(mobile: mobile, email: "squatter@example.com", password: "not my number 1"))
        let squatterCode = try #require(h.notifier.verificationCode(for: mobile))
        // Unverified: the password is right but the account is not active.
        await #expect(throws: ServiceError.forbidden("verify the mobile number first: enter the code sent to it")) {
            _ = try await a.logIn(mobile: mobile, password: "not my number 1")
        }
        // The number's owner registers it too: the unverified registration is replaced.
        _ = try await a.register(registration(mobile: mobile, email: "owner@example.com", password: "my own number 2"))
        let code = try #require(h.notifier.verificationCode(for: mobile))
        let refused = ServiceError.unauthorized("invalid or expired code")
        await #expect(throws: refused) { _ = try await a.verify(mobile: mobile, code: squatterCode == code ? "000000" : squatterCode) }
        await #expect(throws: refused) { _ = try await a.verify(mobile: mobile, code: "12345") }
        await #expect(throws: refused) { _ = try await a.verify(mobile: "9999999999", code: code) }
        let owner = try await a.verify(mobile: mobile, code: code)
        #expect(owner.email == "owner@example.com")
        await #expect(throws: refused) { _ = try await a.verify(mobile: mobile, code: code) }
        _ = try await a.logIn(mobile: mobile, password: "my own number 2")
        // Five wrong tries void a code; an expired one fails the same way.
        _ = try await a.register(registration(mobile: "9812345671", email: "late@example.com"))
        let late = try #require(h.notifier.verificationCode(for: "9812345671"))
        let wrong = late == "999999" ? "999998" : "999999"
        for _ in 0..<5 { await #expect(throws: refused) { _ = try await a.verify(mobile: "9812345671", code: wrong) } }
        await #expect(throws: refused) { _ = try await a.verify(mobile: "9812345671", code: late) }
        _ = try await a.register(registration(mobile: "9812345672", email: "slow@example.com"))
        let slow = try #require(h.notifier.verificationCode(for: "9812345672"))
        h.clock.advance(by: 15 * 60 + 1)
        await #expect(throws: refused) { _ = try await a.verify(mobile: "9812345672", code: slow) }
    }

    @Test("registration, login and reset take the same time for known and unknown accounts")
    func sameTimeKnownOrNot() async throws {
        guard let h = try Harness(.sqlite) else { return }
        let a = h.accounts
        let known = try await h.passenger(1)
        func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[s.count / 2] }
        func timed(_ work: () async throws -> Void) async -> Double {
            let start = ContinuousClock.now
            try? await work()
            let d = ContinuousClock.now - start
            return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }
        var results: [String] = []
        for (operation, knownCall, unknownCall) in [
            ("login", { _ = try await a.logIn(mobile: known.mobile, password: "a wrong guess") },
                      { _ = try await a.logIn(mobile: "9111111111", password: "a wrong guess") }),
            ("reset", { try await a.requestPasswordReset(email: known.email) },
                      { try await a.requestPasswordReset(email: "nobody@example.com") }),
            ("registration", { _ = try await a.register(registration(mobile: known.mobile, email: "x@example.com")) },
                             { _ = try await a.register(registration(mobile: "9111111112", email: "y@example.com")) }),
        ] as [(String, () async throws -> Void, () async throws -> Void)] {
            var k: [Double] = [], u: [Double] = []
            for round in 0..<24 {
                // Interleaved, so that drift in the machine's load falls on both alike.
                if round % 2 == 0 { k.append(await timed(knownCall)); u.append(await timed(unknownCall)) }
                else { u.append(await timed(unknownCall)); k.append(await timed(knownCall)) }
                if operation == "login" {
                    // Not timed: the known account's count of failures back to zero, so that it is never suspended.
                    _ = try await h.store.write { c in
                        try c.execute("UPDATE users SET failed_attempts = 0, suspended_until_ms = NULL WHERE id = ?", [.integer(known.id)])
                    }
                }
            }
            // Paired by round, so that the load of the tests running beside this one cancels out.
            // A difference is an oracle when it is both consistent (a sign test: one side slower
            // in at least 20 of 24 rounds, which equal work does with a chance of 0.15 %) and
            // large (a median paired gap over 10 % of the time and half a millisecond).
            let (mk, mu, gap) = (median(k), median(u), median(zip(k, u).map { $0 - $1 }))
            let slowerKnown = zip(k, u).filter { $0 > $1 }.count
            results.append("\(operation): known \(String(format: "%.2f", mk * 1000)) ms, unknown \(String(format: "%.2f", mu * 1000)) ms, known slower in \(slowerKnown)/24")
            let consistent = slowerKnown >= 20 || slowerKnown <= 4
            let large = abs(gap) > max(0.1 * max(mk, mu), 0.0005)
            #expect(!(consistent && large), "\(operation): medians \(mk) s and \(mu) s, paired gap \(gap) s, known slower in \(slowerKnown) of 24")
        }
        print("timing of known and unknown accounts (medians of 24): " + results.joined(separator: "; "))
    }

    @Test("25 login attempts at once, the right password among them: at most 3 passwords are checked", arguments: Engine.allCases)
    func lockoutUnderConcurrency(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let user = try await h.passenger(1)
        let before = h.accounts.passwordsChecked
        let outcomes = await withTaskGroup(of: String.self) { group in
            for attempt in 0..<25 {
                let password = attempt == 12 ? "correct horse 1" : "wrong horse \(attempt)"
                group.addTask {
                    do { _ = try await h.accounts.logIn(mobile: user.mobile, password: password); return "in" } catch {
                        if case ServiceError.suspended = error { return "suspended" }
                        return "refused"
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        let checked = h.accounts.passwordsChecked - before
        #expect(checked <= 3, "passwords checked: \(checked); outcomes \(outcomes)")
        #expect(outcomes.count == 25)
        // Either the right one was among the guesses checked, or the account is suspended.
        let account = try await h.accounts.user(user.id)
        #expect(outcomes.contains("in") || account.suspendedUntil != nil, "\(outcomes)")
        if !outcomes.contains("in") {
            // Suspended: even the right password is refused now, and nothing more is checked.
            await #expect(throws: ServiceError.suspended(until: Harness.start.addingTimeInterval(86_400))) {
                _ = try await h.accounts.logIn(mobile: user.mobile, password: "correct horse 1")
            }
            #expect(h.accounts.passwordsChecked - before == checked)
        }
    }

    @Test("three failed logins suspend the account for one day; an admin sees and lifts it", arguments: Engine.allCases)
    func lockout(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let user = try await h.passenger(1)
        let right = "correct horse 1"
        for attempt in 1...2 {
            await #expect(throws: ServiceError.unauthorized("wrong mobile number or password"), "attempt \(attempt)") {
                _ = try await h.accounts.logIn(mobile: user.mobile, password: "wrong horse")
            }
        }
        let until = Harness.start.addingTimeInterval(86_400)
        await #expect(throws: ServiceError.suspended(until: until)) {
            _ = try await h.accounts.logIn(mobile: user.mobile, password: "wrong horse")
        }
        // Suspended: even the right password is refused, without a hash being checked.
        await #expect(throws: ServiceError.suspended(until: until)) {
            _ = try await h.accounts.logIn(mobile: user.mobile, password: right)
        }
        let admin = try await h.adminSession()
        #expect(try await h.accounts.suspendedAccounts(adminSession: admin).map(\.id) == [user.id])
        // A passenger is not an admin.
        h.clock.advance(by: 86_399)
        await #expect(throws: ServiceError.suspended(until: until)) {
            _ = try await h.accounts.logIn(mobile: user.mobile, password: right)
        }
        h.clock.advance(by: 1)
        let session = try await h.accounts.logIn(mobile: user.mobile, password: right)
        #expect(session.user.id == user.id)
        await #expect(throws: ServiceError.forbidden("this needs the admin role")) {
            _ = try await h.accounts.suspendedAccounts(adminSession: session.token)
        }

        // Suspend again, then lift.
        for _ in 1...3 { _ = try? await h.accounts.logIn(mobile: user.mobile, password: "nope nope") }
        #expect(try await h.accounts.suspendedAccounts(adminSession: admin).count == 1)
        try await h.accounts.liftSuspension(of: user.id, adminSession: admin)
        #expect(try await h.accounts.suspendedAccounts(adminSession: admin).isEmpty)
        _ = try await h.accounts.logIn(mobile: user.mobile, password: right)
        await #expect(throws: ServiceError.notFound("user 999999")) {
            try await h.accounts.liftSuspension(of: 999_999, adminSession: admin)
        }
        // An unknown number gets the same answer as a wrong password.
        await #expect(throws: ServiceError.unauthorized("wrong mobile number or password")) {
            _ = try await h.accounts.logIn(mobile: "9999999999", password: right)
        }
    }

    @Test("a success resets the count of failures", arguments: Engine.allCases)
    func successResetsCount(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let user = try await h.passenger(2)
        for _ in 1...2 { _ = try? await h.accounts.logIn(mobile: user.mobile, password: "bad password") }
        _ = try await h.accounts.logIn(mobile: user.mobile, password: "correct horse 2")
        for _ in 1...2 { _ = try? await h.accounts.logIn(mobile: user.mobile, password: "bad password") }
        _ = try await h.accounts.logIn(mobile: user.mobile, password: "correct horse 2")
    }

    @Test("sessions: stored hashed, expire, end at logout", arguments: Engine.allCases)
    func sessions(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let user = try await h.passenger(3)
        let session = try await h.accounts.logIn(mobile: user.mobile, password: "correct horse 3")
        #expect(session.token.count >= 43)
        #expect(try await h.accounts.authenticate(session.token).id == user.id)
        let stored = try await h.store.read { c in try c.query("SELECT token_hash FROM sessions", []).map { try $0.string("token_hash") } }
        #expect(!stored.contains(session.token))
        #expect(stored.count == 1 && stored[0].count == 64)
        try await h.accounts.logOut(session.token)
        await #expect(throws: ServiceError.unauthorized("invalid session")) { _ = try await h.accounts.authenticate(session.token) }
        try await h.accounts.logOut(session.token)
        let second = try await h.accounts.logIn(mobile: user.mobile, password: "correct horse 3")
        h.clock.advance(by: 30 * 86_400)
        await #expect(throws: ServiceError.unauthorized("invalid session")) { _ = try await h.accounts.authenticate(second.token) }
        for bad in ["", "x", String(repeating: "a", count: 300), "tok\u{0}en", "' OR 1=1 --"] {
            await #expect(throws: ServiceError.unauthorized("invalid session")) { _ = try await h.accounts.authenticate(bad) }
        }
    }

    @Test("change password: old password checked with the lockout; other sessions end", arguments: Engine.allCases)
    func changePassword(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let user = try await h.passenger(4)
        let phone = try await h.accounts.logIn(mobile: user.mobile, password: "correct horse 4")
        let laptop = try await h.accounts.logIn(mobile: user.mobile, password: "correct horse 4")
        await expectInvalid("confirmation") {
            try await h.accounts.changePassword(session: phone.token, old: "correct horse 4", new: "river stone 9", confirmation: "river stone 8")
        }
        try await h.accounts.changePassword(session: phone.token, old: "correct horse 4", new: "river stone 9", confirmation: "river stone 9")
        _ = try await h.accounts.authenticate(phone.token)
        await #expect(throws: ServiceError.unauthorized("invalid session")) { _ = try await h.accounts.authenticate(laptop.token) }
        _ = try await h.accounts.logIn(mobile: user.mobile, password: "river stone 9")
        for _ in 1...2 {
            await #expect(throws: ServiceError.unauthorized("wrong mobile number or password")) {
                try await h.accounts.changePassword(session: phone.token, old: "guess guess", new: "another pass 1", confirmation: "another pass 1")
            }
        }
        await #expect(throws: ServiceError.suspended(until: Harness.start.addingTimeInterval(86_400))) {
            try await h.accounts.changePassword(session: phone.token, old: "guess guess", new: "another pass 1", confirmation: "another pass 1")
        }
    }

    @Test("forgot password: a single-use token, stored hashed, that expires after 30 minutes", arguments: Engine.allCases)
    func passwordReset(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let user = try await h.passenger(5)
        let old = try await h.accounts.logIn(mobile: user.mobile, password: "correct horse 5")
        try await h.accounts.requestPasswordReset(email: "nobody@example.com")
        try await h.accounts.requestPasswordReset(email: "not an address")
        #expect(!h.notifier.notifications.contains { $0.kind == .passwordReset })
        try await h.accounts.requestPasswordReset(email: "P5@example.com")
        let sent = h.notifier.notifications.filter { $0.kind == .passwordReset }
        #expect(sent.count == 1 && sent[0].kind == .passwordReset && sent[0].user == user.id)
        let token = try #require(sent.first?.fields["token"])
        // The token is nowhere in the database, and no password either.
        let dump = try await h.store.read { c -> String in
            var text = ""
            for table in ["password_resets", "outbox", "users", "sessions"] {
                for row in try c.query("SELECT * FROM \(table)", []) { text += row.values.map { "\($0)" }.joined(separator: "|") }
            }
            return text
        }
        #expect(!dump.contains(token))
        #expect(!dump.contains("correct horse"))
        await expectInvalid("password") { try await h.accounts.resetPassword(token: token, new: "short", confirmation: "short") }
        try await h.accounts.resetPassword(token: token, new: "fresh start 55", confirmation: "fresh start 55")
        await #expect(throws: ServiceError.unauthorized("invalid session")) { _ = try await h.accounts.authenticate(old.token) }
        _ = try await h.accounts.logIn(mobile: user.mobile, password: "fresh start 55")
        await #expect(throws: ServiceError.unauthorized("invalid or expired reset token")) {
            try await h.accounts.resetPassword(token: token, new: "fresh start 66", confirmation: "fresh start 66")
        }
        // Expiry: 30 minutes.
        try await h.accounts.requestPasswordReset(email: "p5@example.com")
        let second = try #require(h.notifier.notifications.last?.fields["token"])
        h.clock.advance(by: 30 * 60)
        await #expect(throws: ServiceError.unauthorized("invalid or expired reset token")) {
            try await h.accounts.resetPassword(token: second, new: "fresh start 77", confirmation: "fresh start 77")
        }
        // The reset messages are not sent again by the outbox (they carry no token there).
        #expect(try await Outbox(store: h.store, clock: h.clock).deliver(through: RecordingNotifier()) == 0)
    }

    @Test("roles: drivers and admins are created by admins; admin passwords need 10 mixed characters", arguments: Engine.allCases)
    func roles(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let passenger = try await h.passenger(6)
        let passengerSession = try await h.accounts.logIn(mobile: passenger.mobile, password: "correct horse 6").token
        await #expect(throws: ServiceError.forbidden("this needs the admin role")) {
            _ = try await h.driver(1, adminSession: passengerSession)
        }
        let weak = Registration(name: "Root", mobile: "9000000002", email: "root@example.com",
                                password: "letters12345", confirmation: "letters12345")
        await expectInvalid("password", "an admin password needs letters, digits and symbols") {
            _ = try await h.accounts.createAdmin(weak, adminSession: nil)
        }
        let short = Registration(name: "Root", mobile: "9000000002", email: "root@example.com",
                                 password: "Ab1!xyz9", confirmation: "Ab1!xyz9")
        await expectInvalid("password", "must be at least 10 characters") { _ = try await h.accounts.createAdmin(short, adminSession: nil) }
        let admin = try await h.adminSession()
        await #expect(throws: ServiceError.forbidden("only an admin may create another admin")) {
            _ = try await h.accounts.createAdmin(Registration(name: "Second", mobile: "9000000003", email: "s@example.com",
                                                              password: "Sec0nd!admin", confirmation: "Sec0nd!admin"), adminSession: nil)
        }
        let driver = try await h.driver(1, adminSession: admin)
        #expect(driver.role == .driver)
        let driverSession = try await h.accounts.logIn(mobile: driver.mobile, password: "steady wheels 1").token
        #expect(try await h.accounts.authenticate(driverSession, role: .driver).id == driver.id)
        await #expect(throws: ServiceError.forbidden("this needs the passenger role")) {
            _ = try await h.accounts.authenticate(driverSession, role: .passenger)
        }
    }

    @Test("old hashes are upgraded at login when the parameters rise", arguments: Engine.allCases)
    func hashUpgrade(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let user = try await h.passenger(7)
        let stronger = Accounts(store: h.store, notifier: h.notifier, clock: h.clock, settings: AccountSettings(),
                                hasher: PasswordHasher(logN: 11, blockSize: 8, parallelism: 1))
        _ = try await stronger.logIn(mobile: user.mobile, password: "correct horse 7")
        let stored = try await h.store.read { c in try c.first("SELECT password_hash FROM users")!.string("password_hash") }
        #expect(stored.hasPrefix("scrypt$11$8$1$"))
        _ = try await stronger.logIn(mobile: user.mobile, password: "correct horse 7")
        // The weaker service still verifies the stronger hash (parameters travel with it).
        _ = try await h.accounts.logIn(mobile: user.mobile, password: "correct horse 7")
    }

    @Test("scrypt: RFC 7914's test vector, the standard parameters, constant-time compare")
    func scrypt() throws {
        // RFC 7914 §12: scrypt("password", "NaCl", N = 1024, r = 8, p = 16, dkLen = 64).
        let expected = "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        let key = Data(stride(from: 0, to: expected.count, by: 2).map { i -> UInt8 in
            let start = expected.index(expected.startIndex, offsetBy: i)
            return UInt8(expected[start...expected.index(after: start)], radix: 16)!
        })
        let stored = "scrypt$10$8$16$\(Data("NaCl".utf8).base64EncodedString())$\(key.base64EncodedString())"
        let hasher = PasswordHasher.standard
        #expect(hasher.verify("password", against: stored))
        #expect(!hasher.verify("Password", against: stored))
        #expect(!hasher.verify("", against: stored))
        #expect(!hasher.verify("password", against: "scrypt$10$8$16$bad"))
        #expect(hasher.needsUpgrade(stored))
        // The standard parameters: N = 2^17, r = 8, p = 1, 64 bytes.
        let real = try hasher.hash("correct horse battery")
        let parts = real.split(separator: "$")
        #expect(parts[0...3] == ["scrypt", "17", "8", "1"])
        #expect(Data(base64Encoded: String(parts[5]))?.count == 64)
        #expect(Data(base64Encoded: String(parts[4]))?.count == 16)
        #expect(hasher.verify("correct horse battery", against: real))
        #expect(!hasher.needsUpgrade(real))
    }

    @Test("the shipped common-password list is the embedded one, 10,000 entries")
    func commonPasswordList() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Sources/Services/CommonPasswords/common-passwords.txt"), encoding: .utf8)
        let lines = Set(text.split(separator: "\n").map { $0.lowercased() })
        #expect(PasswordPolicy.commonPasswords == lines)
        #expect(lines.count > 9_000)
        for p in ["123456", "password", "qwerty", "iloveyou", "trustno1"] { #expect(lines.contains(p)) }
    }
}
