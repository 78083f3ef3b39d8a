import Foundation

extension Parameter {
    static let latlon = "lat,lon in degrees"
    /// `Idempotency-Key`: required on every call that books or moves money.
    public static let idempotencyKey = Parameter("Idempotency-Key", in: .header, required: true,
                                                 "any unique string of 1 to 100 characters: a retry with the same key has the effect of one call",
                                                 .text(maximum: 100))
    /// `Wayfare-Signature: t=UNIX,v1=HEX` on the gateway's callbacks.
    public static let signature = Parameter("Wayfare-Signature", in: .header, required: true,
                                            "t=UNIX,v1=HMAC-SHA256(secret, t.body) in hex", .text(maximum: 300))
    /// A booking's number in the path.
    public static let number = Parameter("number", in: .path, required: true, "the booking's number", .integer(0...Int64.max))
    /// A record's id in the path.
    public static let id = Parameter("id", in: .path, required: true, "the id", .integer(0...Int64.max))
    /// A favourite's name in the path (percent-encoded).
    public static let favouriteName = Parameter("name", in: .path, required: true, "the favourite's name", .text(maximum: 200))
    /// The point asked about.
    public static let at = Parameter("at", in: .query, required: true, latlon, .coordinate)
    /// Where a route or trip starts.
    public static let from = Parameter("from", in: .query, required: true, latlon, .coordinate)
    /// Where a route or trip ends.
    public static let to = Parameter("to", in: .query, required: true, latlon, .coordinate)
    /// How many routes to offer.
    public static let alternatives = Parameter("alternatives", in: .query, required: false,
                                               "up to this many routes (1 to 3): the fastest and admissible alternatives, as a RouteList", .integer(1...3))
    /// How a route's geometry is written.
    public static let geometries = Parameter("geometries", in: .query, required: false,
                                             "geojson (default): `geometry` is a GeoJSON LineString; polyline6: `polyline6` is the encoded polyline at precision 6, as OSRM's `geometries=polyline6`, and `geometry` is null",
                                             .choice(GeometryFormat.allCases.map(\.rawValue)))
    /// A point to search near.
    public static let near = Parameter("near", in: .query, required: false, latlon, .coordinate)
    /// How many nearest cabs.
    public static let nearestCount = Parameter("k", in: .query, required: false, "how many (default 5)", .integer(1...50))
    /// A cab type to filter by.
    public static let cabType = Parameter("type", in: .query, required: false, "a cab type", .text(maximum: 64))
    /// The text to geocode.
    public static let geocodeText = Parameter("q", in: .query, required: true, "the text", .text(maximum: 200))
    /// How many places.
    public static let geocodeLimit = Parameter("limit", in: .query, required: false, "how many (default 5)", .integer(1...20))
    /// Which bookings.
    public static let bookingList = Parameter("list", in: .query, required: false, "pending (default) or previous",
                                              .choice(BookingListKind.allCases.map(\.rawValue)))
    /// How far to search for ride requests.
    public static let withinMetres = Parameter("within_m", in: .query, required: false, "metres (default 5000)", .integer(1...50_000))
    /// Keywords of a ride request's note.
    public static let keywords = Parameter("q", in: .query, required: false, "keywords", .text(maximum: 200))
    /// Words of a ride request's address.
    public static let address = Parameter("address", in: .query, required: false, "words of an address", .text(maximum: 200))
    /// The least fare.
    public static let minimumFare = Parameter("min_fare", in: .query, required: false, "minor units", .integer(0...10_000_000))
    /// The most fare.
    public static let maximumFare = Parameter("max_fare", in: .query, required: false, "minor units", .integer(0...10_000_000))
    /// The least fare per km.
    public static let minimumPerKilometre = Parameter("min_per_km", in: .query, required: false, "minor units per km", .integer(0...10_000_000))
    /// The most fare per km.
    public static let maximumPerKilometre = Parameter("max_per_km", in: .query, required: false, "minor units per km", .integer(0...10_000_000))
    /// How many ride requests.
    public static let rideLimit = Parameter("limit", in: .query, required: false, "how many (default 50)", .integer(1...200))
}

extension Endpoint {
    // MARK: Operations

