import Fares
import Fleet
import Foundation
import Hummingbird
import Services
import WayfareAPI

/// A passenger's bookings: estimates, booking now and later, lists, tracking, history,
/// changes, cancellation, fare confirmation and feedback. Another passenger's booking is
/// *not found*.
struct BookingsController {
    let server: WayfareServer

    var routes: RouteCollection<PassengerContext> {
        let routes = RouteCollection(context: PassengerContext.self)
        let server = server, bookings = server.bookings, currency = server.city.city.fares.currency
        // Reading from the store needs no owner: any replica answers these.
        routes.on(.bookings) { request, context in
            let list: BookingList
            switch try request.parameter(.bookingList).flatMap(BookingListKind.init(rawValue:)) ?? .pending {
            case .pending: list = try await bookings.pending(for: context.user.id)
            case .previous: list = try await bookings.previous(for: context.user.id)
            }
            return JSONResponse.make(BookingListAnswer(bookings: list.bookings.map(BookingAnswer.init), message: list.message))
        }
        routes.on(.booking) { _, context in
            JSONResponse.make(BookingAnswer(try await bookings.booking(context.int(.number), for: context.user.id)))
        }
        routes.on(.history) { _, context in
            let events = try await bookings.history(of: context.int(.number), for: context.user.id)
            let driven = try await bookings.drivenTrack(of: context.int(.number), for: context.user.id)
            return JSONResponse.make(BookingHistory(events: events.map { .init(state: $0.state, time: $0.time, detail: $0.detail) },
                                                    drivenTrack: driven.map(LineString.init)))
        }
        routes.on(.estimate) { request, context in
            let trip = try await request.decode(TripOrder.self)
            let fare = try await bookings.estimate(try BookingRequest(trip, passenger: context.user.id))
            return JSONResponse.make(FareQuote(fare, currency: currency))
        }
        // What follows changes the live dispatch or reads the live fleet: the city's owner
        // answers it (another replica redirects there).
        routes.add(middleware: OwnerRedirectMiddleware(server: server))
        // Now, or for `pickup_time` (Idempotency-Key).
        routes.on(.book) { request, context in
            let key = try request.idempotencyKey()
            let order = try await request.decode(BookingOrder.self)
            let trip = try BookingRequest(order.trip, passenger: context.user.id)
            let booking: Booking
            if let pickupTime = order.pickupTime { booking = try await bookings.bookLater(trip, at: pickupTime, key: key) }
            else { booking = try await bookings.bookNow(trip, key: key) }
            return JSONResponse.make(BookingAnswer(booking), status: .created)
        }
        routes.on(.changeBooking) { request, context in
            let key = try request.idempotencyKey()
            let patch = try await request.decode(BookingPatch.self)
            let change = BookingChange(pickup: try patch.pickup?.coordinate, destination: try patch.destination?.coordinate, pickupTime: patch.pickupTime)
            return JSONResponse.make(BookingAnswer(try await bookings.change(context.int(.number), for: context.user.id, change, key: key)))
        }
        routes.on(.cancelBooking) { request, context in
            let key = try request.idempotencyKey()
            return JSONResponse.make(BookingAnswer(try await bookings.cancel(context.int(.number), for: context.user.id, key: key)))
        }
        // The passenger agrees to pay the part of a fare above the estimate's cap.
        routes.on(.confirmFare) { request, context in
            let key = try request.idempotencyKey()
            let n = try context.int(.number)
            let paid = try await bookings.confirmFare(n, for: context.user.id, key: key)
            return JSONResponse.make(FareConfirmation(booking: n, currency: currency, paid: paid))
        }
        routes.on(.track) { _, context in
            JSONResponse.make(TrackingAnswer(try await bookings.track(context.int(.number), for: context.user.id)))
        }
        routes.on(.feedback) { request, context in
            let form = try await request.decode(FeedbackForm.self)
            let feedback = Feedback(driver: form.driver, cab: form.cab, experience: form.experience, comment: form.comment ?? "")
            try await bookings.giveFeedback(feedback, on: context.int(.number), for: context.user.id)
            return Response(status: .created)
        }
        return routes
    }
}

extension BookingRequest {
    /// The service's trip from the wire's: one seat and the wallet unless said otherwise.
    init(_ trip: TripOrder, passenger: Int64) throws(WireError) {
        self.init(passenger: passenger, pickup: try trip.pickup.coordinate, destination: try trip.destination.coordinate,
                  cabType: CabType(trip.cabType), seats: trip.seats ?? 1, payment: trip.payment ?? .wallet, route: trip.route ?? 0)
    }
}

extension FareQuote {
    /// The wire's view of a fare's parts.
    init(_ fare: FareBreakdown, currency: String) {
        self.init(currency: currency, base: fare.base, distance: fare.distance, waiting: fare.waiting, tolls: fare.tolls,
                  discount: fare.discount, total: fare.total)
    }
}
