import CityModel
import Essentials
import Fares
import Fleet
import Foundation
import GeoJSON
import Geocoding
import Geodesy
import Hummingbird
import RoadGraph
import Services
import WayfareAPI
import Zones

extension EngineController {
    /// Up to `count` routes, fastest first, each priced for the city's default cab type
    /// (Sedan when it has one) at the pickup's rate; no estimate outside every service area.
    static func choices(from: Coordinate, to: Coordinate, count: Int, format: GeometryFormat, city: City, routers: RouterPool) throws -> RouteList {
        let result: Result<[Route], RouteError> = routers.with { r in Result { () throws(RouteError) -> [Route] in try r.routes(from: from, to: to, count: count) } }
        let found: [Route]
        switch result {
        case .success(let r): found = r
        case .failure(let e): throw APIError(.unprocessableContent, code: "no_route", message: e.description)
        }
        let type = city.fares.defaultCabType ?? .sedan
        let rate = try? city.fares.rate(at: from, in: city.zones, type: type)
        return RouteList(routes: found.enumerated().map { i, route in
            RouteList.Choice(index: i, route: route,
                             fareEstimate: rate.flatMap { try? city.fares.estimate(on: route, at: $0, type: type, tolls: city.tolls).fare.total },
                             format: format)
        })
    }
}

/// The engine's answers: where a point is, how to get somewhere, how long cabs take, which
/// cabs are near, addresses both ways, the fare chart. No sign-in: these are what a map
/// shows (a signed-in admin sees drivers' ids and exact positions).
struct EngineController {
    let server: WayfareServer

