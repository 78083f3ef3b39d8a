#!/usr/bin/env python3
"""Writes Sources/WayfareServer/OpenAPIDocument.swift: the OpenAPI 3.1 document of the HTTP
API, which `wayfare serve` serves at /openapi.json.

The document is written here, compactly, and embedded in the server as a string (a resource
file beside the binary could go missing). Two checks keep it and the routes together: a test
compares its paths with every route the server registers, and CI runs schemathesis against
a live server with it. Run `python3 scripts/openapi.py` after changing a route.
"""
import json, os

def ref(name): return {"$ref": "#/components/schemas/" + name}
def obj(props, required=(), extra=True):
    o = {"type": "object", "properties": props, "required": list(required)}
    if not extra: o["additionalProperties"] = False
    return o
S = lambda **k: dict({"type": "string"}, **k)
I = lambda **k: dict({"type": "integer"}, **k)
N = lambda **k: dict({"type": "number"}, **k)
B = {"type": "boolean"}
nullable = lambda s: {"anyOf": [s, {"type": "null"}]}

schemas = {
    "Coordinate": obj({"lat": N(minimum=-90, maximum=90), "lon": N(minimum=-180, maximum=180)}, ["lat", "lon"], extra=False),
    "Error": obj({"error": obj({"code": S(), "message": S(), "field": nullable(S())}, ["code", "message"])}, ["error"]),
    "Named": obj({"id": S(), "name": S()}, ["id", "name"]),
    "LineString": obj({"type": S(const="LineString"), "coordinates": {"type": "array", "items": {"type": "array", "items": N()}}}, ["type", "coordinates"]),
    "User": obj({"id": I(), "role": S(enum=["passenger", "driver", "admin"]), "name": S(), "mobile": S(), "email": S(),
                 "suspended_until": nullable(S(format="date-time"))}, ["id", "role", "name", "mobile", "email"]),
    "Registration": obj({"name": S(maxLength=32),  # Registration.maximumNameLength "mobile": S(maxLength=32), "email": S(maxLength=254),
                         "password": S(maxLength=1024), "confirmation": S(maxLength=1024)},
                        ["name", "mobile", "email", "password", "confirmation"], extra=False),
    "TripRequest": obj({"pickup": ref("Coordinate"), "destination": ref("Coordinate"), "cab_type": S(maxLength=64),
                        "seats": I(minimum=1, maximum=50), "payment": S(enum=["wallet", "cash"])},
                       ["pickup", "destination", "cab_type"], extra=False),
    "Fare": obj({"currency": S(), "base": I(), "distance": I(), "waiting": I(), "tolls": I(), "discount": I(), "total": I()},
                ["currency", "base", "distance", "waiting", "tolls", "discount", "total"]),
    "Booking": obj({"number": I(), "kind": S(enum=["now", "later"]),
                    "state": S(enum=["requested", "allocated", "arrived", "started", "completed", "cancelled", "not_served"]),
                    "pickup": ref("Coordinate"), "destination": ref("Coordinate"), "pickup_time": S(format="date-time"),
                    "cab_type": S(), "seats": I(), "payment": S(enum=["wallet", "cash"]), "estimate": I(),
                    "cab": nullable(S()), "driver": nullable(I()), "eta_s": nullable(I()), "reason": nullable(S()),
                    "fare": nullable(I()), "created": S(format="date-time")},
                   ["number", "kind", "state", "pickup", "destination", "pickup_time", "cab_type", "seats", "payment", "estimate", "created"]),
    "RideRequest": obj({"id": I(), "client_id": S(), "rider": I(), "status": S(enum=["open", "accepted", "confirmed", "completed", "paid", "cancelled"]),
                        "source": ref("Coordinate"), "destination": ref("Coordinate"), "source_address": S(), "destination_address": S(),
                        "description": S(), "fare": I(), "metres": I(), "fare_per_km": I(), "accepted_by": {"type": "array", "items": I()},
                        "driver": nullable(I()), "created": S(format="date-time"), "distance_m": nullable(N())},
                       ["id", "client_id", "rider", "status", "source", "destination", "fare"]),
    "Offer": obj({"id": I(), "booking": I(), "cab": S(), "pickup": ref("Coordinate"), "destination": nullable(ref("Coordinate")),
                  "eta_s": N(), "expires": S(format="date-time")}, ["id", "booking", "cab", "pickup", "eta_s", "expires"]),
    "Invoice": obj({"booking": I(), "currency": S(), "base": I(), "distance": I(), "waiting": I(), "tolls": I(), "discount": I(),
                    "total": I(), "method": S(enum=["wallet", "cash"]), "wallet_paid": I(), "cash_paid": I(), "commission": I(),
                    "billed_m": I(), "meter_m": I(), "review": nullable(S()), "awaiting_confirmation": I()},
                   ["booking", "total", "method", "billed_m", "meter_m", "awaiting_confirmation"]),
}

