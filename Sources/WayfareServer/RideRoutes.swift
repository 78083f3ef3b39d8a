import Foundation
import GeoJSON
import Geodesy
import Hummingbird
import Services

/// Ride requests in the manner of the Carrier use cases (002): a rider posts a trip and a
/// fare, drivers search the open ones and accept, the rider confirms one driver, the driver
/// completes and the rider pays. Requests and acceptances carry the phone's own ids
/// (`client_id`), so a phone that was offline replays its queue without doubling anything.
extension WayfareServer {
    func addRideRoutes(_ router: Hummingbird.Router<WayfareContext>) {
        // GET /v1/ride-requests/fare?from=lat,lon&to=lat,lon → the fare the city would suggest.
        router.get("/v1/ride-requests/fare") { [self] request, _ in
            _ = try await user(request)
            let q = Query(request)
            let fare = try rideRequests.suggestedFare(from: try q.coordinate("from"), to: try q.coordinate("to"))
            return JSONResponse.make(.object([("currency", .string(city.city.fares.currency)), ("suggested_fare", .number(Double(fare)))]))
        }
        router.post("/v1/ride-requests") { [self] request, _ in
            let rider = try await user(request, role: .passenger)
            var body = try await body(request)
            let draft = RideRequestDraft(
                rider: rider.id, clientID: try body.string("client_id", maximum: 100), source: try body.coordinate("source"),
                destination: try body.coordinate("destination"), sourceAddress: try body.optionalString("source_address", maximum: 500) ?? "",
                destinationAddress: try body.optionalString("destination_address", maximum: 500) ?? "",
                description: try body.optionalString("description", maximum: 1000) ?? "",
                fare: try body.integer("fare", in: 1...10_000_000))
            try body.finish()
            return JSONResponse.make(Self.json(try await rideRequests.post(draft)), status: .created)
        }
        // GET /v1/ride-requests?near=lat,lon&within_m=5000&q=…&address=…&min_fare=…&max_fare=…
        //     &min_per_km=…&max_per_km=…&limit=50 → open and accepted requests, nearest first (drivers).
        router.get("/v1/ride-requests") { [self] request, _ in
            _ = try await user(request, role: .driver)
            let q = Query(request)
            func money(_ key: String) throws(APIError) -> Int64? {
                q.string(key) == nil ? nil : Int64(try q.integer(key, default: 0, in: 0...10_000_000))
            }
            let search = RideSearch(near: try q.optionalCoordinate("near"), withinMetres: Double(try q.integer("within_m", default: 5_000, in: 1...50_000)),
                                    keyword: q.string("q"), address: q.string("address"), minimumFare: try money("min_fare"),
                                    maximumFare: try money("max_fare"), minimumPerKilometre: try money("min_per_km"),
                                    maximumPerKilometre: try money("max_per_km"), limit: try q.integer("limit", default: 50, in: 1...200))
            if let k = search.keyword, k.utf8.count > 200 { throw APIError.invalid("q", "must be at most 200 characters") }
            if let a = search.address, a.utf8.count > 200 { throw APIError.invalid("address", "must be at most 200 characters") }
            let matches = try await rideRequests.search(search)
            return JSONResponse.make(.object([("requests", .array(matches.map { m in
                var item = Self.json(m.request)
                if case var .object(fields) = item {
                    fields.append(("distance_m", m.metres.map { .number($0.rounded()) } ?? .null))
                    item = .object(fields)
                }
                return item
            }))]))
        }
        // A request is seen by its rider, and by drivers while it is open or accepted or when
        // it is theirs; to anyone else it does not exist.
        router.get("/v1/ride-requests/:id") { [self] request, context in
            let caller = try await user(request)
            let record = try await rideRequests.request(Int64(number(context, "id")))
            let visible = caller.id == record.rider
                || (caller.role == .driver && ([.open, .accepted].contains(record.status) || record.driver == caller.id))
            guard visible else { throw APIError.from(.notFound("ride request \(record.id)")) }
            return JSONResponse.make(Self.json(record))
        }
        router.post("/v1/ride-requests/:id/accept") { [self] request, context in
            let driver = try await user(request, role: .driver)
            var body = try await body(request)
            let clientID = try body.string("client_id", maximum: 100)
            try body.finish()
            return JSONResponse.make(Self.json(try await rideRequests.accept(Int64(number(context, "id")), driver: driver.id, clientID: clientID)))
        }
        router.post("/v1/ride-requests/:id/confirm") { [self] request, context in
            let rider = try await user(request, role: .passenger)
            var body = try await body(request)
            let driver = try body.integer("driver", in: 1...Int64.max)
            try body.finish()
            return JSONResponse.make(Self.json(try await rideRequests.confirm(Int64(number(context, "id")), rider: rider.id, driver: driver)))
        }
        router.post("/v1/ride-requests/:id/complete") { [self] request, context in
            let driver = try await user(request, role: .driver)
            return JSONResponse.make(Self.json(try await rideRequests.complete(Int64(number(context, "id")), driver: driver.id)))
        }
        router.post("/v1/ride-requests/:id/pay") { [self] request, context in
            let rider = try await user(request, role: .passenger)
            let key = try idempotencyKey(request)
            let paid = try await rideRequests.pay(Int64(number(context, "id")), rider: rider.id, key: key)
            return JSONResponse.make(.object([("currency", .string(city.city.fares.currency)), ("method", .string(paid.method)),
                                              ("fare", .number(Double(paid.fare))), ("wallet_paid", .number(Double(paid.walletPaid))),
                                              ("cash_paid", .number(Double(paid.cashPaid))), ("commission", .number(Double(paid.commission)))]))
        }
        router.post("/v1/ride-requests/:id/cancel") { [self] request, context in
            let rider = try await user(request, role: .passenger)
            return JSONResponse.make(Self.json(try await rideRequests.cancel(Int64(number(context, "id")), rider: rider.id)))
        }
    }

    static func json(_ r: RideRequestRecord) -> JSONValue {
        .object([
            ("id", .number(Double(r.id))), ("client_id", .string(r.clientID)), ("rider", .number(Double(r.rider))),
            ("status", .string(r.status.rawValue)), ("source", r.source.json), ("destination", r.destination.json),
            ("source_address", .string(r.sourceAddress)), ("destination_address", .string(r.destinationAddress)),
            ("description", .string(r.description)), ("fare", .number(Double(r.fare))), ("metres", .number(Double(r.metres))),
            ("fare_per_km", .number(Double(r.farePerKilometre))), ("accepted_by", .array(r.acceptedBy.map { .number(Double($0)) })),
            ("driver", r.driver.map { .number(Double($0)) } ?? .null), ("created", r.created.json),
        ])
    }
}
