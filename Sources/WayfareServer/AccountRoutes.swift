import Foundation
import Hummingbird
import Services
import Storage
import WayfareAPI

/// Accounts and sessions, the admins' views, the wallet and favourite places.
struct AccountsController {
    let server: WayfareServer

    /// Registration, verification, logging in and password resets: before anyone is signed in.
    var publicRoutes: RouteCollection<WayfareContext> {
        let routes = RouteCollection(context: WayfareContext.self)
        let server = server, accounts = server.accounts
        // Registration (passengers register themselves; drivers are made by an admin).
        routes.on(.register) { request, context in
            let account = try await request.decode(NewAccount.self)
            try server.throttleAccountCall(request, context: context, account: account.mobile)
            // The same answer whether or not the number is taken: a code is on its way.
            let before = server.testPhones?.code(for: account.mobile.filter(\.isNumber))
            let receipt = try await accounts.register(Registration(account))
            // Test SMS: the code comes back in the answer instead of by text (said in /health).
            // A taken number gets no code, so it gets a decoy of the same shape: test mode must
            // not tell who is registered either.
            var testCode: String?
            if let phones = server.testPhones {
                let sent = phones.code(for: receipt.mobile).flatMap { $0 == before ? nil : $0 }
                testCode = sent ?? String(format: "%06d", Int.random(in: 0...999_999))
            }
            return JSONResponse.make(CodeSent(mobile: receipt.mobile, codeExpires: receipt.codeExpires, testCode: testCode), status: .accepted)
        }
        // The one-time code from the text message activates the account.
        routes.on(.verify) { request, context in
            let verification = try await request.decode(AccountVerification.self)
            try server.throttleAccountCall(request, context: context, account: verification.mobile)
            let user = try await accounts.verify(mobile: verification.mobile, code: verification.code)
            return JSONResponse.make(UserAnswer(user), status: .created)
        }
        routes.on(.logIn) { request, context in
            let credentials = try await request.decode(Credentials.self)
            try server.throttleAccountCall(request, context: context, account: credentials.mobile)
            let session = try await accounts.logIn(mobile: credentials.mobile, password: credentials.password)
            return JSONResponse.make(SessionGrant(token: session.token, expires: session.expires, user: UserAnswer(session.user)), status: .created)
        }
        // Forgot password: the same answer whether or not the address is registered.
        routes.on(.requestReset) { request, context in
            let reset = try await request.decode(ResetRequest.self)
            try server.throttleAccountCall(request, context: context, account: reset.email)
            try await accounts.requestPasswordReset(email: reset.email)
            return JSONResponse.make(Accepted(status: "if the address is registered, a reset link is on its way"), status: .accepted)
        }
        routes.on(.completeReset) { request, _ in
            let reset = try await request.decode(PasswordReset.self)
            try await accounts.resetPassword(token: reset.token, new: reset.password, confirmation: reset.confirmation)
            return Response(status: .noContent)
        }
        return routes
    }

    /// What any signed-in user does with their own account.
    var userRoutes: RouteCollection<AnyUserContext> {
        let routes = RouteCollection(context: AnyUserContext.self)
        let accounts = server.accounts
        routes.on(.logOut) { _, context in
            try await accounts.logOut(context.token)
            return Response(status: .noContent)
        }
        routes.on(.me) { _, context in JSONResponse.make(UserAnswer(context.user)) }
        routes.on(.changePassword) { request, context in
            let change = try await request.decode(PasswordChange.self)
            try await accounts.changePassword(session: context.token, old: change.old, new: change.new, confirmation: change.confirmation)
            return Response(status: .noContent)
        }
        return routes
    }

    /// Drivers' accounts, suspensions and the company's ledger, for the operations team.
    var adminRoutes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        let server = server, accounts = server.accounts
        routes.on(.createDriver) { request, context in
            let account = try await request.decode(NewAccount.self)
            let user = try await accounts.createDriver(Registration(account), adminSession: context.token)
            return JSONResponse.make(UserAnswer(user), status: .created)
        }
        routes.on(.suspended) { _, context in
            JSONResponse.make(UserList(users: try await accounts.suspendedAccounts(adminSession: context.token).map(UserAnswer.init)))
        }
        routes.on(.ledger) { _, _ in
            let company = try await server.wallet.companyAccounts()
            let store = server.store
            let audit = try await serviceCall { try await offThePool { try LedgerAudit.run(on: store) } }
            return JSONResponse.make(LedgerSummary(currency: server.city.city.fares.currency, revenue: company.revenue, escrowHeld: company.escrowHeld,
                                                   gatewayOwes: company.gatewayOwes, owedToDrivers: company.owedToDrivers,
                                                   owedToPassengers: company.owedToPassengers, sound: audit.isSound,
                                                   transfers: Int64(audit.transfers)))
        }
        routes.on(.liftSuspension) { _, context in
            try await accounts.liftSuspension(of: context.integer(.id), adminSession: context.token)
            return Response(status: .noContent)
        }
        return routes
    }

    /// The passenger's wallet and favourite places.
    var passengerRoutes: RouteCollection<PassengerContext> {
        let routes = RouteCollection(context: PassengerContext.self)
        let wallet = server.wallet, favourites = server.favourites
        routes.on(.wallet) { _, context in
            let balance = try await wallet.balance(of: context.user.id)
            return JSONResponse.make(WalletBalance(currency: wallet.settings.currency, available: balance.available, held: balance.held))
        }
        // A refill through the payment gateway (Idempotency-Key).
        routes.on(.refill) { request, context in
            let key = try request.idempotencyKey()
            let order = try await request.decode(RefillOrder.self)
            guard order.amount <= wallet.settings.maximumRefill else {
                throw APIError.invalid("amount", "must be a whole number from 1 to \(wallet.settings.maximumRefill)")
            }
            switch try await wallet.refill(passenger: context.user.id, amount: order.amount, paymentToken: order.paymentToken, key: key) {
            case .completed(let balance):
                return JSONResponse.make(RefillOutcome(status: .completed, available: balance), status: .created)
            case .declined(let reason):
                return JSONResponse.make(RefillOutcome(status: .declined, reason: reason), status: HTTPResponse.Status(code: 402, reasonPhrase: "Payment Required"))
            case let .requiresAction(intent, challenge):
                return JSONResponse.make(RefillOutcome(status: .requiresAction, intent: intent, challenge: challenge), status: .accepted)
            case .pending(let intent):
                return JSONResponse.make(RefillOutcome(status: .pending, intent: intent), status: .accepted)
            }
        }
        // Favourite places: 20 at most, 150 m apart, named.
        routes.on(.favourites) { _, context in
            let places = try await favourites.places(of: context.user.id)
            return JSONResponse.make(FavouriteList(favourites: places.map { FavouriteList.Place(name: $0.name, position: LatLon($0.location)) }))
        }
        routes.on(.addFavourite) { request, context in
            let favourite = try await request.decode(NewFavourite.self)
            try await favourites.add(name: favourite.name, at: favourite.position.coordinate, for: context.user.id)
            return Response(status: .created)
        }
        routes.on(.removeFavourite) { _, context in
            guard let name = context.parameters.get(Parameter.favouriteName.name)?.removingPercentEncoding, !name.isEmpty else {
                throw APIError.invalid("name", "is required")
            }
            try await favourites.remove(named: name, for: context.user.id)
            return Response(status: .noContent)
        }
        return routes
    }
}

extension Registration {
    /// The service's registration from the wire's.
    init(_ account: NewAccount) {
        self.init(name: account.name, mobile: account.mobile, email: account.email, password: account.password, confirmation: account.confirmation)
    }
}