    var routes: RouteCollection<WayfareContext> {
        let routes = RouteCollection(context: WayfareContext.self)
        let server = server, city = server.city, zones = city.city.zones, routers = server.routers
        routes.on(.zone) { request, _ in
            let point = try request.coordinate(.at)!
            let zone = zones.zone(containing: point)
            let area = try? zones.serviceArea(containing: point)
            return JSONResponse.make(ZoneAnswer(zone: zone.map { Named(id: $0.id, name: $0.name) }, serviceArea: area.map { Named(id: $0.id, name: $0.name) }))
        }
        // The zones and service areas with their outlines, as GeoJSON (the map).
        let outlines = WayfareServer.zonesGeoJSON(zones)
        routes.on(.zones) { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/geo+json"
            headers[.cacheControl] = "public, max-age=3600"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: outlines)))
        }
        routes.on(.route) { request, _ in
            let query = request.query
            let from = try query.coordinate(.from)!, to = try query.coordinate(.to)!
            let format = try query.parameter(.geometries).flatMap(GeometryFormat.init(rawValue:)) ?? .geojson
            if let count = try query.integer(.alternatives) {
                return JSONResponse.make(try Self.choices(from: from, to: to, count: Int(count), format: format, city: city.city, routers: routers))
            }
            let result: Result<Route, RouteError> = routers.with { r in Result { () throws(RouteError) -> Route in try r.route(from: from, to: to) } }
            let route: Route
            switch result {
            case .success(let r): route = r
            case .failure(let e): throw APIError(.unprocessableContent, code: "no_route", message: e.description)
            }
            return JSONResponse.make(RouteAnswer(route, format: format), capacity: 64 + route.geometry.count * 24)
        }
        // A trace matched to the roads, on a matcher of the pool's.
        let matchers = server.matchers
        routes.on(.match) { request, _ in
            let asked = try await request.decode(MatchRequest.self)
            let trace = try asked.trace
            let settings = MatchSettings(gpsSigmaMetres: asked.sigmaM ?? 10)
            return JSONResponse.make(MatchAnswer(matchers.with { $0.match(trace, settings: settings) }))
        }
        // Each cab's ETA to one place (≤ 30 min, else null).
        routes.on(.etas) { request, _ in
            let asked = try await request.decode(ETARequest.self)
            let to = try asked.to.coordinate
            var points: [Coordinate] = []
            for (i, cab) in asked.cabs.enumerated() {
                do { points.append(try Coordinate(latitude: cab.lat, longitude: cab.lon)) } catch {
                    throw APIError.invalid("cabs[\(i)]", "\(error)")
                }
            }
            let result: Result<[ETA?], RouteError> = routers.with { r in Result { () throws(RouteError) -> [ETA?] in try r.etas(to: to, from: points) } }
            switch result {
            case .failure(let e): throw APIError(.unprocessableContent, code: "no_route", message: e.description)
            case .success(let etas):
                return JSONResponse.make(ETAList(etas: zip(asked.cabs, etas).map { cab, eta in
                    ETAList.Item(id: cab.id, etaS: eta.map { ($0.seconds * 10).rounded() / 10 }, distanceM: eta.map { $0.metres.rounded() })
                }))
            }
        }
        routes.on(.geocode) { request, _ in
            guard let geocoder = city.geocoder else { throw APIError(.notFound, code: "not_found", message: "this city has no geocoder") }
            let text = try request.parameter(.geocodeText)!
            let near = try request.coordinate(.near)
            let limit = Int(try request.integer(.geocodeLimit) ?? 5)
            let found: [GeocodeCandidate]
            do { found = try geocoder.geocode(text, near: near, limit: limit) } catch { throw APIError.invalid("q", "\(error)") }
            return JSONResponse.make(PlaceList(results: found.map { c in
                PlaceAnswer(label: c.label, position: LatLon(c.coordinate), kind: c.kind.description, score: (c.score * 1000).rounded() / 1000)
            }))
        }
        routes.on(.reverse) { request, _ in
            guard let geocoder = city.geocoder else { throw APIError(.notFound, code: "not_found", message: "this city has no geocoder") }
            let at = try request.coordinate(.at)!
            guard let answer = geocoder.reverse(at) else { throw APIError(.notFound, code: "not_found", message: "no address near \(at)") }
            return JSONResponse.make(PlaceAnswer(label: answer.label, position: LatLon(answer.coordinate), kind: answer.kind.description,
                                                 distanceM: answer.metres.rounded()))
        }
        routes.on(.fares) { request, _ in
            let at = try request.coordinate(.at)!
            let chart = city.city.fares
            let rates: [String: FareRate]
            do { rates = try chart.chart(at: at, in: city.city.zones) } catch let error as FareError {
                throw APIError(.unprocessableContent, code: "out_of_bounds", message: error.description)
            }
            return JSONResponse.make(FareChartAnswer(
                currency: chart.currency,
                rates: rates.sorted { $0.key < $1.key }.map { .init(cabType: $0.key, base: $0.value.base, perKm: $0.value.perKilometre) },
                waiting: .init(freeMinutes: Int64(chart.freeWaitingMinutes), blockMinutes: Int64(chart.waitingBlockMinutes),
                               perBlock: Int64(chart.waitingBlockCharge)),
                firstRideDiscountPercent: Int64(chart.firstRideDiscountPercent)))
        }
        // The live fleet: the city's owner answers.
        routes.add(middleware: OwnerRedirectMiddleware(server: server))
        // The nearest available cabs of the live fleet.
        routes.on(.nearestCabs) { request, context in
            let at = try request.coordinate(.at)!
            let k = Int(try request.integer(.nearestCount) ?? 5)
            var types: Set<CabType>? = nil
            if let name = try request.parameter(.cabType) {
                guard server.bookings.dispatcher.fleet.configuration.cabTypes.contains(CabType(name)) else {
                    throw APIError.invalid("type", "the city has no cab type \"\(name.prefix(40))\"")
                }
                types = [CabType(name)]
            }
            let matches = server.bookings.dispatcher.fleet.nearest(k, to: at, types: types, statuses: [.available])
            let exact = context.isAdmin
            return JSONResponse.make(CabList(cabs: matches.map { m in
                exact ? CabAnswer(id: m.cab.id, type: m.cab.type.name, status: nil, position: m.cab.position.map(LatLon.init), distanceM: m.distance.rounded())
                      : CabAnswer(id: nil, type: m.cab.type.name, status: nil, position: m.cab.position.map(WayfareServer.coarse),
                                  distanceM: (m.distance / 100).rounded() * 100)
            }))
        }
        // Every cab on shift with its status and position (the live map). Drivers' ids and
        // exact positions are for admins; everyone else sees each cab's type and status at
        // about 100 m, enough for a map and not enough to follow a driver.
        routes.on(.cabs) { _, context in
            let exact = context.isAdmin
            return JSONResponse.make(CabList(cabs: server.bookings.dispatcher.fleet.allCabs().map { c in
                CabAnswer(id: exact ? c.id : nil, type: c.type.name, status: "\(c.status)",
                          position: c.position.map { exact ? LatLon($0) : WayfareServer.coarse($0) }, distanceM: nil)
            }))
        }
        return routes
    }
}

extension WayfareServer {
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
    static func coarse(_ c: Coordinate) -> LatLon {
        LatLon(lat: (c.latitude * 1000).rounded() / 1000, lon: (c.longitude * 1000).rounded() / 1000)
    }
}