    /// `GET /health`.
    public static let health = Endpoint(.get, "/health", "The process answers; payments is test on the test-mode gateway (no money moves), sms is test when codes come back in answers",
                                        tag: "operations", answers: [.json(200, "OK", Health.self)])
    /// `GET /ready`.
    public static let ready = Endpoint(.get, "/ready", "The store answers (an admin also sees the replica's standing)", tag: "operations",
                                       answers: [.json(200, "ready", Readiness.self)])
    /// `GET /metrics`.
    public static let metrics = Endpoint(.get, "/metrics", "Prometheus metrics (admins)", tag: "operations", access: .role(.admin),
                                         answers: [.media(200, "the metrics", "text/plain")])
    /// `GET /openapi.json`.
    public static let openAPI = Endpoint(.get, "/openapi.json", "This document", tag: "operations",
                                         answers: [.media(200, "the OpenAPI 3.1 document", "application/json")])
    /// `GET /`.
    public static let page = Endpoint(.get, "/", "The live map", tag: "operations", answers: [.media(200, "the page", "text/html")])

    // MARK: The engine

    /// `GET /v1/zone`.
    public static let zone = Endpoint(.get, "/v1/zone", "The zone and service area of a point", tag: "engine", parameters: [.at],
                                      answers: [.json(200, "OK", ZoneAnswer.self)])
    /// `GET /v1/zones`.
    public static let zones = Endpoint(.get, "/v1/zones", "Zones and service areas as GeoJSON", tag: "engine",
                                       answers: [.media(200, "a FeatureCollection", "application/geo+json")])
    /// `GET /v1/streets`.
    public static let streets = Endpoint(.get, "/v1/streets", "The streets as a GeoJSON MultiLineString", tag: "engine",
                                         answers: [.media(200, "a MultiLineString", "application/geo+json")])
    /// `GET /v1/route`.
    public static let route = Endpoint(.get, "/v1/route", "The fastest route; with `alternatives`, up to that many routes, fastest first, each with its fare estimate",
                                       tag: "engine", parameters: [.from, .to, .alternatives, .geometries],
                                       answers: [.json(200, "OK: a route, or a RouteList when alternatives is given", RouteAnswer.self, or: RouteList.self)],
                                       failures: [422])
    /// `POST /v1/match`.
    public static let match = Endpoint(.post, "/v1/match", "A GPS trace matched to the roads: the track driven, its length and time, each report's place on it",
                                       tag: "engine", request: Body(MatchRequest.self), answers: [.json(200, "OK", MatchAnswer.self)], failures: [422])
    /// `POST /v1/etas`.
    public static let etas = Endpoint(.post, "/v1/etas", "ETAs of many cabs to one place", tag: "engine", request: Body(ETARequest.self),
                                      answers: [.json(200, "OK", ETAList.self)], failures: [422])
    /// `GET /v1/cabs/nearest`.
    public static let nearestCabs = Endpoint(.get, "/v1/cabs/nearest", "The nearest free cabs (ids and exact positions for admins; others get positions to 0.001° and distances to 100 m)",
                                             tag: "engine", parameters: [.at, .nearestCount, .cabType], answers: [.json(200, "OK", CabList.self)])
    /// `GET /v1/cabs`.
    public static let cabs = Endpoint(.get, "/v1/cabs", "Every cab on shift (ids and exact positions for admins; others get positions to 0.001°)",
                                      tag: "engine", answers: [.json(200, "OK", CabList.self)])
    /// `GET /v1/geocode`.
    public static let geocode = Endpoint(.get, "/v1/geocode", "Places matching a text", tag: "engine", parameters: [.geocodeText, .near, .geocodeLimit],
                                         answers: [.json(200, "OK", PlaceList.self)], failures: [404])
    /// `GET /v1/reverse`.
    public static let reverse = Endpoint(.get, "/v1/reverse", "The address at a point", tag: "engine", parameters: [.at],
                                         answers: [.json(200, "OK", PlaceAnswer.self)], failures: [404])
    /// `GET /v1/fares`.
    public static let fares = Endpoint(.get, "/v1/fares", "The fare chart where a trip starts", tag: "engine", parameters: [.at],
                                       answers: [.json(200, "OK", FareChartAnswer.self)], failures: [422])

