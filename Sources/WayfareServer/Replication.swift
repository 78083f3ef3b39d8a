import Fleet
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Services

/// How this replica stands toward the city's lease: owner (it runs the live fleet and
/// dispatch) or not, and where the owner is.
struct LeaseView: Sendable {
    var owning = false
    var ownerURL: String?
    var token: Int64 = 0
}

/// Claims or renews the city's lease every second; on becoming the owner, gives the live
/// state back (`Bookings.resume()`: the cabs on shift rejoin the fleet until their drivers'
/// next reports, open searches are searched again).
struct LeaseKeeper: Service {
    let server: WayfareServer
    let lease: CityLease

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    await tick()
                    try await Task.sleep(for: .seconds(1))
                }
            }
        } catch is CancellationError {}
    }

    func tick() async {
        let holder: CityLease.Holder
        do { holder = try await lease.claim(now: Date()) } catch {
            // The store is away: nothing can be written anyway, and the fence refuses this
            // replica's outcomes once another has taken the lease.
            server.logger.error("lease: \(error)")
            return
        }
        let mine = holder.owner == lease.owner
        // Dispatch outcomes are written only under the token this replica holds now.
        server.bookings.fence(city: lease.city, token: mine ? holder.token : 0)
        // A replica that has just taken the lease serves the fleet only once `resume()` has
        // given it back: until then it answers 503 (no owner known yet), not a fleet whose
        // cabs have rejoined without their positions. Ticks run one after another, so no
        // other tick sees the lease while this one resumes.
        let became = server.leaseView.withLock { view -> Bool in
            let became = mine && !view.owning
            view = became ? LeaseView(owning: false, ownerURL: nil, token: holder.token)
                          : LeaseView(owning: mine, ownerURL: holder.url, token: holder.token)
            return became
        }
        if became {
            server.logger.notice("lease: this replica owns \(lease.city) (token \(holder.token)); resuming the fleet and open searches")
            do { try await server.bookings.resume() } catch { server.logger.error("resume failed: \(error)") }
            server.leaseView.withLock { $0 = LeaseView(owning: true, ownerURL: holder.url, token: holder.token) }
        }
    }
}

/// On a replica that does not own the city, sends the routes of the live fleet and dispatch
/// (the collections that add this middleware: the driver's side, the cabs, booking and
/// tracking) to the owner with `307 Temporary Redirect` (method, body and idempotency key
/// are kept by the client), or answers 503 while no owner is known. Everything else is
/// served here from the store. On the only process, which owns the city, it passes through.
struct OwnerRedirectMiddleware<Context: RequestContext>: RouterMiddleware {
    let server: WayfareServer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let view = server.leaseView.withLock { $0 }
        if view.owning { return try await next(request, context) }
        guard let owner = view.ownerURL else {
            var error = APIError(.serviceUnavailable, code: "unavailable", message: "no replica owns the city's fleet yet; try again")
            error.headers[.retryAfter] = "1"
            throw error
        }
        var headers = HTTPFields()
        headers[.location] = owner + request.uri.description
        headers[.retryAfter] = "0"
        return Response(status: .temporaryRedirect, headers: headers)
    }
}
