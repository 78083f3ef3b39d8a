import Foundation
import Services

/// `POST /v1/accounts` and `POST /v1/drivers`: a new account.
public struct NewAccount: Codable, Sendable, Equatable {
    /// The person's name.
    public var name: String
    /// The mobile number (ten digits; spaces and dashes ignored).
    public var mobile: String
    /// The e-mail address.
    public var email: String
    /// The password.
    public var password: String
    /// The password again.
    public var confirmation: String

    /// A new account from its fields.
    public init(name: String, mobile: String, email: String, password: String, confirmation: String) {
        self.name = name; self.mobile = mobile; self.email = email; self.password = password; self.confirmation = confirmation
    }

    enum CodingKeys: String, WireKey {
        case name, mobile, email, password, confirmation
        var rule: FieldRule {
            switch self {
            case .name: .text(maximum: Registration.maximumNameLength, minimum: 1)
            case .mobile: Limits.mobile
            case .email: Limits.email
            case .password, .confirmation: Limits.password
            }
        }
    }
}

/// `202` to a registration: the same whether or not the number was taken.
public struct CodeSent: Codable, Sendable, Equatable {
    /// Always `code_sent`.
    public var status: String
    /// The mobile number the code went to, normalised.
    public var mobile: String
    /// When the code stops working.
    public var codeExpires: Date
    /// The code itself, on a server with test SMS only (`/health` says `"sms": "test"`).
    public var testCode: String?

    /// A receipt from its fields.
    public init(mobile: String, codeExpires: Date, testCode: String?) {
        status = "code_sent"; self.mobile = mobile; self.codeExpires = codeExpires; self.testCode = testCode
    }

    enum CodingKeys: String, CodingKey { case status, mobile, codeExpires = "code_expires", testCode = "test_code" }
}

/// `POST /v1/accounts/verify`: the code texted to the mobile.
public struct AccountVerification: Codable, Sendable, Equatable {
    /// The mobile number registered.
    public var mobile: String
    /// The six-digit code.
    public var code: String

    /// A verification from its fields.
    public init(mobile: String, code: String) { self.mobile = mobile; self.code = code }

    enum CodingKeys: String, WireKey {
        case mobile, code
        var rule: FieldRule { self == .mobile ? Limits.mobile : .text(maximum: 16, minimum: 1) }
    }
}

/// `POST /v1/sessions`: logging in.
public struct Credentials: Codable, Sendable, Equatable {
    /// The mobile number.
    public var mobile: String
    /// The password.
    public var password: String

    /// Credentials from their fields.
    public init(mobile: String, password: String) { self.mobile = mobile; self.password = password }

    enum CodingKeys: String, WireKey {
        case mobile, password
        var rule: FieldRule { self == .mobile ? Limits.mobile : Limits.password }
    }
}

/// A user as the API shows it.
public struct UserAnswer: Codable, Sendable, Equatable {
    /// The user id.
    public var id: Int64
    /// Passenger, driver or admin.
    public var role: Role
    /// The name.
    public var name: String
    /// The mobile number.
    public var mobile: String
    /// The e-mail address.
    public var email: String
    /// Until when the account is suspended (after 3 failed logins), if it is.
    public var suspendedUntil: Date?

    /// The API's view of `user`.
    public init(_ user: User) {
        id = user.id; role = user.role; name = user.name; mobile = user.mobile; email = user.email; suspendedUntil = user.suspendedUntil
    }

    enum CodingKeys: String, CodingKey { case id, role, name, mobile, email, suspendedUntil = "suspended_until" }
}

/// `201` to a login: the bearer token and its user.
public struct SessionGrant: Codable, Sendable, Equatable {
    /// The bearer token (shown once; the server keeps only its hash).
    public var token: String
    /// When the session ends.
    public var expires: Date
    /// Who logged in.
    public var user: UserAnswer

    /// A grant from its fields.
    public init(token: String, expires: Date, user: UserAnswer) { self.token = token; self.expires = expires; self.user = user }
}

/// `POST /v1/me/password`.
public struct PasswordChange: Codable, Sendable, Equatable {
    /// The current password.
    public var old: String
    /// The new password.
    public var new: String
    /// The new password again.
    public var confirmation: String

    /// A change from its fields.
    public init(old: String, new: String, confirmation: String) { self.old = old; self.new = new; self.confirmation = confirmation }

    enum CodingKeys: String, WireKey {
        case old, new, confirmation
        var rule: FieldRule { Limits.password }
    }
}

/// `POST /v1/password-resets`: forgot password.
public struct ResetRequest: Codable, Sendable, Equatable {
    /// The account's e-mail address.
    public var email: String

    /// A request for `email`.
    public init(email: String) { self.email = email }

    enum CodingKeys: String, WireKey {
        case email
        var rule: FieldRule { Limits.email }
    }
}

/// `POST /v1/password-resets/complete`.
public struct PasswordReset: Codable, Sendable, Equatable {
    /// The token from the e-mail.
    public var token: String
    /// The new password.
    public var password: String
    /// The new password again.
    public var confirmation: String

    /// A reset from its fields.
    public init(token: String, password: String, confirmation: String) {
        self.token = token; self.password = password; self.confirmation = confirmation
    }

