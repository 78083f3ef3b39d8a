import Fleet
import Foundation
import Hummingbird
import Services
import TaxiDispatch
import WayfareAPI

/// The driver's side: the shift, position reports, availability, offers (polled or pushed)
/// and the trip. All of it is the live fleet's, so the city's owner answers it.
struct DriversController {
    let server: WayfareServer

    var routes: RouteCollection<DriverContext> {
        let routes = RouteCollection(context: DriverContext.self)
        let server = server, bookings = server.bookings, currency = server.city.city.fares.currency
        routes.add(middleware: OwnerRedirectMiddleware(server: server))
        routes.on(.startShift) { request, context in
            let shift = try await request.decode(ShiftStart.self)
            try await bookings.startShift(driver: context.user.id, cab: CabProfile(id: shift.cabID, type: CabType(shift.cabType), seats: shift.seats ?? 4))
            return Response(status: .noContent)
        }
        // A position report, every few seconds; the server's clock stamps it (a phone's clock
        // is not to be trusted).
        routes.on(.reportPosition) { request, context in
            let report = try await request.decode(PositionReport.self)
            try bookings.report(driver: context.user.id, position: try report.position.coordinate, at: bookings.dispatcher.fleet.clock.now())
            return Response(status: .noContent)
        }
        routes.on(.setAvailability) { request, context in
            try bookings.setAvailable(driver: context.user.id, try await request.decode(AvailabilityChange.self).available)
            return Response(status: .noContent)
        }
        routes.on(.offers) { _, context in
            JSONResponse.make(OfferList(offers: bookings.offers(for: context.user.id).map(OfferAnswer.init)))
        }
        routes.on(.offerStream) { _, context in try server.offerStream(driver: context.user.id) }
        routes.on(.answerOffer) { request, context in
            let reply = try await request.decode(OfferReply.self)
            guard let offer = UInt64(exactly: try context.integer(.id)) else { throw APIError.invalid("id", "is out of range") }
            try await bookings.answer(offer: offer, driver: context.user.id, accept: reply.accept)
            return Response(status: .noContent)
        }
        routes.on(.arrived) { _, context in
            try await bookings.arrived(context.int(.number), driver: context.user.id)
            return Response(status: .noContent)
        }
        routes.on(.started) { _, context in
            try await bookings.started(context.int(.number), driver: context.user.id)
            return Response(status: .noContent)
        }
        // The end of the trip (Idempotency-Key): the taximeter's reading, a cross-check of
        // the fare the server bills from the trip's track.
        routes.on(.completeTrip) { request, context in
            let key = try request.idempotencyKey()
            let end = try await request.decode(TripEnd.self)
            let invoice = try await bookings.complete(context.int(.number), driver: context.user.id,
                                                      trip: TripReport(metres: end.metres, waitingOnTheWaySeconds: end.waitingOnTheWayS ?? 0), key: key)
            return JSONResponse.make(InvoiceAnswer(invoice, currency: currency))
        }
        return routes
    }
}
