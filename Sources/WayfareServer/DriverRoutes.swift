import Fleet
import Foundation
import GeoJSON
import Geodesy
import Hummingbird
import Services
import TaxiDispatch

/// The driver's side: the shift, position reports, availability, offers and the trip.
extension WayfareServer {
    func addDriverRoutes(_ router: Hummingbird.Router<WayfareContext>) {
        router.post("/v1/driver/shift") { [self] request, _ in
            let driver = try await user(request, role: .driver)
            var body = try await body(request)
            let cab = CabProfile(id: try body.string("cab_id", maximum: 64), type: CabType(try body.string("cab_type", maximum: 64)),
                                 seats: Int(try body.optionalInteger("seats", in: 1...50) ?? 4))
            try body.finish()
            try await bookings.startShift(driver: driver.id, cab: cab)
            return Response(status: .noContent)
        }
        // A position report, every few seconds: {"position":{lat,lon}}; the server's clock
        // stamps it (a phone's clock is not to be trusted).
        router.post("/v1/driver/position") { [self] request, _ in
            let driver = try await user(request, role: .driver)
            var body = try await body(request)
            let position = try body.coordinate("position")
            try body.finish()
            try bookings.report(driver: driver.id, position: position, at: bookings.dispatcher.fleet.clock.now())
            return Response(status: .noContent)
        }
        router.post("/v1/driver/availability") { [self] request, _ in
            let driver = try await user(request, role: .driver)
            var body = try await body(request)
            let available = try body.bool("available")
            try body.finish()
            try bookings.setAvailable(driver: driver.id, available)
            return Response(status: .noContent)
        }
        router.get("/v1/driver/offers") { [self] request, _ in
            let driver = try await user(request, role: .driver)
            return JSONResponse.make(.object([("offers", .array(bookings.offers(for: driver.id).map(Self.json)))]))
        }
        router.post("/v1/driver/offers/:id") { [self] request, context in
            let driver = try await user(request, role: .driver)
            var body = try await body(request)
            let accept = try body.bool("accept")
            try body.finish()
            try await bookings.answer(offer: UInt64(number(context, "id")), driver: driver.id, accept: accept)
            return Response(status: .noContent)
        }
        router.post("/v1/driver/bookings/:number/arrived") { [self] request, context in
            let driver = try await user(request, role: .driver)
            try await bookings.arrived(number(context, "number"), driver: driver.id)
            return Response(status: .noContent)
        }
        router.post("/v1/driver/bookings/:number/started") { [self] request, context in
            let driver = try await user(request, role: .driver)
            try await bookings.started(number(context, "number"), driver: driver.id)
            return Response(status: .noContent)
        }
        // The end of the trip (Idempotency-Key): the taximeter's metres and waiting on the way,
        // a cross-check of the fare the server bills from the trip's track.
        router.post("/v1/driver/bookings/:number/complete") { [self] request, context in
            let driver = try await user(request, role: .driver)
            let key = try idempotencyKey(request)
            var body = try await body(request)
            let metres = try body.integer("metres", in: 0...1_000_000_000)
            let waiting = try body.optionalInteger("waiting_on_the_way_s", in: 0...86_400) ?? 0
            try body.finish()
            let invoice = try await bookings.complete(number(context, "number"), driver: driver.id,
                                                      trip: TripReport(metres: metres, waitingOnTheWaySeconds: waiting), key: key)
            return JSONResponse.make(.object([
                ("booking", .number(Double(invoice.booking))), ("currency", .string(city.city.fares.currency)),
                ("base", .number(Double(invoice.base))), ("distance", .number(Double(invoice.distance))),
                ("waiting", .number(Double(invoice.waiting))), ("tolls", .number(Double(invoice.tolls))),
                ("discount", .number(Double(invoice.discount))), ("total", .number(Double(invoice.total))),
                ("method", .string(invoice.method)), ("wallet_paid", .number(Double(invoice.walletPaid))),
                ("cash_paid", .number(Double(invoice.cashPaid))), ("commission", .number(Double(invoice.commission))),
                ("billed_m", .number(Double(invoice.billedMetres))), ("meter_m", .number(Double(invoice.meterMetres))),
                ("review", invoice.review.map { .string($0) } ?? .null),
                ("awaiting_confirmation", .number(Double(invoice.awaitingConfirmation))),
            ]))
        }
    }

    static func json(_ o: DriverOffer) -> JSONValue {
        .object([("id", .number(Double(o.id))), ("booking", .number(Double(o.booking))), ("cab", .string(o.cab)),
                 ("pickup", o.pickup.json), ("destination", o.destination?.json ?? .null), ("eta_s", .number((o.etaSeconds * 10).rounded() / 10)), ("expires", o.expires.json)])
    }
}