    enum CodingKeys: String, WireKey {
        case token, password, confirmation
        var rule: FieldRule { self == .token ? .text(maximum: 256, minimum: 1) : Limits.password }
    }
}

/// `202` when something is on its way whether or not it applies (a reset link).
public struct Accepted: Codable, Sendable, Equatable {
    /// What happens next.
    public var status: String

    /// An answer saying `status`.
    public init(status: String) { self.status = status }
}

/// `GET /v1/admin/suspended`.
public struct UserList: Codable, Sendable, Equatable {
    /// The users.
    public var users: [UserAnswer]

    /// A list of `users`.
    public init(users: [UserAnswer]) { self.users = users }
}

/// `GET /v1/admin/ledger`: the company's side of the ledger and its audit.
public struct LedgerSummary: Codable, Sendable, Equatable {
    /// The city's currency.
    public var currency: String
    /// Commission earned, in minor units.
    public var revenue: Int64
    /// Held for bookings in progress.
    public var escrowHeld: Int64
    /// Owed by the payment gateway (refills not yet paid out).
    public var gatewayOwes: Int64
    /// Owed to drivers.
    public var owedToDrivers: Int64
    /// Owed to passengers (their wallets).
    public var owedToPassengers: Int64
    /// Whether every transfer balances and every balance matches its entries.
    public var sound: Bool
    /// How many transfers the ledger holds.
    public var transfers: Int64

    /// A summary from its fields.
    public init(currency: String, revenue: Int64, escrowHeld: Int64, gatewayOwes: Int64, owedToDrivers: Int64,
                owedToPassengers: Int64, sound: Bool, transfers: Int64) {
        self.currency = currency; self.revenue = revenue; self.escrowHeld = escrowHeld; self.gatewayOwes = gatewayOwes
        self.owedToDrivers = owedToDrivers; self.owedToPassengers = owedToPassengers; self.sound = sound; self.transfers = transfers
    }

    enum CodingKeys: String, CodingKey {
        case currency, revenue, escrowHeld = "escrow_held", gatewayOwes = "gateway_owes", owedToDrivers = "owed_to_drivers"
        case owedToPassengers = "owed_to_passengers", sound, transfers
    }
}

/// `GET /v1/wallet`.
public struct WalletBalance: Codable, Sendable, Equatable {
    /// The currency.
    public var currency: String
    /// What may be spent, in minor units.
    public var available: Int64
    /// Held for bookings in progress.
    public var held: Int64

    /// A balance from its fields.
    public init(currency: String, available: Int64, held: Int64) { self.currency = currency; self.available = available; self.held = held }
}

/// `POST /v1/wallet/refills`: a top-up from a card.
public struct RefillOrder: Codable, Sendable, Equatable {
    /// The amount in minor units (at most the wallet's maximum refill).
    public var amount: Int64
    /// The card's token from the gateway's card form.
    public var paymentToken: String

    /// An order from its fields.
    public init(amount: Int64, paymentToken: String) { self.amount = amount; self.paymentToken = paymentToken }

    enum CodingKeys: String, WireKey {
        case amount, paymentToken = "payment_token"
        var rule: FieldRule { self == .amount ? Limits.amount : .text(maximum: 200, minimum: 1) }
    }
}

/// What became of a refill.
public enum RefillStatus: String, WireChoice {
    /// Charged; `available` is the new balance (`201`).
    case completed
    /// The card was declined; `reason` says why (`402`).
    case declined
    /// A 3-D Secure step: `challenge` is where the passenger completes it (`202`).
    case requiresAction = "requires_action"
    /// The gateway did not answer in time; reconciliation will settle it (`202`).
    case pending
}

/// The answer to a refill.
public struct RefillOutcome: Codable, Sendable, Equatable {
    /// What became of it.
    public var status: RefillStatus
    /// The new balance, when completed.
    public var available: Int64?
    /// The refill's payment intent, while it waits.
    public var intent: Int64?
    /// The 3-D Secure challenge, when one is asked for.
    public var challenge: String?
    /// Why the card was declined.
    public var reason: String?

    /// An outcome from its fields.
    public init(status: RefillStatus, available: Int64? = nil, intent: Int64? = nil, challenge: String? = nil, reason: String? = nil) {
        self.status = status; self.available = available; self.intent = intent; self.challenge = challenge; self.reason = reason
    }
}

/// `POST /v1/favourites`.
public struct NewFavourite: Codable, Sendable, Equatable {
    /// The name (unique per passenger).
    public var name: String
    /// Where it is.
    public var position: LatLon

    /// A favourite from its fields.
    public init(name: String, position: LatLon) { self.name = name; self.position = position }

    enum CodingKeys: String, WireKey {
        case name, position
        var rule: FieldRule { self == .name ? .text(maximum: PassengerFavourites.maximumNameLength, minimum: 1) : .structured }
    }
}

/// `GET /v1/favourites`.
public struct FavouriteList: Codable, Sendable, Equatable {
    /// The places.
    public var favourites: [Place]

    /// One favourite place.
    public struct Place: Codable, Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Where it is.
        public var position: LatLon

        /// A place from its fields.
        public init(name: String, position: LatLon) { self.name = name; self.position = position }
    }

    /// A list of `favourites`.
    public init(favourites: [Place]) { self.favourites = favourites }
}