    // MARK: Accounts

    /// `POST /v1/accounts`.
    public static let register = Endpoint(.post, "/v1/accounts", "Register a passenger: the same answer whether or not the number is taken; a one-time code goes to the mobile (in test_code on a server with test SMS)",
                                          tag: "accounts", request: Body(NewAccount.self), answers: [.json(202, "code sent", CodeSent.self)])
    /// `POST /v1/accounts/verify`.
    public static let verify = Endpoint(.post, "/v1/accounts/verify", "Activate a registration with the code sent to its mobile", tag: "accounts",
                                        request: Body(AccountVerification.self), answers: [.json(201, "active", UserAnswer.self)], failures: [401])
    /// `POST /v1/drivers`.
    public static let createDriver = Endpoint(.post, "/v1/drivers", "Create a driver (admin)", tag: "accounts", access: .role(.admin),
                                              request: Body(NewAccount.self), answers: [.json(201, "created", UserAnswer.self)], failures: [409])
    /// `POST /v1/sessions`.
    public static let logIn = Endpoint(.post, "/v1/sessions", "Log in (401 on a wrong mobile or password, 403 when suspended after 3 failed attempts)",
                                       tag: "accounts", request: Body(Credentials.self), answers: [.json(201, "logged in", SessionGrant.self)],
                                       failures: [401, 403])
    /// `DELETE /v1/sessions`.
    public static let logOut = Endpoint(.delete, "/v1/sessions", "Log out", tag: "accounts", access: .signedIn, answers: [.empty(204, "logged out")])
    /// `GET /v1/me`.
    public static let me = Endpoint(.get, "/v1/me", "The signed-in user", tag: "accounts", access: .signedIn, answers: [.json(200, "OK", UserAnswer.self)])
    /// `POST /v1/me/password`.
    public static let changePassword = Endpoint(.post, "/v1/me/password", "Change the password", tag: "accounts", access: .signedIn,
                                                request: Body(PasswordChange.self), answers: [.empty(204, "changed")])
    /// `POST /v1/password-resets`.
    public static let requestReset = Endpoint(.post, "/v1/password-resets", "Ask for a reset token by e-mail", tag: "accounts",
                                              request: Body(ResetRequest.self),
                                              answers: [.json(202, "accepted (whether or not the address is registered)", Accepted.self)])
    /// `POST /v1/password-resets/complete`.
    public static let completeReset = Endpoint(.post, "/v1/password-resets/complete", "Set a new password with a reset token", tag: "accounts",
                                               request: Body(PasswordReset.self), answers: [.empty(204, "changed")], failures: [401])
    /// `GET /v1/admin/suspended`.
    public static let suspended = Endpoint(.get, "/v1/admin/suspended", "Suspended accounts (admin)", tag: "admin", access: .role(.admin),
                                           answers: [.json(200, "OK", UserList.self)])
    /// `GET /v1/admin/ledger`.
    public static let ledger = Endpoint(.get, "/v1/admin/ledger", "The company's ledger and its audit (admin)", tag: "admin", access: .role(.admin),
                                        answers: [.json(200, "OK", LedgerSummary.self)])
    /// `POST /v1/admin/users/{id}/lift-suspension`.
    public static let liftSuspension = Endpoint(.post, "/v1/admin/users/{id}/lift-suspension", "Lift a suspension (admin)", tag: "admin",
                                                access: .role(.admin), parameters: [.id], answers: [.empty(204, "lifted")], failures: [404])

    // MARK: Wallet and favourites

