import Fares
import Fleet
import Foundation
import GeoJSON
import Geodesy
import Hummingbird
import Services

/// A passenger's bookings: estimates, booking now and later, lists, tracking, history,
/// changes, cancellation and feedback. Another passenger's booking is *not found*.
extension WayfareServer {
    func addBookingRoutes(_ router: Hummingbird.Router<WayfareContext>) {
        router.post("/v1/estimates") { [self] request, _ in
            let passenger = try await user(request, role: .passenger)
            var body = try await body(request)
            let trip = try Self.bookingRequest(&body, passenger: passenger.id)
            try body.finish()
            let fare = try await bookings.estimate(trip)
            return JSONResponse.make(Self.json(fare, currency: city.city.fares.currency))
        }
        // POST /v1/bookings (Idempotency-Key): now, or for `pickup_time`.
        router.post("/v1/bookings") { [self] request, _ in
            let passenger = try await user(request, role: .passenger)
            let key = try idempotencyKey(request)
            var body = try await body(request)
            let trip = try Self.bookingRequest(&body, passenger: passenger.id)
            let pickupTime = try body.optionalDate("pickup_time")
            try body.finish()
            let booking: Booking
            if let pickupTime { booking = try await bookings.bookLater(trip, at: pickupTime, key: key) }
            else { booking = try await bookings.bookNow(trip, key: key) }
            return JSONResponse.make(Self.json(booking), status: .created)
        }
        router.get("/v1/bookings") { [self] request, _ in
            let passenger = try await user(request, role: .passenger)
            let which = Query(request).string("list") ?? "pending"
            let list: BookingList
            switch which {
            case "pending": list = try await bookings.pending(for: passenger.id)
            case "previous": list = try await bookings.previous(for: passenger.id)
            default: throw APIError.invalid("list", "must be pending or previous")
            }
            return JSONResponse.make(.object([("bookings", .array(list.bookings.map(Self.json))),
                                              ("message", list.message.map { .string($0) } ?? .null)]))
        }
        router.get("/v1/bookings/:number") { [self] request, context in
            let passenger = try await user(request, role: .passenger)
            return JSONResponse.make(Self.json(try await bookings.booking(number(context, "number"), for: passenger.id)))
        }
        router.patch("/v1/bookings/:number") { [self] request, context in
            let passenger = try await user(request, role: .passenger)
            let key = try idempotencyKey(request)
            var body = try await body(request)
            let change = BookingChange(pickup: try body.optionalCoordinate("pickup"), destination: try body.optionalCoordinate("destination"),
                                       pickupTime: try body.optionalDate("pickup_time"))
            try body.finish()
            return JSONResponse.make(Self.json(try await bookings.change(number(context, "number"), for: passenger.id, change, key: key)))
        }
        router.post("/v1/bookings/:number/cancel") { [self] request, context in
            let passenger = try await user(request, role: .passenger)
            let key = try idempotencyKey(request)
            return JSONResponse.make(Self.json(try await bookings.cancel(number(context, "number"), for: passenger.id, key: key)))
        }
        // The passenger agrees to pay the part of a fare above the estimate's cap.
        router.post("/v1/bookings/:number/fare-confirmation") { [self] request, context in
            let passenger = try await user(request, role: .passenger)
            let key = try idempotencyKey(request)
            let n = try number(context, "number")
            let paid = try await bookings.confirmFare(n, for: passenger.id, key: key)
            return JSONResponse.make(.object([("booking", .number(Double(n))), ("currency", .string(city.city.fares.currency)),
                                              ("paid", .number(Double(paid)))]))
        }
        router.get("/v1/bookings/:number/track") { [self] request, context in
            let passenger = try await user(request, role: .passenger)
            let t = try await bookings.track(number(context, "number"), for: passenger.id)
            return JSONResponse.make(.object([
                ("state", .string(t.state.rawValue)), ("cab_position", t.cabPosition?.json ?? .null),
                ("reported_at", t.reportedAt?.json ?? .null),
                ("remaining_m", t.remainingMetres.map { .number($0.rounded()) } ?? .null),
                ("eta_s", t.etaSeconds.map { .number(($0 * 10).rounded() / 10) } ?? .null),
                ("remaining_route", .object([("type", .string("LineString")),
                                             ("coordinates", .array(t.remainingRoute.map { .array([.number($0.longitude), .number($0.latitude)]) }))])),
            ]))
        }
        router.get("/v1/bookings/:number/history") { [self] request, context in
            let passenger = try await user(request, role: .passenger)
            let events = try await bookings.history(of: number(context, "number"), for: passenger.id)
            return JSONResponse.make(.object([("events", .array(events.map { e in
                .object([("state", .string(e.state.rawValue)), ("time", e.time.json), ("detail", .string(e.detail))])
            }))]))
        }
        router.post("/v1/bookings/:number/feedback") { [self] request, context in
            let passenger = try await user(request, role: .passenger)
            var body = try await body(request)
            let feedback = Feedback(driver: Int(try body.integer("driver", in: 1...5)), cab: Int(try body.integer("cab", in: 1...5)),
                                    experience: Int(try body.integer("experience", in: 1...5)),
                                    comment: try body.optionalString("comment", maximum: 500) ?? "")
            try body.finish()
            try await bookings.giveFeedback(feedback, on: number(context, "number"), for: passenger.id)
            return Response(status: .created)
        }
    }

    /// The trip of a booking or an estimate: `pickup`, `destination`, `cab_type`, and
    /// optionally `seats` (1) and `payment` (`wallet`).
    static func bookingRequest(_ body: inout JSONBody, passenger: Int64) throws(APIError) -> BookingRequest {
        let pickup = try body.coordinate("pickup"), destination = try body.coordinate("destination")
        let type = try body.string("cab_type", maximum: 64)
        let seats = Int(try body.optionalInteger("seats", in: 1...50) ?? 1)
        let paymentText = try body.optionalString("payment", maximum: 16) ?? "wallet"
        guard let payment = PaymentMethod(rawValue: paymentText) else { throw APIError.invalid("payment", "must be wallet or cash") }
        return BookingRequest(passenger: passenger, pickup: pickup, destination: destination, cabType: CabType(type), seats: seats, payment: payment)
    }

    static func json(_ b: Booking) -> JSONValue {
        .object([
            ("number", .number(Double(b.number))), ("kind", .string(b.kind.rawValue)), ("state", .string(b.state.rawValue)),
            ("pickup", b.pickup.json), ("destination", b.destination.json), ("pickup_time", b.pickupTime.json),
            ("cab_type", .string(b.cabType.name)), ("seats", .number(Double(b.seats))), ("payment", .string(b.payment.rawValue)),
            ("estimate", .number(Double(b.estimate))), ("cab", b.cab.map { .string($0) } ?? .null),
            ("driver", b.driver.map { .number(Double($0)) } ?? .null), ("eta_s", b.etaSeconds.map { .number(Double($0)) } ?? .null),
            ("reason", b.reason.map { .string($0) } ?? .null), ("fare", b.fare.map { .number(Double($0)) } ?? .null),
            ("created", b.created.json),
        ])
    }

    static func json(_ fare: FareBreakdown, currency: String) -> JSONValue {
        .object([("currency", .string(currency)), ("base", .number(Double(fare.base))), ("distance", .number(Double(fare.distance))),
                 ("waiting", .number(Double(fare.waiting))), ("tolls", .number(Double(fare.tolls))),
                 ("discount", .number(Double(fare.discount))), ("total", .number(Double(fare.total)))])
    }
}