def error(description): return {"description": description, "content": {"application/json": {"schema": ref("Error")}}}
def ok(schema, description="OK", ctype="application/json"): return {"description": description, "content": {ctype: {"schema": schema}}}
E = {"400": error("bad input, naming the field"), "429": error("too many requests from this client"),
     "503": error("the store is unavailable; retry")}
AUTH = {"401": error("no valid bearer token"), "403": error("the caller's role may not")}
def body(schema): return {"required": True, "content": {"application/json": {"schema": schema}}}
LATLON = S(pattern=r"^-?[0-9]{1,2}(\.[0-9]{1,7})?,-?[0-9]{1,3}(\.[0-9]{1,7})?$")
def q(name, required, description, schema=None):
    if schema is None and description == latlon: schema = LATLON
    return {"name": name, "in": "query", "required": required, "description": description, "schema": schema or S()}
def p(name, schema=None): return {"name": name, "in": "path", "required": True, "schema": schema or S()}
KEY = {"name": "Idempotency-Key", "in": "header", "required": True, "description": "any unique string of 1 to 100 characters",
       "schema": S(minLength=1, maxLength=100)}
NUMBER = p("number", I(minimum=0))
latlon = "lat,lon in degrees"

def op(summary, responses, *, params=(), request=None, auth=False, extra=(), tag="engine"):
    o = {"summary": summary, "tags": [tag], "responses": dict(responses)}
    if params: o["parameters"] = list(params)
    if request: o["requestBody"] = body(request)
    for code in extra: o["responses"][code] = {**E, **AUTH, "404": error("not found, or not the caller's"),
                                               "409": error("the state forbids it"), "413": error("body over 64 KiB"),
                                               "422": error("cannot be done as asked")}[code]
    o["responses"].update({k: v for k, v in E.items() if k not in o["responses"]})
    if auth:
        o["security"] = [{"bearer": []}]
        o["responses"].update({k: v for k, v in AUTH.items() if k not in o["responses"]})
    if request: o["responses"].setdefault("413", error("body over 64 KiB"))
    return o