    /// `GET /v1/wallet`.
    public static let wallet = Endpoint(.get, "/v1/wallet", "The wallet's balance", tag: "wallet", access: .role(.passenger),
                                        answers: [.json(200, "OK", WalletBalance.self)])
    /// `POST /v1/wallet/refills`.
    public static let refill = Endpoint(.post, "/v1/wallet/refills", "Top up from a card (201 charged, 202 a 3-D Secure step or pending, 402 declined)",
                                        tag: "wallet", access: .role(.passenger), parameters: [.idempotencyKey], request: Body(RefillOrder.self),
                                        answers: [.json(201, "charged", RefillOutcome.self), .json(202, "a 3-D Secure step, or pending", RefillOutcome.self),
                                                  .json(402, "declined", RefillOutcome.self)],
                                        failures: [404, 409, 422])
    /// `GET /v1/favourites`.
    public static let favourites = Endpoint(.get, "/v1/favourites", "Favourite places", tag: "favourites", access: .role(.passenger),
                                            answers: [.json(200, "OK", FavouriteList.self)])
    /// `POST /v1/favourites`.
    public static let addFavourite = Endpoint(.post, "/v1/favourites", "Add a favourite place (20 at most, 150 m apart)", tag: "favourites",
                                              access: .role(.passenger), request: Body(NewFavourite.self), answers: [.empty(201, "added")],
                                              failures: [409])
    /// `DELETE /v1/favourites/{name}`.
    public static let removeFavourite = Endpoint(.delete, "/v1/favourites/{name}", "Remove a favourite place", tag: "favourites",
                                                 access: .role(.passenger), parameters: [.favouriteName], answers: [.empty(204, "removed")],
                                                 failures: [404])

    // MARK: Bookings

    /// `POST /v1/estimates`.
    public static let estimate = Endpoint(.post, "/v1/estimates", "A fare estimate", tag: "bookings", access: .role(.passenger),
                                          request: Body(TripOrder.self), answers: [.json(200, "OK", FareQuote.self)], failures: [409, 422])
    /// `POST /v1/bookings`.
    public static let book = Endpoint(.post, "/v1/bookings", "Book now, or for pickup_time", tag: "bookings", access: .role(.passenger),
                                      parameters: [.idempotencyKey], request: Body(BookingOrder.self),
                                      answers: [.json(201, "booked", BookingAnswer.self)], failures: [404, 409, 422])
    /// `GET /v1/bookings`.
    public static let bookings = Endpoint(.get, "/v1/bookings", "Pending or previous bookings, newest first", tag: "bookings",
                                          access: .role(.passenger), parameters: [.bookingList], answers: [.json(200, "OK", BookingListAnswer.self)])
    /// `GET /v1/bookings/{number}`.
    public static let booking = Endpoint(.get, "/v1/bookings/{number}", "A booking", tag: "bookings", access: .role(.passenger),
                                         parameters: [.number], answers: [.json(200, "OK", BookingAnswer.self)], failures: [404])
    /// `PATCH /v1/bookings/{number}`.
    public static let changeBooking = Endpoint(.patch, "/v1/bookings/{number}", "Change a booking for later", tag: "bookings",
                                               access: .role(.passenger), parameters: [.number, .idempotencyKey], request: Body(BookingPatch.self),
                                               answers: [.json(200, "OK", BookingAnswer.self)], failures: [404, 409, 422])
    /// `POST /v1/bookings/{number}/cancel`.
    public static let cancelBooking = Endpoint(.post, "/v1/bookings/{number}/cancel", "Cancel a booking", tag: "bookings",
                                               access: .role(.passenger), parameters: [.number, .idempotencyKey],
                                               answers: [.json(200, "OK", BookingAnswer.self)], failures: [404, 409, 422])
    /// `GET /v1/bookings/{number}/track`.
    public static let track = Endpoint(.get, "/v1/bookings/{number}/track", "Where the cab is", tag: "bookings", access: .role(.passenger),
                                       parameters: [.number], answers: [.json(200, "OK", TrackingAnswer.self)], failures: [404])
    /// `GET /v1/bookings/{number}/history`.
    public static let history = Endpoint(.get, "/v1/bookings/{number}/history", "Every state change", tag: "bookings", access: .role(.passenger),
                                         parameters: [.number], answers: [.json(200, "OK", BookingHistory.self)], failures: [404])
    /// `POST /v1/bookings/{number}/fare-confirmation`.
    public static let confirmFare = Endpoint(.post, "/v1/bookings/{number}/fare-confirmation",
                                             "Pay the part of a fare above what the wallet pays unasked (the estimate plus the city's margin)",
                                             tag: "bookings", access: .role(.passenger), parameters: [.number, .idempotencyKey],
                                             answers: [.json(200, "OK", FareConfirmation.self)], failures: [404, 409, 422])
    /// `POST /v1/bookings/{number}/feedback`.
    public static let feedback = Endpoint(.post, "/v1/bookings/{number}/feedback", "Rate a completed trip", tag: "bookings",
                                          access: .role(.passenger), parameters: [.number], request: Body(FeedbackForm.self),
                                          answers: [.empty(201, "recorded")], failures: [404, 409])

