import CityFolder
import Foundation
import GeoJSON
import Geocoding
import Geodesy
import Hummingbird
import Logging
import HummingbirdTesting
import RoadGraph
import SQLiteStorage
import Services
import Storage
import TaxiDispatch
import TestSupport
import Testing
import WayfareServer
import ZoneImport
import Zones

/// Monaco as a city folder, built once per test process from `Data/monaco` with the same
/// loaders `wayfare city build` uses.
enum MonacoFolder {
    static let path: String = {
        let data = SharedData.projectRoot.appendingPathComponent("Data/monaco")
        let dir = TemporaryFolder.untilExit("wayfare-server-city")
        func file(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let zones = try! ZoneImporter.load(zonesAt: data.appendingPathComponent("wards.geojson").path,
                                           serviceAreasAt: data.appendingPathComponent("communes.geojson").path).0
        try! ZoneFile.write(zones, to: file(CityFolder.zonesFile))
        let osm = data.appendingPathComponent("monaco.osm.pbf").path
        try! GraphFile.write(try! RoadNetwork.importOSM(path: osm).0, to: file(CityFolder.roadsFile))
        var builder = GeocoderBuilder()
        try! builder.addOSM(path: osm)
        try! GeocoderFile.write(builder.build(), to: file(CityFolder.placesFile))
        for name in ["fares.json", "tolls.json"] {
            try! FileManager.default.copyItem(atPath: data.appendingPathComponent(name).path, toPath: file(name))
        }
        try! #"{"name":"Monaco","booking_rules":"000"}"#.write(toFile: file(CityFolder.settingsFile), atomically: true, encoding: .utf8)
        return dir.path
    }()
    static let folder: CityFolder = try! CityFolder.load(path)
}

/// A server on a fresh SQLite store, and a small JSON client over Hummingbird's router test
/// mode (requests go straight to the router, no socket).
struct Rig {
    let server: WayfareServer
    let folder: TemporaryFolder
    let store: SQLiteStore

    init(scheduler: (any DispatchScheduler)? = nil, guards: ClientGuards = .unlimited, callbackSecret: [UInt8]? = nil) throws {
        folder = TemporaryFolder()
        store = try SQLiteStore(path: folder.path("server.sqlite"))
        try store.migrate(ServiceSchema.migrations)
        // Cheap password hashing: scrypt's standard cost is a second a hash on purpose.
        server = try WayfareServer(city: MonacoFolder.folder, store: store, scheduler: scheduler ?? SystemScheduler(), gateway: TestModeGateway(),
                                   notifier: nil, logger: Logger(label: "wayfare.test"), passwords: .fastForTests, guards: guards,
                                   callbackSecret: callbackSecret, sms: .test)
    }

    /// Runs `test` against the router (`.router`: no socket) or a live server on loopback
    /// (`.live`: requests have a peer address).
    func run(_ mode: TestingSetup = .router, _ test: @escaping @Sendable (API) async throws -> Void) async throws {
        let app = Application(router: server.router())
        try await app.test(mode) { client in try await test(API(client: client)) }
    }
}

struct API: Sendable {
    let client: any TestClientProtocol

    struct Answer: Sendable {
        var status: Int
        var json: JSONValue
        var headers: HTTPFields
        var text: String
        subscript(key: String) -> JSONValue? { json[key] }
        var errorCode: String? { json["error"]?["code"]?.stringValue }
        var errorField: String? { json["error"]?["field"]?.stringValue }
    }

    @discardableResult
    func call(_ method: HTTPRequest.Method, _ path: String, _ body: String? = nil, token: String? = nil, key: String? = nil,
              headers extra: HTTPFields = [:]) async throws -> Answer {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        if let key { headers[.init("Idempotency-Key")!] = key }
        if body != nil { headers[.contentType] = "application/json" }
        return try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { r in
            let text = String(buffer: r.body)
            let json = (try? JSONParser.parse(Array(text.utf8))) ?? .null
            return Answer(status: Int(r.status.code), json: json, headers: r.headers, text: text)
        }
    }

