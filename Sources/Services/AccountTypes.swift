import Crypto
import Essentials
import Fleet
import Foundation
import Storage

/// What a user is to the company.
public enum Role: String, Sendable, Codable, CaseIterable {
    /// Books cabs and pays for them; registers on their own.
    case passenger
    /// Drives a cab; created by the company (004).
    case driver
    /// Runs the service: creates drivers, lifts suspensions.
    case admin
}

/// A user as the services show it: never the password hash.
public struct User: Sendable, Equatable, Codable {
    /// The user's id.
    public var id: Int64
    /// Passenger, driver or admin.
    public var role: Role
    /// The name, up to 32 characters.
    public var name: String
    /// The 10-digit mobile number, the login name.
    public var mobile: String
    /// The e-mail address, lower-cased.
    public var email: String
    /// Until when the account is suspended after failed attempts; nil when it is not.
    public var suspendedUntil: Date?
}

/// What a new account needs (000 UC01).
public struct Registration: Sendable {
    /// The name, 1 to 32 characters.
    public var name: String
    /// A 10-digit mobile number.
    public var mobile: String
    /// A valid e-mail address, not registered before.
    public var email: String
    /// The password.
    public var password: String
    /// The password again.
    public var confirmation: String

    /// The longest name, in characters (000 UC01): the one statement of the limit, which the
    /// server's reader and the OpenAPI document use too.
    public static let maximumNameLength = 32

    /// A registration from its fields.
    public init(name: String, mobile: String, email: String, password: String, confirmation: String) {
        self.name = name
        self.mobile = mobile
        self.email = email
        self.password = password
        self.confirmation = confirmation
    }
}

/// What a registration answers, the same whether or not the number was free: a code is on
/// its way to the mobile number (or, when it is taken, its owner is told).
public struct RegistrationReceipt: Sendable, Equatable {
    /// The mobile number, as stored (ten digits).
    public var mobile: String
    /// Until when the code works.
    public var codeExpires: Date
}

/// A logged-in session: give ``token`` to the client once; only its hash is stored.
public struct Session: Sendable, Equatable {
    /// The bearer token, 256 random bits in base64url.
    public var token: String
    /// The user.
    public var user: User
    /// When the session ends unless the user logs out first.
    public var expires: Date
}

/// The account rules' numbers.
public struct AccountSettings: Sendable, Equatable {
    /// Failed attempts in a row that suspend an account (000 UC02: 3).
    public var maximumFailedAttempts: Int
    /// How long a suspension lasts (000 UC02: one day).
    public var suspension: Duration
    /// How long a session lasts.
    ///
    /// Why 30 days: a passenger's phone stays logged in, as with every ride-hailing app;
    /// logging out ends it at once.
    public var sessionLifetime: Duration
    /// How long a password-reset token is valid (default 30 minutes).
    public var resetLifetime: Duration
    /// How long a registration's one-time code is valid (default 15 minutes).
    public var codeLifetime: Duration = .seconds(15 * 60)

    /// The specifications' values.
    public init(maximumFailedAttempts: Int = 3, suspension: Duration = .seconds(86_400),
                sessionLifetime: Duration = .seconds(30 * 86_400), resetLifetime: Duration = .seconds(30 * 60)) {
        self.maximumFailedAttempts = maximumFailedAttempts
        self.suspension = suspension
        self.sessionLifetime = sessionLifetime
        self.resetLifetime = resetLifetime
    }
}