booked_money = ["404", "409", "422"]
paths = {
    "/health": {"get": op("The process answers; `payments` is `test` on the test-mode gateway (no money moves), `sms` is `test` when codes come back in answers",
                          {"200": ok(obj({"status": S(), "payments": S(enum=["test", "live"]), "sms": S(enum=["test", "live"])}, ["status", "payments", "sms"]))}, tag="operations")},
    "/v1/payments/callbacks": {"post": op("The payment gateway's callback, signed: Wayfare-Signature: t=UNIX,v1=HMAC-SHA256(secret, t.body) in hex; 5 minutes' tolerance",
                                          {"200": ok(obj({"intent": S(), "status": S(enum=["completed", "declined", "requires_action", "pending"])}, ["intent", "status"])),
                                           "401": error("signature missing, stale or wrong"), "404": error("callbacks not configured, or no such refill")},
                                          params=[{"name": "Wayfare-Signature", "in": "header", "required": True, "schema": S(maxLength=300)}],
                                          request=obj({"id": S(maxLength=200), "intent": S(maxLength=64),
                                                       "outcome": S(enum=["approved", "declined", "insufficient_funds", "requires_action", "timed_out"]),
                                                       "reference": S(maxLength=200), "reason": S(maxLength=500), "challenge": S(maxLength=2000)},
                                                      ["id", "intent", "outcome"], extra=False), tag="payments")},
    "/ready": {"get": op("The store answers (an admin also sees the replica's standing: owner, owner_url, lease_token)",
                         {"200": ok(obj({"status": S(), "city": S(), "owner": B, "owner_url": nullable(S()), "lease_token": I()}, ["status", "city"]))}, tag="operations")},
    "/metrics": {"get": op("Prometheus metrics (admins)", {"200": ok(S(), ctype="text/plain")}, auth=True, tag="operations")},
    "/openapi.json": {"get": op("This document", {"200": ok({"type": "object"})}, tag="operations")},
    "/": {"get": op("The live map", {"200": ok(S(), ctype="text/html")}, tag="operations")},
    "/v1/zone": {"get": op("The zone and service area of a point", {"200": ok(obj({"zone": nullable(ref("Named")), "service_area": nullable(ref("Named")), "served": B}, ["zone", "service_area", "served"]))},
                           params=[q("at", True, latlon)])},
    "/v1/zones": {"get": op("Zones and service areas as GeoJSON", {"200": ok({"type": "object"}, ctype="application/geo+json")})},
    "/v1/streets": {"get": op("The streets as a GeoJSON MultiLineString", {"200": ok({"type": "object"}, ctype="application/geo+json")})},
    "/v1/route": {"get": op("The fastest route", {"200": ok(obj({"distance_m": N(), "duration_s": N(), "streets": {"type": "array", "items": S()},
                                                                "toll_ways": {"type": "array", "items": I()}, "geometry": ref("LineString")},
                                                               ["distance_m", "duration_s", "geometry"]))},
                            params=[q("from", True, latlon), q("to", True, latlon)], extra=["422"])},
    "/v1/etas": {"post": op("ETAs of many cabs to one place", {"200": ok(obj({"etas": {"type": "array", "items": obj({"id": S(), "eta_s": nullable(N()), "distance_m": nullable(N())}, ["id"])}}, ["etas"]))},
                            request=obj({"to": ref("Coordinate"), "cabs": {"type": "array", "maxItems": 1000,
                                         "items": obj({"id": S(minLength=1, maxLength=64), "lat": N(minimum=-90, maximum=90), "lon": N(minimum=-180, maximum=180)}, ["id", "lat", "lon"], extra=False)}},
                                        ["to", "cabs"], extra=False), extra=["422"])},
    "/v1/cabs/nearest": {"get": op("The nearest free cabs (ids and exact positions for admins; others get positions to 0.001° and distances to 100 m)", {"200": ok(obj({"cabs": {"type": "array", "items": obj({"id": S(), "type": S(), "position": nullable(ref("Coordinate")), "distance_m": N()}, ["type"])}}, ["cabs"]))},
                                   params=[q("at", True, latlon), q("k", False, "how many (1-50, default 5)", I(minimum=1, maximum=50)), q("type", False, "a cab type")])},
    "/v1/cabs": {"get": op("Every cab on shift (ids and exact positions for admins; others get positions to 0.001°)", {"200": ok(obj({"cabs": {"type": "array", "items": obj({"id": S(), "type": S(), "status": S(), "position": nullable(ref("Coordinate"))}, ["type", "status"])}}, ["cabs"]))})},
    "/v1/geocode": {"get": op("Places matching a text", {"200": ok(obj({"results": {"type": "array", "items": obj({"label": S(), "position": ref("Coordinate"), "kind": S(), "score": N()}, ["label", "position"])}}, ["results"]))},
                              params=[q("q", True, "the text"), q("near", False, latlon), q("limit", False, "1-20, default 5", I(minimum=1, maximum=20))], extra=["404"])},
    "/v1/reverse": {"get": op("The address at a point", {"200": ok(obj({"label": S(), "position": ref("Coordinate"), "kind": S(), "distance_m": N()}, ["label", "position"]))},
                              params=[q("at", True, latlon)], extra=["404"])},
    "/v1/fares": {"get": op("The fare chart where a trip starts", {"200": ok(obj({"currency": S(), "rates": {"type": "array", "items": obj({"cab_type": S(), "base": I(), "per_km": I()}, ["cab_type", "base", "per_km"])}}, ["currency", "rates"]))},
                            params=[q("at", True, latlon)], extra=["422"])},
    "/v1/accounts": {"post": op("Register a passenger: the same answer whether or not the number is taken; a one-time code goes to the mobile (in test_code on a server with test SMS)",
                                {"202": ok(obj({"status": S(const="code_sent"), "mobile": S(), "code_expires": S(format="date-time"), "test_code": nullable(S())},
                                               ["status", "mobile", "code_expires"]), "code sent")}, request=ref("Registration"), tag="accounts")},
    "/v1/accounts/verify": {"post": op("Activate a registration with the code sent to its mobile", {"201": ok(ref("User"), "active"), "401": error("invalid or expired code")},
                                       request=obj({"mobile": S(maxLength=32), "code": S(maxLength=16)}, ["mobile", "code"], extra=False), tag="accounts")},
    "/v1/drivers": {"post": op("Create a driver (admin)", {"201": ok(ref("User"), "created")}, request=ref("Registration"), auth=True, extra=["409"], tag="accounts")},
    "/v1/sessions": {"post": op("Log in", {"201": ok(obj({"token": S(), "expires": S(format="date-time"), "user": ref("User")}, ["token", "expires", "user"]), "logged in"),
                                           "401": error("wrong mobile number or password"), "403": error("suspended after 3 failed attempts")},
                                request=obj({"mobile": S(maxLength=32), "password": S(maxLength=1024)}, ["mobile", "password"], extra=False), tag="accounts"),
                     "delete": op("Log out", {"204": {"description": "logged out"}}, auth=True, tag="accounts")},
    "/v1/me": {"get": op("The signed-in user", {"200": ok(ref("User"))}, auth=True, tag="accounts")},
    "/v1/me/password": {"post": op("Change the password", {"204": {"description": "changed"}},
                                   request=obj({"old": S(maxLength=1024), "new": S(maxLength=1024), "confirmation": S(maxLength=1024)}, ["old", "new", "confirmation"], extra=False),
                                   auth=True, tag="accounts")},
    "/v1/password-resets": {"post": op("Ask for a reset token by e-mail", {"202": ok(obj({"status": S()}, ["status"]), "accepted (whether or not the address is registered)")},
                                       request=obj({"email": S(maxLength=254)}, ["email"], extra=False), tag="accounts")},
    "/v1/password-resets/complete": {"post": op("Set a new password with a reset token", {"204": {"description": "changed"}, "401": error("unknown, used or expired token")},
                                                request=obj({"token": S(maxLength=200), "password": S(maxLength=1024), "confirmation": S(maxLength=1024)}, ["token", "password", "confirmation"], extra=False), tag="accounts")},
    "/v1/admin/suspended": {"get": op("Suspended accounts (admin)", {"200": ok(obj({"users": {"type": "array", "items": ref("User")}}, ["users"]))}, auth=True, tag="admin")},
    "/v1/admin/ledger": {"get": op("The company's ledger and its audit (admin)", {"200": ok(obj({"currency": S(), "revenue": I(), "escrow_held": I(), "gateway_owes": I(), "owed_to_drivers": I(), "owed_to_passengers": I(), "sound": B, "transfers": I()}, ["revenue", "sound", "transfers"]))}, auth=True, tag="admin")},
    "/v1/admin/users/{id}/lift-suspension": {"post": op("Lift a suspension (admin)", {"204": {"description": "lifted"}}, params=[p("id", I(minimum=0))], auth=True, extra=["404"], tag="admin")},
    "/v1/wallet": {"get": op("The wallet's balance", {"200": ok(obj({"currency": S(), "available": I(), "held": I()}, ["currency", "available", "held"]))}, auth=True, tag="wallet")},
    "/v1/wallet/refills": {"post": op("Top up from a card", {"201": ok(obj({"status": S(), "available": I()}, ["status"]), "charged"),
                                                             "202": ok(obj({"status": S(), "intent": I(), "challenge": S()}, ["status"]), "a 3-D Secure step, or pending"),
                                                             "402": ok(obj({"status": S(), "reason": S()}, ["status"]), "declined")},
                                      params=[KEY], request=obj({"amount": I(minimum=1), "payment_token": S(maxLength=200)}, ["amount", "payment_token"], extra=False),
                                      auth=True, extra=booked_money, tag="wallet")},
    "/v1/favourites": {"get": op("Favourite places", {"200": ok(obj({"favourites": {"type": "array", "items": obj({"name": S(), "position": ref("Coordinate")}, ["name", "position"])}}, ["favourites"]))}, auth=True, tag="favourites"),
                       "post": op("Add a favourite place", {"201": {"description": "added"}}, request=obj({"name": S(maxLength=64), "position": ref("Coordinate")}, ["name", "position"], extra=False),
                                  auth=True, extra=["409"], tag="favourites")},
    "/v1/favourites/{name}": {"delete": op("Remove a favourite place", {"204": {"description": "removed"}}, params=[p("name")], auth=True, extra=["404"], tag="favourites")},
    "/v1/estimates": {"post": op("A fare estimate", {"200": ok(ref("Fare"))}, request=ref("TripRequest"), auth=True, extra=["409", "422"], tag="bookings")},
    "/v1/bookings": {"post": op("Book now, or for pickup_time", {"201": ok(ref("Booking"), "booked")}, params=[KEY],
                                request={"allOf": [ref("TripRequest")], "properties": {"pickup_time": S(format="date-time")}},
                                auth=True, extra=booked_money, tag="bookings"),
                     "get": op("Pending or previous bookings, newest first", {"200": ok(obj({"bookings": {"type": "array", "items": ref("Booking")}, "message": nullable(S())}, ["bookings"]))},
                               params=[q("list", False, "pending (default) or previous", S(enum=["pending", "previous"]))], auth=True, tag="bookings")},
    "/v1/bookings/{number}": {"get": op("A booking", {"200": ok(ref("Booking"))}, params=[NUMBER], auth=True, extra=["404"], tag="bookings"),
                              "patch": op("Change a booking for later", {"200": ok(ref("Booking"))}, params=[NUMBER, KEY],
                                          request=obj({"pickup": ref("Coordinate"), "destination": ref("Coordinate"), "pickup_time": S(format="date-time")}, [], extra=False),
                                          auth=True, extra=booked_money, tag="bookings")},
    "/v1/bookings/{number}/cancel": {"post": op("Cancel a booking", {"200": ok(ref("Booking"))}, params=[NUMBER, KEY], auth=True, extra=booked_money, tag="bookings")},
    "/v1/bookings/{number}/track": {"get": op("Where the cab is", {"200": ok(obj({"state": S(), "cab_position": nullable(ref("Coordinate")), "reported_at": nullable(S()), "remaining_m": nullable(N()), "eta_s": nullable(N()), "remaining_route": ref("LineString")}, ["state", "remaining_route"]))},
                                              params=[NUMBER], auth=True, extra=["404"], tag="bookings")},
    "/v1/bookings/{number}/history": {"get": op("Every state change", {"200": ok(obj({"events": {"type": "array", "items": obj({"state": S(), "time": S(format="date-time"), "detail": S()}, ["state", "time"])}}, ["events"]))},
                                                params=[NUMBER], auth=True, extra=["404"], tag="bookings")},
    "/v1/bookings/{number}/fare-confirmation": {"post": op("Pay the part of a fare above what the wallet pays unasked (the estimate plus the city's margin)",
                                                           {"200": ok(obj({"booking": I(), "currency": S(), "paid": I()}, ["booking", "paid"]))},
                                                           params=[NUMBER, KEY], auth=True, extra=booked_money, tag="bookings")},
    "/v1/bookings/{number}/feedback": {"post": op("Rate a completed trip", {"201": {"description": "recorded"}}, params=[NUMBER],
                                                  request=obj({"driver": I(minimum=1, maximum=5), "cab": I(minimum=1, maximum=5), "experience": I(minimum=1, maximum=5), "comment": S(maxLength=500)}, ["driver", "cab", "experience"], extra=False),
                                                  auth=True, extra=["404", "409"], tag="bookings")},
    "/v1/ride-requests/fare": {"get": op("The fare the city suggests for a ride request", {"200": ok(obj({"currency": S(), "suggested_fare": I()}, ["currency", "suggested_fare"]))},
                                         params=[q("from", True, latlon), q("to", True, latlon)], auth=True, extra=["409"], tag="ride requests")},
    "/v1/ride-requests": {"post": op("Post a ride request (client_id makes a replay harmless)", {"201": ok(ref("RideRequest"), "posted (or the same request again)")},
                                     request=obj({"client_id": S(maxLength=100), "source": ref("Coordinate"), "destination": ref("Coordinate"),
                                                  "source_address": S(maxLength=500), "destination_address": S(maxLength=500),
                                                  "description": S(maxLength=1000), "fare": I(minimum=1, maximum=10_000_000)},
                                                 ["client_id", "source", "destination", "fare"], extra=False),
                                     auth=True, extra=["409"], tag="ride requests"),
                          "get": op("Open and accepted requests, nearest first (drivers)", {"200": ok(obj({"requests": {"type": "array", "items": ref("RideRequest")}}, ["requests"]))},
                                    params=[q("near", False, latlon), q("within_m", False, "metres, 1-50000 (default 5000)", I(minimum=1, maximum=50_000)),
                                            q("q", False, "keywords"), q("address", False, "words of an address"),
                                            q("min_fare", False, "minor units", I(minimum=0, maximum=10_000_000)), q("max_fare", False, "minor units", I(minimum=0, maximum=10_000_000)),
                                            q("min_per_km", False, "minor units per km", I(minimum=0, maximum=10_000_000)), q("max_per_km", False, "minor units per km", I(minimum=0, maximum=10_000_000)),
                                            q("limit", False, "1-200 (default 50)", I(minimum=1, maximum=200))],
                                    auth=True, tag="ride requests")},
    "/v1/ride-requests/{id}": {"get": op("A ride request", {"200": ok(ref("RideRequest"))}, params=[p("id", I(minimum=0))], auth=True, extra=["404"], tag="ride requests")},
    "/v1/ride-requests/{id}/accept": {"post": op("Accept a ride request (driver)", {"200": ok(ref("RideRequest"))}, params=[p("id", I(minimum=0))],
                                                 request=obj({"client_id": S(maxLength=100)}, ["client_id"], extra=False), auth=True, extra=["404", "409"], tag="ride requests")},
    "/v1/ride-requests/{id}/confirm": {"post": op("Confirm one of the drivers who accepted (rider)", {"200": ok(ref("RideRequest"))}, params=[p("id", I(minimum=0))],
                                                  request=obj({"driver": I(minimum=1)}, ["driver"], extra=False), auth=True, extra=["404", "409"], tag="ride requests")},
    "/v1/ride-requests/{id}/complete": {"post": op("The ride is done (driver)", {"200": ok(ref("RideRequest"))}, params=[p("id", I(minimum=0))], auth=True, extra=["404", "409"], tag="ride requests")},
    "/v1/ride-requests/{id}/pay": {"post": op("Pay the ride (rider)", {"200": ok(obj({"currency": S(), "method": S(), "fare": I(), "wallet_paid": I(), "cash_paid": I(), "commission": I()}, ["method", "fare"]))},
                                              params=[p("id", I(minimum=0)), KEY], auth=True, extra=booked_money, tag="ride requests")},
    "/v1/ride-requests/{id}/cancel": {"post": op("Cancel a ride request (rider)", {"200": ok(ref("RideRequest"))}, params=[p("id", I(minimum=0))], auth=True, extra=["404", "409"], tag="ride requests")},
    "/v1/driver/shift": {"post": op("Start a shift in a cab", {"204": {"description": "on shift"}},
                                    request=obj({"cab_id": S(maxLength=64), "cab_type": S(maxLength=64), "seats": I(minimum=1, maximum=50)}, ["cab_id", "cab_type"], extra=False),
                                    auth=True, extra=["409"], tag="drivers")},
    "/v1/driver/position": {"post": op("Report the cab's position", {"204": {"description": "recorded"}}, request=obj({"position": ref("Coordinate")}, ["position"], extra=False), auth=True, extra=["409"], tag="drivers")},
    "/v1/driver/availability": {"post": op("Available or not", {"204": {"description": "set"}}, request=obj({"available": B}, ["available"], extra=False), auth=True, extra=["409"], tag="drivers")},
    "/v1/driver/offers": {"get": op("Offers waiting for an answer", {"200": ok(obj({"offers": {"type": "array", "items": ref("Offer")}}, ["offers"]))}, auth=True, tag="drivers")},
    "/v1/driver/offers/stream": {"get": op("Offers pushed as server-sent events (event: offer, data: the offer's JSON)",
                                           {"200": ok(S(), "a stream that ends when the server stops", ctype="text/event-stream")}, auth=True, tag="drivers")},
    "/v1/driver/offers/{id}": {"post": op("Accept or decline an offer", {"204": {"description": "answered"}}, params=[p("id", I(minimum=0))],
                                          request=obj({"accept": B}, ["accept"], extra=False), auth=True, extra=["404", "409"], tag="drivers")},
    "/v1/driver/bookings/{number}/arrived": {"post": op("At the pickup", {"204": {"description": "recorded"}}, params=[NUMBER], auth=True, extra=["404", "409"], tag="drivers")},
    "/v1/driver/bookings/{number}/started": {"post": op("Passenger on board", {"204": {"description": "recorded"}}, params=[NUMBER], auth=True, extra=["404", "409"], tag="drivers")},
    "/v1/driver/bookings/{number}/complete": {"post": op("End the trip; the fare is billed from the trip's track (the meter is a cross-check) and settled", {"200": ok(ref("Invoice"))}, params=[NUMBER, KEY],
                                                         request=obj({"metres": I(minimum=0, maximum=1_000_000_000), "waiting_on_the_way_s": I(minimum=0, maximum=86_400)}, ["metres"], extra=False),
                                                         auth=True, extra=booked_money, tag="drivers")},
}
# Every operation may meet the body limit, a method not allowed and an internal error.
for path in paths.values():
    for o in path.values():
        o["responses"].setdefault("500", error("internal error; the log has it under the request id"))
        o["responses"].setdefault("405", error("method not allowed"))

doc = {
    "openapi": "3.1.0",
    "info": {"title": "Wayfare", "version": "1.0.0",
             "description": "The HTTP JSON API of one city: the engine (zones, routes, ETAs, cabs, geocoding, fares) and the services "
                            "(accounts, wallet, favourites, bookings, the driver's side). Money is in minor units (paise)."},
    "servers": [{"url": "/"}],
    "components": {"schemas": schemas, "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    "paths": paths,
}
text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
assert '"""#' not in text
swift = '''// Generated by scripts/openapi.py: edit that, then run `python3 scripts/openapi.py`.

extension WayfareServer {
    /// The OpenAPI 3.1 document of the API (served at `/openapi.json`).
    static let openAPIDocument = #"""
''' + text + '''
"""#
}
'''
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
path = os.path.join(root, "Sources", "WayfareServer", "OpenAPIDocument.swift")
with open(path + ".tmp", "w") as f:
    f.write(swift)
os.replace(path + ".tmp", path)
print("wrote %s: %d paths, %d operations" % (path, len(paths), sum(len(v) for v in paths.values())))