    /// The company's first admin (made on the machine: no HTTP route creates admins) and a
    /// driver the admin creates, signed in: their tokens and the driver's id.
    func adminAndDriver(_ server: WayfareServer) async throws -> (admin: String, driver: String, driverID: Int64) {
        let password = "Adm1n!server-test"
        _ = try await server.accounts.createAdmin(Registration(name: "Admin", mobile: "9000000001", email: "admin@example.com",
                                                               password: password, confirmation: password), adminSession: nil)
        let admin = try await call(.post, "/v1/sessions", #"{"mobile":"9000000001","password":"\#(password)"}"#)["token"]?.stringValue ?? ""
        let made = try await call(.post, "/v1/drivers", #"{"name":"Ravi","mobile":"9000000002","email":"ravi@example.com","password":"steady wheels 7","confirmation":"steady wheels 7"}"#, token: admin)
        #expect(made.status == 201 && made["role"]?.stringValue == "driver", "\(made.text)")
        let session = try await call(.post, "/v1/sessions", #"{"mobile":"9000000002","password":"steady wheels 7"}"#)
        return (admin, session["token"]?.stringValue ?? "", Int64(session["user"]?["id"]?.numberValue ?? 0))
    }

    /// Registers a passenger and returns the session token.
    func passenger(_ n: Int) async throws -> (token: String, id: Int64) {
        let mobile = String(format: "98%08d", n)
        let sent = try await call(.post, "/v1/accounts", #"{"name":"Passenger \#(n)","mobile":"\#(mobile)","email":"p\#(n)@example.com","password":"monsoon ride \#(n)","confirmation":"monsoon ride \#(n)"}"#)
        #expect(sent.status == 202, "\(sent.text)")
        // The rig's server runs test SMS: the code is in the answer.
        let r = try await call(.post, "/v1/accounts/verify", #"{"mobile":"\#(mobile)","code":"\#(sent["test_code"]?.stringValue ?? "")"}"#)
        #expect(r.status == 201, "\(r.text)")
        let s = try await call(.post, "/v1/sessions", #"{"mobile":"\#(mobile)","password":"monsoon ride \#(n)"}"#)
        #expect(s.status == 201, "\(s.text)")
        return (s["token"]?.stringValue ?? "", Int64(r["id"]?.numberValue ?? 0))
    }
}

@Suite("WayfareServer: the HTTP JSON API")
struct ServerTests {
    @Test("each client has its own bucket of requests: over it, 429 with Retry-After until it refills; probes are never limited")
    func rateLimits() async throws {
        let clock = VirtualScheduler(start: Date(timeIntervalSince1970: 1_790_000_000))
        let rig = try Rig(scheduler: clock, guards: ClientGuards(rateLimit: RateLimit(burst: 3, perSecond: 0.5)))
        try await rig.run { api in
            for _ in 0..<3 { #expect(try await api.call(.get, "/v1/zone?at=43.7393,7.4277").status == 200) }
            let refused = try await api.call(.get, "/v1/zone?at=43.7393,7.4277")
            #expect(refused.status == 429 && refused.errorCode == "rate_limited" && refused.headers[.retryAfter] == "2", "\(refused.text)")
            // A made-up bearer token is no client of its own: it counts as its address.
            #expect(try await api.call(.get, "/v1/me", token: "someone-else").status == 429)
            // Probes and scrapes always get through.
            #expect(try await api.call(.get, "/health").status == 200)
            #expect(try await api.call(.get, "/metrics").status == 401, "not limited, and for admins only")
            clock.advance(to: clock.now().addingTimeInterval(1.9))
            #expect(try await api.call(.get, "/v1/zone?at=43.7393,7.4277").status == 429, "0.95 of a request refilled")
            clock.advance(to: clock.now().addingTimeInterval(0.2))
            #expect(try await api.call(.get, "/v1/zone?at=43.7393,7.4277").status == 200)
        }
    }

    @Test("the OpenAPI document served at /openapi.json has exactly the routes the server registers")
    func openAPIDocumentMatchesTheRoutes() async throws {
        let rig = try Rig()
        // The routes as the router holds them (Hummingbird's own list), in OpenAPI's form.
        let router = rig.server.router()
        try router.validate()
        var registered = Set<String>()
        for route in router.routes {
            let path = "\(route.path)".split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            registered.insert("\(route.method) \(path.isEmpty ? "/" : path)")
        }
        #expect(registered.count > 40, "the router lists its routes")
        let routes = registered
        try await rig.run { api in
            let answer = try await api.call(.get, "/openapi.json")
            #expect(answer.status == 200 && answer["openapi"]?.stringValue == "3.1.0")
            guard case let .object(paths)? = answer["paths"] else { Issue.record("no paths"); return }
            var documented = Set<String>()
            for (path, item) in paths {
                guard case let .object(operations) = item else { continue }
                for (method, _) in operations { documented.insert("\(method.uppercased()) \(path)") }
            }
            #expect(routes.subtracting(documented).isEmpty, "routes missing from the document: \(routes.subtracting(documented).sorted())")
            #expect(documented.subtracting(routes).isEmpty, "documented but not served: \(documented.subtracting(routes).sorted())")
        }
    }

    @Test("ride requests over HTTP (002): post with a client id (a replay is the same request), search as a driver, accept, confirm, complete, pay once; others see nothing")
    func rideRequests() async throws {
        let rig = try Rig()
        let server = rig.server
        try await rig.run { api in
            let (_, driver, driverNumber) = try await api.adminAndDriver(server)
            let driverID = Int(driverNumber)
            let (rider, _) = try await api.passenger(1)
            let (other, _) = try await api.passenger(2)
            _ = try await api.call(.post, "/v1/wallet/refills", #"{"amount":50000,"payment_token":"tok_visa"}"#, token: rider, key: "refill-r")

            let fare = try await api.call(.get, "/v1/ride-requests/fare?from=43.7393,7.4277&to=43.7314,7.4197", token: rider)
            let suggested = Int(fare["suggested_fare"]?.numberValue ?? 0)
            #expect(fare.status == 200 && suggested > 0, "\(fare.text)")
            let draft = #"{"client_id":"phone-1","source":{"lat":43.7393,"lon":7.4277},"destination":{"lat":43.7314,"lon":7.4197},"source_address":"Place du Casino","fare":\#(suggested)}"#
            let posted = try await api.call(.post, "/v1/ride-requests", draft, token: rider)
            #expect(posted.status == 201 && posted["status"]?.stringValue == "open", "\(posted.text)")
            let id = Int(posted["id"]?.numberValue ?? 0)
            let replay = try await api.call(.post, "/v1/ride-requests", draft, token: rider)
            #expect(Int(replay["id"]?.numberValue ?? -1) == id, "the offline phone's replay is the same request")
            let missingFare = try await api.call(.post, "/v1/ride-requests", #"{"client_id":"phone-2","source":{"lat":43.7393,"lon":7.4277},"destination":{"lat":43.7314,"lon":7.4197}}"#, token: rider)
            #expect(missingFare.status == 400 && missingFare.errorField == "fare")

            let found = try await api.call(.get, "/v1/ride-requests?near=43.7350,7.4230&within_m=3000&q=casino", token: driver)
            #expect(found["requests"]?.arrayValue?.map { Int($0["id"]?.numberValue ?? 0) } == [id], "\(found.text)")
            #expect(try await api.call(.get, "/v1/ride-requests?near=43.7350,7.4230", token: rider).status == 403, "riders do not search")
            #expect(try await api.call(.get, "/v1/ride-requests/\(id)", token: other).status == 404, "another rider sees nothing")

            let accepted = try await api.call(.post, "/v1/ride-requests/\(id)/accept", #"{"client_id":"drv-1"}"#, token: driver)
            #expect(accepted.status == 200 && accepted["status"]?.stringValue == "accepted", "\(accepted.text)")
            #expect(try await api.call(.post, "/v1/ride-requests/\(id)/confirm", #"{"driver":\#(driverID)}"#, token: other).status == 404)
            let confirmed = try await api.call(.post, "/v1/ride-requests/\(id)/confirm", #"{"driver":\#(driverID)}"#, token: rider)
            #expect(confirmed.status == 200 && confirmed["status"]?.stringValue == "confirmed", "\(confirmed.text)")
            #expect(try await api.call(.post, "/v1/ride-requests/\(id)/complete", token: driver).status == 200)
            let paid = try await api.call(.post, "/v1/ride-requests/\(id)/pay", token: rider, key: "pay-1")
            #expect(paid.status == 200 && Int(paid["fare"]?.numberValue ?? 0) == suggested, "\(paid.text)")
            let again = try await api.call(.post, "/v1/ride-requests/\(id)/pay", token: rider, key: "pay-1")
            #expect(again.status == 200 && again["wallet_paid"] == paid["wallet_paid"])
            let wallet = try await api.call(.get, "/v1/wallet", token: rider)
            #expect(Int(wallet["available"]?.numberValue ?? 0) == 50000 - Int(paid["wallet_paid"]?.numberValue ?? 0), "paid once: \(wallet.text)")
            let late = try await api.call(.post, "/v1/ride-requests/\(id)/cancel", token: rider)
            #expect(late.status == 409 && late.errorCode == "conflict", "\(late.text)")
        }
    }

    @Test("a session token stops working when it expires (30 days) and when its owner logs out")
    func expiredAndEndedTokens() async throws {
        let clock = VirtualScheduler(start: Date())
        let rig = try Rig(scheduler: clock)
        try await rig.run { api in
            let (token, _) = try await api.passenger(1)
            #expect(try await api.call(.get, "/v1/me", token: token).status == 200)
            clock.advance(to: clock.now().addingTimeInterval(29 * 86_400))
            #expect(try await api.call(.get, "/v1/wallet", token: token).status == 200, "still valid on day 29")
            clock.advance(to: clock.now().addingTimeInterval(2 * 86_400))
            let expired = try await api.call(.get, "/v1/wallet", token: token)
            #expect(expired.status == 401 && expired.errorCode == "unauthorized" && expired.headers[.wwwAuthenticate] == "Bearer", "\(expired.text)")
            // A fresh session, then logging out ends it.
            let again = try await api.call(.post, "/v1/sessions", #"{"mobile":"9800000001","password":"monsoon ride 1"}"#)
            let fresh = again["token"]?.stringValue ?? ""
            #expect(try await api.call(.get, "/v1/me", token: fresh).status == 200)
            #expect(try await api.call(.delete, "/v1/sessions", token: fresh).status == 204)
            #expect(try await api.call(.get, "/v1/me", token: fresh).status == 401)
        }
    }

    @Test("health, readiness, the engine's answers and their bad input")
    func engine() async throws {
        let rig = try Rig()
        try await rig.run { api in
            #expect(try await api.call(.get, "/health").status == 200)
            let ready = try await api.call(.get, "/ready")
            #expect(ready.status == 200 && ready["city"]?.stringValue == "Monaco")
            #expect(ready.headers[.init("X-Request-Id")!] != nil)
            // The live page: one self-contained document that fetches nothing from elsewhere.
            let page = try await api.call(.get, "/")
            #expect(page.status == 200 && page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("<svg id=\"map\"") && page.text.contains("/v1/cabs") && page.text.contains("/v1/bookings"))
            #expect(!page.text.contains("<script src") && !page.text.contains("<link ") && !page.text.contains("https://"), "no outside files")
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true)
            let streets = try await api.call(.get, "/v1/streets")
            #expect(streets.status == 200 && (streets["coordinates"]?.arrayValue?.count ?? 0) > 1000)
            // The Casino is in Monte-Carlo's ward and Monaco's service area; the sea is neither.
            let casino = try await api.call(.get, "/v1/zone?at=43.7393,7.4277")
            #expect(casino.status == 200 && casino["served"] == .bool(true) && casino["service_area"]?["name"]?.stringValue == "Monaco")
            #expect(casino["zone"]?["name"]?.stringValue != nil)
            let sea = try await api.call(.get, "/v1/zone?at=43.70,7.50")
            #expect(sea.status == 200 && sea["served"] == .bool(false) && sea["zone"] == .null)
            for (path, field) in [("/v1/zone", "at"), ("/v1/zone?at=91,7", "at"), ("/v1/zone?at=abc", "at"), ("/v1/route?from=43.7393,7.4277", "to"),
                                  ("/v1/cabs/nearest?at=43.7393,7.4277&k=0", "k"), ("/v1/cabs/nearest?at=43.7393,7.4277&type=Rickshaw", "type"),
                                  ("/v1/geocode?q=", "q")] {
                let r = try await api.call(.get, path)
                #expect(r.status == 400 && r.errorCode == "invalid" && r.errorField == field, "\(path): \(r.text)")
            }
            let route = try await api.call(.get, "/v1/route?from=43.7393,7.4277&to=43.7314,7.4197")
            #expect(route.status == 200 && (route["distance_m"]?.numberValue ?? 0) > 900 && (route["duration_s"]?.numberValue ?? 0) > 60)
            #expect((route["geometry"]?["coordinates"]?.arrayValue?.count ?? 0) > 5)
            // Alternatives: the fastest first (the same as the plain answer), each priced.
            let offered = try await api.call(.get, "/v1/route?from=43.7393,7.4277&to=43.7314,7.4197&alternatives=3")
            let list = offered["routes"]?.arrayValue ?? []
            #expect(offered.status == 200 && (1...3).contains(list.count), "\(offered.text)")
            #expect(list.first?["distance_m"] == route["distance_m"] && list.first?["index"]?.numberValue == 0)
            #expect(list.allSatisfy { ($0["fare_estimate"]?.numberValue ?? 0) > 0 && ($0["duration_s"]?.numberValue ?? 0) >= (route["duration_s"]?.numberValue ?? 0) })
            let fourRoutes = try await api.call(.get, "/v1/route?from=43.7393,7.4277&to=43.7314,7.4197&alternatives=4")
            #expect(fourRoutes.status == 400 && fourRoutes.errorField == "alternatives")
            // Coordinates carry at most 7 decimals; the polyline at precision 6 is the same line
            // to 1e-6 degrees, read back by an independent decoder (Geodesy's).
            let coordinates = route["geometry"]?["coordinates"]?.arrayValue ?? []
            #expect(route.text.firstMatch(of: /\.\d{8}/) == nil && coordinates.count > 5, "\(route.text.prefix(300))")
            #expect(route["polyline6"] == .null)
            let encoded = try await api.call(.get, "/v1/route?from=43.7393,7.4277&to=43.7314,7.4197&geometries=polyline6")
            #expect(encoded.status == 200 && encoded["geometry"] == .null && encoded["distance_m"] == route["distance_m"], "\(encoded.text)")
            let decoded = Polyline.decode(encoded["polyline6"]?.stringValue ?? "", precision: 6) ?? []
            #expect(decoded.count == coordinates.count && !decoded.isEmpty)
            for (d, c) in zip(decoded, coordinates) {
                let lon = c.arrayValue?.first?.numberValue ?? 0, lat = c.arrayValue?.last?.numberValue ?? 0
                #expect(abs(d.latitude - lat) <= 5.1e-7 && abs(d.longitude - lon) <= 5.1e-7)
            }
            let encodedList = try await api.call(.get, "/v1/route?from=43.7393,7.4277&to=43.7314,7.4197&alternatives=2&geometries=polyline6")
            #expect(encodedList["routes"]?.arrayValue?.allSatisfy { $0["geometry"] == .null && ($0["polyline6"]?.stringValue?.count ?? 0) > 10 } == true)
            let badFormat = try await api.call(.get, "/v1/route?from=43.7393,7.4277&to=43.7314,7.4197&geometries=polyline5")
            #expect(badFormat.status == 400 && badFormat.errorField == "geometries")
            let etas = try await api.call(.post, "/v1/etas", #"{"to":{"lat":43.7347,"lon":7.4206},"cabs":[{"id":"a","lat":43.7393,"lon":7.4277},{"id":"b","lat":43.7314,"lon":7.4197}]}"#)
            #expect(etas.status == 200 && etas["etas"]?.arrayValue?.count == 2, "\(etas.text)")
            let badEtas = try await api.call(.post, "/v1/etas", #"{"to":{"lat":43.7347,"lon":7.4206},"cabs":[{"lat":43.7,"lon":7.4}]}"#)
            #expect(badEtas.status == 400 && badEtas.errorField == "cabs[0].id")
            // The route's own line, one report per point, matched back: the same length.
            let line = route["geometry"]?["coordinates"]?.arrayValue ?? []
            let reports = line.compactMap { p -> String? in
                guard let lon = p.arrayValue?.first?.numberValue, let lat = p.arrayValue?.last?.numberValue else { return nil }
                return #"{"lat":\#(lat),"lon":\#(lon)}"#
            }
            let matched = try await api.call(.post, "/v1/match", #"{"sigma_m":5,"points":[\#(reports.joined(separator: ","))]}"#)
            #expect(matched.status == 200, "\(matched.text)")
            #expect(abs((matched["distance_m"]?.numberValue ?? 0) - (route["distance_m"]?.numberValue ?? -1)) < 10, "\(matched.text)")
            #expect(matched["points"]?.arrayValue?.count == reports.count && matched["breaks"]?.arrayValue?.isEmpty == true)
            let backwards = try await api.call(.post, "/v1/match", #"{"points":[{"lat":43.73,"lon":7.42,"time":10},{"lat":43.731,"lon":7.421,"time":5}]}"#)
            #expect(backwards.status == 400 && backwards.errorField == "points[1].time", "\(backwards.text)")
            let tooMany = Array(repeating: #"{"lat":43.73,"lon":7.42}"#, count: 2001).joined(separator: ",")
            let huge = try await api.call(.post, "/v1/match", #"{"points":[\#(tooMany)]}"#)
            #expect(huge.status == 400 && huge.errorField == "points", "\(huge.text)")
            let found = try await api.call(.get, "/v1/geocode?q=boulevard%20des%20moulins&limit=3")
            #expect(found.status == 200 && (found["results"]?.arrayValue?.count ?? 0) > 0, "\(found.text)")
            let reverse = try await api.call(.get, "/v1/reverse?at=43.7393,7.4277")
            #expect(reverse.status == 200 && reverse["label"]?.stringValue != nil)
            let fares = try await api.call(.get, "/v1/fares?at=43.7393,7.4277")
            #expect(fares.status == 200 && fares["currency"]?.stringValue == "INR" && fares["rates"]?.arrayValue?.count == 3)
            let outside = try await api.call(.get, "/v1/fares?at=43.70,7.50")
            #expect(outside.status == 422 && outside.text.contains("is out of bounds of any service area"), "\(outside.text)")
            let zones = try await api.call(.get, "/v1/zones")
            #expect(zones.status == 200 && zones["features"]?.arrayValue?.count == 13)
            let missing = try await api.call(.get, "/v1/nothing-here")
            #expect(missing.status == 404 && missing.errorCode == "not_found")
        }
    }

    @Test("bad input over the wire: malformed JSON, wrong types, unknown fields, huge bodies, missing or wrong tokens")
    func badInput() async throws {
        let rig = try Rig()
        try await rig.run { api in
            let cases: [(String, Int, String?)] = [
                ("{not json", 400, "body"), ("[1,2]", 400, "body"), (#"{"name":5}"#, 400, "name"),
                (#"{"name":"A","mobile":"9812345678","email":"a@example.com","password":"monsoon ride","confirmation":"monsoon ride","admin":true}"#, 400, "admin"),
                (#"{"name":"A","name":"B"}"#, 400, "name"),
                (#"{"name":"A","mobile":"12","email":"a@example.com","password":"monsoon ride","confirmation":"monsoon ride"}"#, 400, "mobile"),
            ]
            for (body, status, field) in cases {
                let r = try await api.call(.post, "/v1/accounts", body)
                #expect(r.status == status && r.errorField == field, "\(body): \(r.text)")
            }
            let huge = try await api.call(.post, "/v1/accounts", "{\"name\":\"" + String(repeating: "x", count: 100_000) + "\"}")
            #expect(huge.status == 413 && huge.errorCode == "too_large", "\(huge.status) \(huge.text.prefix(200))")
            let noToken = try await api.call(.get, "/v1/wallet")
            #expect(noToken.status == 401 && noToken.errorCode == "unauthorized" && noToken.headers[.wwwAuthenticate] == "Bearer")
            let badToken = try await api.call(.get, "/v1/wallet", token: "not-a-session")
            #expect(badToken.status == 401)
            let basic = try await api.call(.get, "/v1/wallet", headers: [.authorization: "Basic dXNlcjpwYXNz"])
            #expect(basic.status == 401)
            // Nothing inside the server shows: no stack, no SQL.
            for r in [huge, noToken, badToken] { #expect(!r.text.contains("SELECT") && !r.text.contains(".swift")) }
        }
    }

    @Test("a whole trip over HTTP: refill, book, the driver's offer, arrival, start, completion, and the invoice; others see nothing")
    func wholeTrip() async throws {
        let rig = try Rig()
        let server = rig.server, store = rig.store
        try await rig.run { api in
            let (admin, driver, _) = try await api.adminAndDriver(server)
            #expect(try await api.call(.post, "/v1/driver/shift", #"{"cab_id":"MC-42","cab_type":"Sedan","seats":4}"#, token: driver).status == 204)
            #expect(try await api.call(.post, "/v1/driver/position", #"{"position":{"lat":43.7347,"lon":7.4226}}"#, token: driver).status == 204)
            #expect(try await api.call(.post, "/v1/driver/availability", #"{"available":true}"#, token: driver).status == 204)
            // Nearest-cab queries read the fleet's published snapshot, at most 50 ms old.
            try await Task.sleep(for: .milliseconds(120))
            let nearest = try await api.call(.get, "/v1/cabs/nearest?at=43.7393,7.4277&type=Sedan", token: admin)
            #expect(nearest["cabs"]?.arrayValue?.first?["id"]?.stringValue == "MC-42", "\(nearest.text)")
            // Anyone else sees the cab without its id, at about 100 m.
            let seen = try await api.call(.get, "/v1/cabs/nearest?at=43.7393,7.4277&type=Sedan")
            let cab = try #require(seen["cabs"]?.arrayValue?.first, "\(seen.text)")
            #expect((cab["id"] ?? .null) == .null && cab["position"]?["lat"]?.numberValue == 43.735 && cab["position"]?["lon"]?.numberValue == 7.423, "\(seen.text)")
            #expect((try await api.call(.get, "/v1/cabs")["cabs"]?.arrayValue?.first?["id"] ?? .null) == .null)
            #expect(try await api.call(.get, "/v1/cabs", token: admin)["cabs"]?.arrayValue?.first?["id"]?.stringValue == "MC-42")

            let (asha, _) = try await api.passenger(1)
            let (other, _) = try await api.passenger(2)
            let refill = try await api.call(.post, "/v1/wallet/refills", #"{"amount":50000,"payment_token":"tok_visa"}"#, token: asha, key: "refill-1")
            #expect(refill.status == 201 && refill["available"]?.numberValue == 50000, "\(refill.text)")
            let noKey = try await api.call(.post, "/v1/wallet/refills", #"{"amount":50000,"payment_token":"tok_visa"}"#, token: asha)
            #expect(noKey.status == 400 && noKey.errorField == "Idempotency-Key")
            let trip = #"{"pickup":{"lat":43.7393,"lon":7.4277},"destination":{"lat":43.7314,"lon":7.4197},"cab_type":"Sedan"}"#
            let estimate = try await api.call(.post, "/v1/estimates", trip, token: asha)
            #expect(estimate.status == 200 && (estimate["total"]?.numberValue ?? 0) > 0 && (estimate["discount"]?.numberValue ?? 0) > 0)
            // The driver's app listens for offers (server-sent events) before the booking.
            let stream = Task { try await api.call(.get, "/v1/driver/offers/stream", token: driver) }
            for _ in 0..<200 where server.openOfferStreams == 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(server.openOfferStreams == 1)
            let booked = try await api.call(.post, "/v1/bookings", trip, token: asha, key: "book-1")
            #expect(booked.status == 201 && booked["state"]?.stringValue == "requested", "\(booked.text)")
            let number = Int(booked["number"]?.numberValue ?? 0)
            // The stream ends when the server stops; it carried the offer as it was made.
            server.closeStreams()
            let pushed = try await stream.value
            #expect(pushed.status == 200 && pushed.headers[.contentType] == "text/event-stream")
            #expect(pushed.text.contains("event: offer\nid: ") && pushed.text.contains(#""booking":\#(number)"#), "\(pushed.text)")
            // The same key again: the same booking, not a second one.
            let again = try await api.call(.post, "/v1/bookings", trip, token: asha, key: "book-1")
            #expect(again.status == 201 && Int(again["number"]?.numberValue ?? 0) == number)
            // Another passenger, a driver and nobody cannot see it.
            #expect(try await api.call(.get, "/v1/bookings/\(number)", token: other).status == 404)
            #expect(try await api.call(.get, "/v1/bookings/\(number)", token: driver).status == 403)
            #expect(try await api.call(.get, "/v1/bookings/\(number)").status == 401)

            let offers = try await api.call(.get, "/v1/driver/offers", token: driver)
            let offer = try #require(offers["offers"]?.arrayValue?.first, "\(offers.text)")
            #expect(Int(offer["booking"]?.numberValue ?? 0) == number)
            let offerID = Int(offer["id"]?.numberValue ?? 0)
            #expect(try await api.call(.post, "/v1/driver/offers/\(offerID)", #"{"accept":true}"#, token: asha).status == 403)
            #expect(try await api.call(.post, "/v1/driver/offers/\(offerID)", #"{"accept":true}"#, token: driver).status == 204)
            let allocated = try await api.call(.get, "/v1/bookings/\(number)", token: asha)
            #expect(allocated["state"]?.stringValue == "allocated" && allocated["cab"]?.stringValue == "MC-42")
            let track = try await api.call(.get, "/v1/bookings/\(number)/track", token: asha)
            #expect(track.status == 200 && track["cab_position"] != .null && (track["remaining_route"]?["coordinates"]?.arrayValue?.count ?? 0) > 1)
            #expect(try await api.call(.post, "/v1/driver/bookings/\(number)/arrived", token: driver).status == 204)
            #expect(try await api.call(.post, "/v1/driver/bookings/\(number)/started", token: driver).status == 204)
            let invoice = try await api.call(.post, "/v1/driver/bookings/\(number)/complete", #"{"metres":1650}"#, token: driver, key: "done-1")
            // No report during the trip and no waiting: billed the route it was estimated on,
            // so the fare is the estimate (the meter's 1,650 m is a claim, kept beside it).
            let total = estimate["total"]?.numberValue ?? -1
            #expect(invoice.status == 200 && invoice["total"]?.numberValue == total && invoice["method"]?.stringValue == "wallet", "\(invoice.text)")
            #expect(invoice["meter_m"]?.numberValue == 1650 && (invoice["billed_m"]?.numberValue ?? 0) > 2000)
            let wallet = try await api.call(.get, "/v1/wallet", token: asha)
            #expect(wallet["available"]?.numberValue == 50000 - total && wallet["held"]?.numberValue == 0)
            let history = try await api.call(.get, "/v1/bookings/\(number)/history", token: asha)
            #expect(history["events"]?.arrayValue?.compactMap { $0["state"]?.stringValue } == ["requested", "allocated", "arrived", "started", "completed"])
            // No position during the trip: no driven track to keep (billed on the booked route).
            #expect(history["driven_track"]?.arrayValue?.isEmpty == true, "\(history.text)")
            #expect(try await api.call(.post, "/v1/bookings/\(number)/feedback", #"{"driver":5,"cab":4,"experience":5}"#, token: asha).status == 201)
            let twice = try await api.call(.post, "/v1/bookings/\(number)/feedback", #"{"driver":5,"cab":4,"experience":5}"#, token: asha)
            #expect(twice.status == 409 && twice.errorCode == "conflict")
            let none = try await api.call(.get, "/v1/bookings?list=pending", token: asha)
            #expect(none["message"]?.stringValue == "No Pending Cabs for Passenger")
            #expect(try LedgerAudit.run(on: store).isSound)

            // The metrics saw it all: per route pattern (never a booking number), the dispatch
            // outcome, the cab on shift, the store's transactions.
            #expect(try await api.call(.get, "/metrics", token: driver).status == 403)
            let metrics = try await api.call(.get, "/metrics", token: admin)
            #expect(metrics.status == 200 && metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
            let lines = metrics.text.split(separator: "\n").map(String.init)
            func value(_ prefix: String) -> Double? {
                lines.first { $0.hasPrefix(prefix) }.flatMap { Double($0.split(separator: " ").last ?? "") }
            }
            // Two: the booking and its replay with the same key.
            #expect(value(#"wayfare_http_requests_total{route="/v1/bookings",method="POST",status="201"}"#) == 2, "\(metrics.text.prefix(3000))")
            #expect(lines.contains { $0.hasPrefix("wayfare_http_requests_total{route=\"/v1/bookings/") && $0.contains("status=\"404\"") })
            #expect(!metrics.text.contains("\(number)"), "no series per booking")
            #expect(value(#"wayfare_dispatch_outcomes_total{outcome="allocated"}"#) == 1)
            #expect(value(#"wayfare_fleet_cabs{status="available"}"#) == 1)
            #expect((value(#"wayfare_store_transaction_duration_seconds_count{kind="write"}"#) ?? 0) > 10)
            #expect(value(#"wayfare_http_request_duration_seconds_bucket{route="/v1/bookings",method="POST",le="+Inf"}"#) == 2)

            // A booking for later, its time written as the server writes times (with
            // milliseconds) and without them.
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            for (minutes, key) in [(45.0, "later-1"), (150.0, "later-2")] {
                var time = formatter.string(from: Date().addingTimeInterval(minutes * 60))
                if key == "later-2" { time = ISO8601DateFormatter().string(from: Date().addingTimeInterval(minutes * 60)) }
                let body = trip.dropLast() + #","pickup_time":"\#(time)"}"#
                let later = try await api.call(.post, "/v1/bookings", String(body), token: asha, key: key)
                #expect(later.status == 201 && later["kind"]?.stringValue == "later", "\(time): \(later.text)")
            }
        }
    }
}
