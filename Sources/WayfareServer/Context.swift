import Foundation
import Hummingbird
import NIOCore
import Logging
import Services
import WayfareAPI

/// The request context of every route: Hummingbird's core (logger with the request id,
/// path parameters), the client's address, the body limit, and who is signed in.
///
/// `Sendable`: a value type of `Sendable` parts.
public struct WayfareContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The address of the connected client (what the rate limit keys anonymous calls by).
    public let remoteAddress: SocketAddress?
    /// The signed-in user, once the authentication middleware has checked the bearer token.
    public var identity: User?
    /// The session's bearer token, with the identity.
    var sessionToken: String?
    /// Why a bearer token that was sent is no session (a route that needs one answers it).
    var authenticationFailure: APIError?

    /// A context for one request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Request bodies are small JSON objects: 64 KiB is far more than any needs, and a
    /// larger body is refused with 413 before it is read whole.
    public var maxUploadSize: Int { WayfareServer.maximumBodyBytes }

    /// Whether an admin is signed in (an admin sees drivers' ids and exact positions).
    var isAdmin: Bool { identity?.role == .admin }
}

/// Who a group of routes is for: any signed-in user, or one role.
protocol Audience {
    /// The role required (nil: any signed-in user).
    static var role: Role? { get }
}

/// Any signed-in user.
enum AnyUser: Audience { static var role: Role? { nil } }
/// Passengers.
enum Passengers: Audience { static var role: Role? { .passenger } }
/// Drivers.
enum Drivers: Audience { static var role: Role? { .driver } }
/// Admins.
enum Admins: Audience { static var role: Role? { .admin } }

/// The context of a route for signed-in users: made from ``WayfareContext`` when the group
/// is entered, it exists only with a user of the audience's role, so a handler cannot forget
/// to check (401 without a session, 403 with another role).
///
/// `Sendable`: a value type of `Sendable` parts.
struct SignedInContext<Who: Audience>: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    /// The signed-in user.
    let user: User
    /// Their session's token.
    let token: String

    init(context: WayfareContext) throws {
        guard let user = context.identity, let token = context.sessionToken else {
            throw context.authenticationFailure ?? APIError.from(.unauthorized("an Authorization: Bearer token is required"))
        }
        if let role = Who.role, user.role != role { throw APIError.from(.forbidden("this needs the \(role.rawValue) role")) }
        coreContext = context.coreContext
        remoteAddress = context.remoteAddress
        self.user = user
        self.token = token
    }

    var maxUploadSize: Int { WayfareServer.maximumBodyBytes }
}

typealias AnyUserContext = SignedInContext<AnyUser>
typealias PassengerContext = SignedInContext<Passengers>
typealias DriverContext = SignedInContext<Drivers>
typealias AdminContext = SignedInContext<Admins>

/// The access a context stands for, checked against each endpoint it serves.
protocol AccessContext: RequestContext {
    static var access: Endpoint.Access { get }
}

extension WayfareContext: AccessContext {
    static var access: Endpoint.Access { .anyone }
}

extension SignedInContext: AccessContext {
    static var access: Endpoint.Access { Who.role.map { .role($0) } ?? .signedIn }
}
