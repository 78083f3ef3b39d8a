import Foundation
import Hummingbird
import NIOCore
import Logging

/// The request context of every route: Hummingbird's core (logger with the request id,
/// path parameters) and the body limit.
///
/// `Sendable`: a value type of `Sendable` parts.
public struct WayfareContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The address of the connected client (what the rate limit keys anonymous calls by).
    public let remoteAddress: SocketAddress?

    /// A context for one request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Request bodies are small JSON objects: 64 KiB is far more than any needs, and a
    /// larger body is refused with 413 before it is read whole.
    public var maxUploadSize: Int { WayfareServer.maximumBodyBytes }
}
