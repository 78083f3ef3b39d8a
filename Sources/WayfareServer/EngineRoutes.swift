import Fares
import Fleet
import Foundation
import GeoJSON
import Geocoding
import Geodesy
import Hummingbird
import RoadGraph
import Services
import Zones

/// The engine's answers: where a point is, how to get somewhere, how long cabs take, which
/// cabs are near, and addresses both ways. No sign-in: these are what a map shows.
extension WayfareServer {
    func addEngineRoutes(_ router: Hummingbird.Router<WayfareContext>) {
        let zones = city.city.zones
        // GET /v1/zone?at=lat,lon → the taxi zone and the service area of a point.
        router.get("/v1/zone") { request, _ in
            let point = try Query(request).coordinate("at")
            let zone = zones.zone(containing: point)
            let area = try? zones.serviceArea(containing: point)
            return JSONResponse.make(.object([
                ("zone", zone.map { .object([("id", .string($0.id)), ("name", .string($0.name))]) } ?? .null),
                ("service_area", area.map { .object([("id", .string($0.id)), ("name", .string($0.name))]) } ?? .null),
                ("served", .bool(area != nil)),
            ]))
        }
        // GET /v1/zones → the zones and service areas with their outlines, as GeoJSON (the map).
        let outlines = Self.zonesGeoJSON(zones)
        router.get("/v1/zones") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/geo+json"
            headers[.cacheControl] = "public, max-age=3600"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: outlines)))
        }
        // GET /v1/route?from=lat,lon&to=lat,lon → the fastest route with its geometry.
        router.get("/v1/route") { [self] request, _ in
            let q = Query(request)
            let from = try q.coordinate("from"), to = try q.coordinate("to")
            let result: Result<Route, RouteError> = routers.with { r in Result { () throws(RouteError) -> Route in try r.route(from: from, to: to) } }
            let route: Route
            switch result {
            case .success(let r): route = r
            case .failure(let e): throw APIError(.unprocessableContent, code: "no_route", message: e.description)
            }
            return JSONResponse.make(.object([
                ("distance_m", .number((route.distanceMetres * 10).rounded() / 10)),
                ("duration_s", .number((route.durationSeconds * 10).rounded() / 10)),
                ("streets", .array(route.streets.map { .string($0) })),
                ("toll_ways", .array(route.tollWays.map { .number(Double($0)) })),
                ("geometry", .object([("type", .string("LineString")),
                                      ("coordinates", .array(route.geometry.map { .array([.number($0.longitude), .number($0.latitude)]) }))])),
            ]))
        }
        // POST /v1/etas {"to":{lat,lon},"cabs":[{"id":…,"lat":…,"lon":…},…]} → each cab's ETA (≤ 30 min, else null).
        router.post("/v1/etas") { [self] request, _ in
            var body = try await body(request)
            let to = try body.coordinate("to")
            let items = try body.array("cabs", maximum: 1000)
            try body.finish()
            var ids: [String] = [], points: [Coordinate] = []
            for (i, item) in items.enumerated() {
                guard case let .object(m) = item, let id = m.first(where: { $0.0 == "id" })?.1.stringValue, !id.isEmpty, id.count <= 64 else {
                    throw APIError.invalid("cabs[\(i)].id", "a string of 1 to 64 characters is required")
                }
                let point = try JSONBody.coordinate(.object(m.filter { $0.0 != "id" }), field: "cabs[\(i)]")
                ids.append(id)
                points.append(point)
            }
            let result: Result<[ETA?], RouteError> = routers.with { r in Result { () throws(RouteError) -> [ETA?] in try r.etas(to: to, from: points) } }
            guard case let .success(etas) = result else {
                if case let .failure(e) = result { throw APIError(.unprocessableContent, code: "no_route", message: e.description) }
                throw APIError.internal
            }
            return JSONResponse.make(.object([("etas", .array(zip(ids, etas).map { id, eta in
                .object([("id", .string(id)), ("eta_s", eta.map { .number(($0.seconds * 10).rounded() / 10) } ?? .null),
                         ("distance_m", eta.map { .number($0.metres.rounded()) } ?? .null)])
            }))]))
        }
        // GET /v1/cabs/nearest?at=lat,lon&k=5&type=Sedan → the nearest available cabs of the live fleet.
        router.get("/v1/cabs/nearest") { [self] request, _ in
            let q = Query(request)
            let at = try q.coordinate("at")
            let k = try q.integer("k", default: 5, in: 1...50)
            var types: Set<CabType>? = nil
            if let name = q.string("type") {
                guard bookings.dispatcher.fleet.configuration.cabTypes.contains(CabType(name)) else {
                    throw APIError.invalid("type", "the city has no cab type \"\(name.prefix(40))\"")
                }
                types = [CabType(name)]
            }
            let matches = bookings.dispatcher.fleet.nearest(k, to: at, types: types, statuses: [.available])
            let exact = await isAdmin(request)
            return JSONResponse.make(.object([("cabs", .array(matches.map { m in
                exact ? .object([("id", .string(m.cab.id)), ("type", .string(m.cab.type.name)),
                                 ("position", m.cab.position?.json ?? .null), ("distance_m", .number(m.distance.rounded()))])
                      : .object([("type", .string(m.cab.type.name)), ("position", m.cab.position.map(Self.coarse) ?? .null),
                                 ("distance_m", .number((m.distance / 100).rounded() * 100))])
            }))]))
        }
        // GET /v1/cabs → every cab on shift with its status and position (the live map).
        // Drivers' ids and exact positions are for admins; everyone else sees each cab's
        // type and status at about 100 m, enough for a map and not enough to follow a driver.
        router.get("/v1/cabs") { [self] request, _ in
            let cabs = bookings.dispatcher.fleet.allCabs()
            let exact = await isAdmin(request)
            return JSONResponse.make(.object([("cabs", .array(cabs.map { c in
                exact ? .object([("id", .string(c.id)), ("type", .string(c.type.name)), ("status", .string("\(c.status)")),
                                 ("position", c.position?.json ?? .null)])
                      : .object([("type", .string(c.type.name)), ("status", .string("\(c.status)")),
                                 ("position", c.position.map(Self.coarse) ?? .null)])
            }))]))
        }
        // GET /v1/geocode?q=…&near=lat,lon&limit=5 and GET /v1/reverse?at=lat,lon.
        router.get("/v1/geocode") { [self] request, _ in
            let q = Query(request)
            guard let geocoder = city.geocoder else { throw APIError(.notFound, code: "not_found", message: "this city has no geocoder") }
            guard let text = q.string("q"), !text.isEmpty else { throw APIError.invalid("q", "is required") }
            let near = try q.optionalCoordinate("near")
            let limit = try q.integer("limit", default: 5, in: 1...20)
            let found: [GeocodeCandidate]
            do { found = try geocoder.geocode(text, near: near, limit: limit) } catch { throw APIError.invalid("q", "\(error)") }
            return JSONResponse.make(.object([("results", .array(found.map { c in
                .object([("label", .string(c.label)), ("position", c.coordinate.json), ("kind", .string(c.kind.description)),
                         ("score", .number((c.score * 1000).rounded() / 1000))])
            }))]))
        }
        router.get("/v1/reverse") { [self] request, _ in
            guard let geocoder = city.geocoder else { throw APIError(.notFound, code: "not_found", message: "this city has no geocoder") }
            let at = try Query(request).coordinate("at")
            guard let answer = geocoder.reverse(at) else { throw APIError(.notFound, code: "not_found", message: "no address near \(at)") }
            return JSONResponse.make(.object([("label", .string(answer.label)), ("position", answer.coordinate.json),
                                              ("kind", .string(answer.kind.description)), ("distance_m", .number(answer.metres.rounded()))]))
        }
        // GET /v1/fares?at=lat,lon → the fare chart where a trip would start.
        router.get("/v1/fares") { [self] request, _ in
            let at = try Query(request).coordinate("at")
            let chart = city.city.fares
            let rates: [String: FareRate]
            do { rates = try chart.chart(at: at, in: city.city.zones) } catch let error as FareError {
                throw APIError(.unprocessableContent, code: "out_of_bounds", message: error.description)
            }
            return JSONResponse.make(.object([
                ("currency", .string(chart.currency)),
                ("rates", .array(rates.keys.sorted().map { type in
                    .object([("cab_type", .string(type)), ("base", .number(Double(rates[type]!.base))),
                             ("per_km", .number(Double(rates[type]!.perKilometre)))])
                })),
                ("waiting", .object([("free_minutes", .number(Double(chart.freeWaitingMinutes))),
                                     ("block_minutes", .number(Double(chart.waitingBlockMinutes))),
                                     ("per_block", .number(Double(chart.waitingBlockCharge)))])),
                ("first_ride_discount_percent", .number(Double(chart.firstRideDiscountPercent))),
            ]))
        }
    }

    /// The zones and service areas as one GeoJSON FeatureCollection (`kind` tells which).
    static func zonesGeoJSON(_ zones: ZoneSet) -> String {
        func feature(_ zone: Zone, kind: String, rings: [[[Position]]]) -> JSONValue {
            .object([("type", .string("Feature")),
                     ("properties", .object([("id", .string(zone.id)), ("name", .string(zone.name)), ("kind", .string(kind))])),
                     ("geometry", .object([("type", .string("MultiPolygon")),
                                           ("coordinates", .array(rings.map { polygon in .array(polygon.map { ring in
                                               .array(ring.map { .array([.number($0.x), .number($0.y)]) }) }) }))]))])
        }
        var features: [JSONValue] = []
        for area in zones.serviceAreas { features.append(feature(area, kind: "service_area", rings: zones.polygons(ofServiceArea: area))) }
        for zone in zones.zones { features.append(feature(zone, kind: "zone", rings: zones.polygons(of: zone))) }
        return JSONValue.object([("type", .string("FeatureCollection")), ("features", .array(features))]).serialized
    }

    /// A position rounded to a thousandth of a degree: about 110 m north–south and, at
    /// Monaco's latitude, 80 m east–west.
    static func coarse(_ c: Coordinate) -> JSONValue {
        .object([("lat", .number((c.latitude * 1000).rounded() / 1000)), ("lon", .number((c.longitude * 1000).rounded() / 1000))])
    }
}