    // MARK: Ride requests

    /// `GET /v1/ride-requests/fare`.
    public static let suggestedFare = Endpoint(.get, "/v1/ride-requests/fare", "The fare the city suggests for a ride request", tag: "ride requests",
                                               access: .signedIn, parameters: [.from, .to], answers: [.json(200, "OK", SuggestedFare.self)],
                                               failures: [409])
    /// `POST /v1/ride-requests`.
    public static let postRide = Endpoint(.post, "/v1/ride-requests", "Post a ride request (client_id makes a replay harmless)", tag: "ride requests",
                                          access: .role(.passenger), request: Body(NewRideRequest.self),
                                          answers: [.json(201, "posted (or the same request again)", RideRequestAnswer.self)], failures: [409])
    /// `GET /v1/ride-requests`.
    public static let searchRides = Endpoint(.get, "/v1/ride-requests", "Open and accepted requests, nearest first (drivers)", tag: "ride requests",
                                             access: .role(.driver),
                                             parameters: [.near, .withinMetres, .keywords, .address, .minimumFare, .maximumFare, .minimumPerKilometre,
                                                          .maximumPerKilometre, .rideLimit],
                                             answers: [.json(200, "OK", RideRequestList.self)])
    /// `GET /v1/ride-requests/{id}`.
    public static let ride = Endpoint(.get, "/v1/ride-requests/{id}", "A ride request", tag: "ride requests", access: .signedIn, parameters: [.id],
                                      answers: [.json(200, "OK", RideRequestAnswer.self)], failures: [404])
    /// `POST /v1/ride-requests/{id}/accept`.
    public static let acceptRide = Endpoint(.post, "/v1/ride-requests/{id}/accept", "Accept a ride request (driver)", tag: "ride requests",
                                            access: .role(.driver), parameters: [.id], request: Body(RideAcceptance.self),
                                            answers: [.json(200, "OK", RideRequestAnswer.self)], failures: [404, 409])
    /// `POST /v1/ride-requests/{id}/confirm`.
    public static let confirmRide = Endpoint(.post, "/v1/ride-requests/{id}/confirm", "Confirm one of the drivers who accepted (rider)",
                                             tag: "ride requests", access: .role(.passenger), parameters: [.id], request: Body(RideConfirmation.self),
                                             answers: [.json(200, "OK", RideRequestAnswer.self)], failures: [404, 409])
    /// `POST /v1/ride-requests/{id}/complete`.
    public static let completeRide = Endpoint(.post, "/v1/ride-requests/{id}/complete", "The ride is done (driver)", tag: "ride requests",
                                              access: .role(.driver), parameters: [.id], answers: [.json(200, "OK", RideRequestAnswer.self)],
                                              failures: [404, 409])
    /// `POST /v1/ride-requests/{id}/pay`.
    public static let payRide = Endpoint(.post, "/v1/ride-requests/{id}/pay", "Pay the ride (rider)", tag: "ride requests", access: .role(.passenger),
                                         parameters: [.id, .idempotencyKey], answers: [.json(200, "OK", RidePaymentAnswer.self)],
                                         failures: [404, 409, 422])
    /// `POST /v1/ride-requests/{id}/cancel`.
    public static let cancelRide = Endpoint(.post, "/v1/ride-requests/{id}/cancel", "Cancel a ride request (rider)", tag: "ride requests",
                                            access: .role(.passenger), parameters: [.id], answers: [.json(200, "OK", RideRequestAnswer.self)],
                                            failures: [404, 409])

    // MARK: Drivers

