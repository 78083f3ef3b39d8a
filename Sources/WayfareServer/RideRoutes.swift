import Foundation
import Hummingbird
import Services
import WayfareAPI

/// Ride requests in the manner of the Carrier use cases (002): a rider posts a trip and a
/// fare, drivers search the open ones and accept, the rider confirms one driver, the driver
/// completes and the rider pays. Requests and acceptances carry the phone's own ids
/// (`client_id`), so a phone that was offline replays its queue without doubling anything.
struct RideRequestsController {
    let server: WayfareServer

    /// The fare the city suggests, and one request: for any signed-in user who may see it.
    var userRoutes: RouteCollection<AnyUserContext> {
        let routes = RouteCollection(context: AnyUserContext.self)
        let rides = server.rideRequests, currency = server.city.city.fares.currency
        routes.on(.suggestedFare) { request, _ in
            let fare = try rides.suggestedFare(from: try request.coordinate(.from)!, to: try request.coordinate(.to)!)
            return JSONResponse.make(SuggestedFare(currency: currency, suggestedFare: fare))
        }
        // A request is seen by its rider, and by drivers while it is open or accepted or when
        // it is theirs; to anyone else it does not exist.
        routes.on(.ride) { _, context in
            let caller = context.user
            let record = try await rides.request(context.integer(.id))
            let visible = caller.id == record.rider
                || (caller.role == .driver && ([.open, .accepted].contains(record.status) || record.driver == caller.id))
            guard visible else { throw APIError.from(.notFound("ride request \(record.id)")) }
            return JSONResponse.make(RideRequestAnswer(record))
        }
        return routes
    }

    /// The rider's side: post, confirm a driver, pay, cancel.
    var riderRoutes: RouteCollection<PassengerContext> {
        let routes = RouteCollection(context: PassengerContext.self)
        let rides = server.rideRequests, currency = server.city.city.fares.currency
        routes.on(.postRide) { request, context in
            let new = try await request.decode(NewRideRequest.self)
            let draft = RideRequestDraft(rider: context.user.id, clientID: new.clientID, source: try new.source.coordinate,
                                         destination: try new.destination.coordinate, sourceAddress: new.sourceAddress ?? "",
                                         destinationAddress: new.destinationAddress ?? "", description: new.description ?? "", fare: new.fare)
            return JSONResponse.make(RideRequestAnswer(try await rides.post(draft)), status: .created)
        }
        routes.on(.confirmRide) { request, context in
            let confirmation = try await request.decode(RideConfirmation.self)
            return JSONResponse.make(RideRequestAnswer(try await rides.confirm(context.integer(.id), rider: context.user.id, driver: confirmation.driver)))
        }
        routes.on(.payRide) { request, context in
            let key = try request.idempotencyKey()
            let paid = try await rides.pay(context.integer(.id), rider: context.user.id, key: key)
            return JSONResponse.make(RidePaymentAnswer(currency: currency, method: paid.method, fare: paid.fare, walletPaid: paid.walletPaid,
                                                       cashPaid: paid.cashPaid, commission: paid.commission))
        }
        routes.on(.cancelRide) { _, context in
            JSONResponse.make(RideRequestAnswer(try await rides.cancel(context.integer(.id), rider: context.user.id)))
        }
        return routes
    }

    /// The driver's side: search, accept, complete.
    var driverRoutes: RouteCollection<DriverContext> {
        let routes = RouteCollection(context: DriverContext.self)
        let rides = server.rideRequests
        routes.on(.searchRides) { request, _ in
            let search = RideSearch(near: try request.coordinate(.near), withinMetres: Double(try request.integer(.withinMetres) ?? 5_000),
                                    keyword: try request.parameter(.keywords), address: try request.parameter(.address),
                                    minimumFare: try request.integer(.minimumFare), maximumFare: try request.integer(.maximumFare),
                                    minimumPerKilometre: try request.integer(.minimumPerKilometre),
                                    maximumPerKilometre: try request.integer(.maximumPerKilometre),
                                    limit: Int(try request.integer(.rideLimit) ?? 50))
            let matches = try await rides.search(search)
            return JSONResponse.make(RideRequestList(requests: matches.map { RideRequestAnswer($0.request, distance: $0.metres) }))
        }
        routes.on(.acceptRide) { request, context in
            let acceptance = try await request.decode(RideAcceptance.self)
            return JSONResponse.make(RideRequestAnswer(try await rides.accept(context.integer(.id), driver: context.user.id, clientID: acceptance.clientID)))
        }
        routes.on(.completeRide) { _, context in
            JSONResponse.make(RideRequestAnswer(try await rides.complete(context.integer(.id), driver: context.user.id)))
        }
        return routes
    }
}
