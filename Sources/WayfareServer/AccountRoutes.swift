import Foundation
import GeoJSON
import Geodesy
import Hummingbird
import Services
import Storage

/// Accounts and sessions, the wallet and favourite places.
extension WayfareServer {
    func addAccountRoutes(_ router: Hummingbird.Router<WayfareContext>) {
        // Registration (passengers register themselves; drivers are made by an admin).
        router.post("/v1/accounts") { [self] request, context in
            var body = try await body(request)
            let registration = try Self.registration(&body)
            try throttleAccountCall(request, context: context, account: registration.mobile)
            // The same answer whether or not the number is taken: a code is on its way.
            let before = testPhones?.code(for: registration.mobile.filter(\.isNumber))
            let receipt = try await accounts.register(registration)
            var fields: [(String, JSONValue)] = [("status", .string("code_sent")), ("mobile", .string(receipt.mobile)),
                                                 ("code_expires", receipt.codeExpires.json)]
            // Test SMS: the code comes back in the answer instead of by text (said in /health).
            // A taken number gets no code, so it gets a decoy of the same shape: test mode must
            // not tell who is registered either.
            if let phones = testPhones {
                let sent = phones.code(for: receipt.mobile).flatMap { $0 == before ? nil : $0 }
                fields.append(("test_code", .string(sent ?? String(format: "%06d", Int.random(in: 0...999_999)))))
            }
            return JSONResponse.make(.object(fields), status: .accepted)
        }
        // The one-time code from the text message activates the account.
        router.post("/v1/accounts/verify") { [self] request, context in
            var body = try await body(request)
            let mobile = try body.string("mobile", maximum: 32), code = try body.string("code", maximum: 16)
            try body.finish()
            try throttleAccountCall(request, context: context, account: mobile)
            let user = try await accounts.verify(mobile: mobile, code: code)
            return JSONResponse.make(Self.json(user), status: .created)
        }
        router.post("/v1/drivers") { [self] request, _ in
            let session = try token(request)
            var body = try await body(request)
            let registration = try Self.registration(&body)
            let user = try await accounts.createDriver(registration, adminSession: session)
            return JSONResponse.make(Self.json(user), status: .created)
        }
        router.post("/v1/sessions") { [self] request, context in
            var body = try await body(request)
            let mobile = try body.string("mobile", maximum: 32), password = try body.string("password", maximum: 1024)
            try body.finish()
            try throttleAccountCall(request, context: context, account: mobile)
            let session = try await accounts.logIn(mobile: mobile, password: password)
            return JSONResponse.make(.object([("token", .string(session.token)), ("expires", session.expires.json),
                                              ("user", Self.json(session.user))]), status: .created)
        }
        router.delete("/v1/sessions") { [self] request, _ in
            try await accounts.logOut(token(request))
            return Response(status: .noContent)
        }
        router.get("/v1/me") { [self] request, _ in JSONResponse.make(Self.json(try await user(request))) }
        router.post("/v1/me/password") { [self] request, _ in
            let session = try token(request)
            var body = try await body(request)
            let old = try body.string("old", maximum: 1024), new = try body.string("new", maximum: 1024)
            let confirmation = try body.string("confirmation", maximum: 1024)
            try body.finish()
            try await accounts.changePassword(session: session, old: old, new: new, confirmation: confirmation)
            return Response(status: .noContent)
        }
        // Forgot password: the same answer whether or not the address is registered.
        router.post("/v1/password-resets") { [self] request, context in
            var body = try await body(request)
            let email = try body.string("email", maximum: 254)
            try body.finish()
            try throttleAccountCall(request, context: context, account: email)
            try await accounts.requestPasswordReset(email: email)
            return JSONResponse.make(.object([("status", .string("if the address is registered, a reset link is on its way"))]), status: .accepted)
        }
        router.post("/v1/password-resets/complete") { [self] request, _ in
            var body = try await body(request)
            let token = try body.string("token", maximum: 200), password = try body.string("password", maximum: 1024)
            let confirmation = try body.string("confirmation", maximum: 1024)
            try body.finish()
            try await accounts.resetPassword(token: token, new: password, confirmation: confirmation)
            return Response(status: .noContent)
        }
        router.get("/v1/admin/suspended") { [self] request, _ in
            let users = try await accounts.suspendedAccounts(adminSession: token(request))
            return JSONResponse.make(.object([("users", .array(users.map(Self.json)))]))
        }
        // The company's side of the ledger and its audit, for the operations team.
        router.get("/v1/admin/ledger") { [self] request, _ in
            _ = try await user(request, role: .admin)
            let accounts = try await wallet.companyAccounts()
            let store = self.store
            let audit = try await serviceCall { try await offThePool { try LedgerAudit.run(on: store) } }
            return JSONResponse.make(.object([
                ("currency", .string(city.city.fares.currency)), ("revenue", .number(Double(accounts.revenue))),
                ("escrow_held", .number(Double(accounts.escrowHeld))), ("gateway_owes", .number(Double(accounts.gatewayOwes))),
                ("owed_to_drivers", .number(Double(accounts.owedToDrivers))),
                ("owed_to_passengers", .number(Double(accounts.owedToPassengers))),
                ("sound", .bool(audit.isSound)), ("transfers", .number(Double(audit.transfers))),
            ]))
        }
        router.post("/v1/admin/users/:id/lift-suspension") { [self] request, context in
            try await accounts.liftSuspension(of: Int64(number(context, "id")), adminSession: token(request))
            return Response(status: .noContent)
        }

        // The wallet: the balance, and refills through the payment gateway.
        router.get("/v1/wallet") { [self] request, _ in
            let passenger = try await user(request, role: .passenger)
            let balance = try await wallet.balance(of: passenger.id)
            return JSONResponse.make(.object([("currency", .string(wallet.settings.currency)),
                                              ("available", .number(Double(balance.available))), ("held", .number(Double(balance.held)))]))
        }
        router.post("/v1/wallet/refills") { [self] request, _ in
            let passenger = try await user(request, role: .passenger)
            let key = try idempotencyKey(request)
            var body = try await body(request)
            let amount = try body.integer("amount", in: 1...wallet.settings.maximumRefill)
            let token = try body.string("payment_token", maximum: 200)
            try body.finish()
            let result = try await wallet.refill(passenger: passenger.id, amount: amount, paymentToken: token, key: key)
            switch result {
            case .completed(let balance):
                return JSONResponse.make(.object([("status", .string("completed")), ("available", .number(Double(balance)))]), status: .created)
            case .declined(let reason):
                return JSONResponse.make(.object([("status", .string("declined")), ("reason", .string(reason))]), status: HTTPResponse.Status(code: 402, reasonPhrase: "Payment Required"))
            case let .requiresAction(intent, challenge):
                return JSONResponse.make(.object([("status", .string("requires_action")), ("intent", .number(Double(intent))),
                                                  ("challenge", .string(challenge))]), status: .accepted)
            case .pending(let intent):
                return JSONResponse.make(.object([("status", .string("pending")), ("intent", .number(Double(intent)))]), status: .accepted)
            }
        }

        // Favourite places: 20 at most, 150 m apart, named.
        router.get("/v1/favourites") { [self] request, _ in
            let passenger = try await user(request, role: .passenger)
            let places = try await favourites.places(of: passenger.id)
            return JSONResponse.make(.object([("favourites", .array(places.map { .object([("name", .string($0.name)), ("position", $0.location.json)]) }))]))
        }
        router.post("/v1/favourites") { [self] request, _ in
            let passenger = try await user(request, role: .passenger)
            var body = try await body(request)
            let name = try body.string("name", maximum: 64), position = try body.coordinate("position")
            try body.finish()
            try await favourites.add(name: name, at: position, for: passenger.id)
            return Response(status: .created)
        }
        router.delete("/v1/favourites/:name") { [self] request, context in
            let passenger = try await user(request, role: .passenger)
            guard let name = context.parameters.get("name")?.removingPercentEncoding, !name.isEmpty else {
                throw APIError.invalid("name", "is required")
            }
            try await favourites.remove(named: name, for: passenger.id)
            return Response(status: .noContent)
        }
    }

    static func registration(_ body: inout JSONBody) throws(APIError) -> Registration {
        let r = Registration(name: try body.string("name", maximum: Registration.maximumNameLength), mobile: try body.string("mobile", maximum: 32),
                             email: try body.string("email", maximum: 254), password: try body.string("password", maximum: 1024),
                             confirmation: try body.string("confirmation", maximum: 1024))
        try body.finish()
        return r
    }

    static func json(_ user: User) -> JSONValue {
        .object([("id", .number(Double(user.id))), ("role", .string(user.role.rawValue)), ("name", .string(user.name)),
                 ("mobile", .string(user.mobile)), ("email", .string(user.email)),
                 ("suspended_until", user.suspendedUntil?.json ?? .null)])
    }
}