    /// `POST /v1/driver/shift`.
    public static let startShift = Endpoint(.post, "/v1/driver/shift", "Start a shift in a cab", tag: "drivers", access: .role(.driver),
                                            request: Body(ShiftStart.self), answers: [.empty(204, "on shift")], failures: [409])
    /// `POST /v1/driver/position`.
    public static let reportPosition = Endpoint(.post, "/v1/driver/position", "Report the cab's position", tag: "drivers", access: .role(.driver),
                                                request: Body(PositionReport.self), answers: [.empty(204, "recorded")], failures: [409])
    /// `POST /v1/driver/availability`.
    public static let setAvailability = Endpoint(.post, "/v1/driver/availability", "Available or not", tag: "drivers", access: .role(.driver),
                                                 request: Body(AvailabilityChange.self), answers: [.empty(204, "set")], failures: [409])
    /// `GET /v1/driver/offers`.
    public static let offers = Endpoint(.get, "/v1/driver/offers", "Offers waiting for an answer", tag: "drivers", access: .role(.driver),
                                        answers: [.json(200, "OK", OfferList.self)])
    /// `GET /v1/driver/offers/stream`.
    public static let offerStream = Endpoint(.get, "/v1/driver/offers/stream", "Offers pushed as server-sent events (event: offer, data: the offer's JSON)",
                                             tag: "drivers", access: .role(.driver),
                                             answers: [.media(200, "a stream that ends when the server stops", "text/event-stream")], failures: [429])
    /// `POST /v1/driver/offers/{id}`.
    public static let answerOffer = Endpoint(.post, "/v1/driver/offers/{id}", "Accept or decline an offer", tag: "drivers", access: .role(.driver),
                                             parameters: [.id], request: Body(OfferReply.self), answers: [.empty(204, "answered")], failures: [404, 409])
    /// `POST /v1/driver/bookings/{number}/arrived`.
    public static let arrived = Endpoint(.post, "/v1/driver/bookings/{number}/arrived", "At the pickup", tag: "drivers", access: .role(.driver),
                                         parameters: [.number], answers: [.empty(204, "recorded")], failures: [404, 409])
    /// `POST /v1/driver/bookings/{number}/started`.
    public static let started = Endpoint(.post, "/v1/driver/bookings/{number}/started", "Passenger on board", tag: "drivers", access: .role(.driver),
                                         parameters: [.number], answers: [.empty(204, "recorded")], failures: [404, 409])
    /// `POST /v1/driver/bookings/{number}/complete`.
    public static let completeTrip = Endpoint(.post, "/v1/driver/bookings/{number}/complete",
                                              "End the trip; the fare is billed from the trip's track (the meter is a cross-check) and settled",
                                              tag: "drivers", access: .role(.driver), parameters: [.number, .idempotencyKey], request: Body(TripEnd.self),
                                              answers: [.json(200, "OK", InvoiceAnswer.self)], failures: [404, 409, 422])

    // MARK: Payments

    /// `POST /v1/payments/callbacks`.
    public static let gatewayCallback = Endpoint(.post, "/v1/payments/callbacks",
                                                 "The payment gateway's callback, signed: Wayfare-Signature: t=UNIX,v1=HMAC-SHA256(secret, t.body) in hex; 5 minutes' tolerance",
                                                 tag: "payments", access: .gateway, parameters: [.signature], request: Body(GatewayCallback.self),
                                                 answers: [.json(200, "OK", CallbackAnswer.self)], failures: [401, 404])

    /// Every endpoint of the API.
    public static let all: [Endpoint] = [
        health, ready, metrics, openAPI, page,
        zone, zones, streets, route, match, etas, nearestCabs, cabs, geocode, reverse, fares,
        register, verify, createDriver, logIn, logOut, me, changePassword, requestReset, completeReset, suspended, ledger, liftSuspension,
        wallet, refill, favourites, addFavourite, removeFavourite,
        estimate, book, bookings, booking, changeBooking, cancelBooking, track, history, confirmFare, feedback,
        suggestedFare, postRide, searchRides, ride, acceptRide, confirmRide, completeRide, payRide, cancelRide,
        startShift, reportPosition, setAvailability, offers, offerStream, answerOffer, arrived, started, completeTrip,
        gatewayCallback,
    ]
}
