import Foundation
import Geodesy
import RoadGraph

/// A zone or service area: its id and name.
public struct Named: Codable, Sendable, Equatable {
    /// The id.
    public var id: String
    /// The name.
    public var name: String

    /// A pair.
    public init(id: String, name: String) { self.id = id; self.name = name }
}

/// `GET /v1/zone`.
public struct ZoneAnswer: Codable, Sendable, Equatable {
    /// The taxi zone, if any.
    public var zone: Named?
    /// The service area, if any.
    public var serviceArea: Named?
    /// Whether cabs serve the point.
    public var served: Bool

    /// An answer from its fields.
    public init(zone: Named?, serviceArea: Named?) { self.zone = zone; self.serviceArea = serviceArea; served = serviceArea != nil }

    enum CodingKeys: String, CodingKey { case zone, serviceArea = "service_area", served }
}

/// How a route's way is written on the wire (`geometries`).
public enum GeometryFormat: String, WireChoice {
    /// A GeoJSON LineString, coordinates to 7 decimals.
    case geojson
    /// An encoded polyline at precision 6 (`Geodesy.Polyline`).
    case polyline6
}

/// `GET /v1/route`: the fastest route.
public struct RouteAnswer: Codable, Sendable, Equatable {
    /// Its length, in metres.
    public var distanceM: Double
    /// Its duration, in seconds.
    public var durationS: Double
    /// The streets along it.
    public var streets: [String]
    /// The toll ways it takes (OpenStreetMap way ids).
    public var tollWays: [Int64]
    /// The way as GeoJSON (nil when the polyline was asked for).
    public var geometry: LineString?
    /// The way as an encoded polyline at precision 6 (nil unless asked for).
    public var polyline6: String?

    /// An answer from its fields.
    public init(distanceM: Double, durationS: Double, streets: [String], tollWays: [Int64], geometry: LineString?, polyline6: String? = nil) {
        self.distanceM = distanceM; self.durationS = durationS; self.streets = streets; self.tollWays = tollWays
        self.geometry = geometry; self.polyline6 = polyline6
    }

    /// The answer for `route`, its way written as `format` asks: metres and seconds to the tenth.
    public init(_ route: Route, format: GeometryFormat) {
        self.init(distanceM: RouteAnswer.tenth(route.distanceMetres), durationS: RouteAnswer.tenth(route.durationSeconds),
                  streets: route.streets, tollWays: route.tollWays,
                  geometry: format == .geojson ? LineString(route.geometry) : nil,
                  polyline6: format == .polyline6 ? Polyline.encode(route.geometry, precision: 6) : nil)
    }

    static func tenth(_ x: Double) -> Double { (x * 10).rounded() / 10 }

    enum CodingKeys: String, CodingKey {
        case distanceM = "distance_m", durationS = "duration_s", streets, tollWays = "toll_ways", geometry, polyline6
    }
}

/// `GET /v1/route?…&alternatives=N`: the routes a passenger may choose from, fastest first.
public struct RouteList: Codable, Sendable, Equatable {
    /// The routes: the fastest, then admissible alternatives (limited sharing, bounded
    /// stretch, locally optimal).
    public var routes: [Choice]

    /// A list of routes.
    public init(routes: [Choice]) { self.routes = routes }

    /// One route and what it costs.
    public struct Choice: Codable, Sendable, Equatable {
        /// Its place in the list: what a booking names (`route`).
        public var index: Int
        /// Its length, in metres.
        public var distanceM: Double
        /// Its duration, in seconds.
        public var durationS: Double
        /// The streets along it.
        public var streets: [String]
        /// The toll ways it takes (OpenStreetMap way ids).
        public var tollWays: [Int64]
        /// The fare estimate of a sedan on it, in minor units (nil outside every service area).
        public var fareEstimate: Int64?
        /// The way as GeoJSON (nil when the polyline was asked for).
        public var geometry: LineString?
        /// The way as an encoded polyline at precision 6 (nil unless asked for).
        public var polyline6: String?

        /// A choice from its fields.
        public init(index: Int, distanceM: Double, durationS: Double, streets: [String], tollWays: [Int64], fareEstimate: Int64?,
                    geometry: LineString?, polyline6: String? = nil) {
            self.index = index; self.distanceM = distanceM; self.durationS = durationS; self.streets = streets; self.tollWays = tollWays
            self.fareEstimate = fareEstimate; self.geometry = geometry; self.polyline6 = polyline6
        }

        /// Route `index` of a list and its fare estimate, its way written as `format` asks.
        public init(index: Int, route: Route, fareEstimate: Int64?, format: GeometryFormat) {
            let answer = RouteAnswer(route, format: format)
            self.init(index: index, distanceM: answer.distanceM, durationS: answer.durationS, streets: answer.streets, tollWays: answer.tollWays,
                      fareEstimate: fareEstimate, geometry: answer.geometry, polyline6: answer.polyline6)
        }

        enum CodingKeys: String, CodingKey {
            case index, distanceM = "distance_m", durationS = "duration_s", streets, tollWays = "toll_ways", fareEstimate = "fare_estimate"
            case geometry, polyline6
        }
    }
}

/// `POST /v1/etas`: how long each cab takes to one place.
public struct ETARequest: Codable, Sendable, Equatable {
    /// The place.
    public var to: LatLon
    /// The cabs.
    public var cabs: [Cab]

    /// A cab and where it is.
    public struct Cab: Codable, Sendable, Equatable {
        /// The caller's id of the cab.
        public var id: String
        /// Degrees north.
        public var lat: Double
        /// Degrees east.
        public var lon: Double

        /// A cab from its fields.
        public init(id: String, lat: Double, lon: Double) { self.id = id; self.lat = lat; self.lon = lon }

        enum CodingKeys: String, WireKey {
            case id, lat, lon
            var rule: FieldRule {
                switch self {
                case .id: .text(maximum: 64, minimum: 1)
                case .lat: .number(-90...90)
                case .lon: .number(-180...180)
                }
            }
        }
    }

    /// A request from its fields.
    public init(to: LatLon, cabs: [Cab]) { self.to = to; self.cabs = cabs }

    enum CodingKeys: String, WireKey {
        case to, cabs
        var rule: FieldRule { self == .cabs ? .list(maximum: 1000) : .structured }
    }
}

/// The answer to `POST /v1/etas`.
public struct ETAList: Codable, Sendable, Equatable {
    /// Each cab's ETA, in the order asked.
    public var etas: [Item]

    /// One cab's ETA: null beyond 30 minutes or with no route.
    public struct Item: Codable, Sendable, Equatable {
        /// The caller's id of the cab.
        public var id: String
        /// Seconds.
        public var etaS: Double?
        /// Metres.
        public var distanceM: Double?

        /// An item from its fields.
        public init(id: String, etaS: Double?, distanceM: Double?) { self.id = id; self.etaS = etaS; self.distanceM = distanceM }

        enum CodingKeys: String, CodingKey { case id, etaS = "eta_s", distanceM = "distance_m" }
    }

    /// A list of `etas`.
    public init(etas: [Item]) { self.etas = etas }
}

/// A cab on the map: admins see its id and exact position; everyone else its type and a
/// position rounded to about 100 m.
public struct CabAnswer: Codable, Sendable, Equatable {
    /// The cab's id (admins only).
    public var id: String?
    /// The cab's type.
    public var type: String
    /// Its status (`GET /v1/cabs`).
    public var status: String?
    /// Where it is.
    public var position: LatLon?
    /// How far from the point asked about (`GET /v1/cabs/nearest`).
    public var distanceM: Double?

    /// A cab from its fields.
    public init(id: String?, type: String, status: String?, position: LatLon?, distanceM: Double?) {
        self.id = id; self.type = type; self.status = status; self.position = position; self.distanceM = distanceM
    }

    enum CodingKeys: String, CodingKey { case id, type, status, position, distanceM = "distance_m" }
}

/// `GET /v1/cabs` and `GET /v1/cabs/nearest`.
public struct CabList: Codable, Sendable, Equatable {
    /// The cabs.
    public var cabs: [CabAnswer]

    /// A list of `cabs`.
    public init(cabs: [CabAnswer]) { self.cabs = cabs }
}

/// A place found by `GET /v1/geocode` or `GET /v1/reverse`.
public struct PlaceAnswer: Codable, Sendable, Equatable {
    /// Its address or name.
    public var label: String
    /// Where it is.
    public var position: LatLon
    /// What it is (address, street, place).
    public var kind: String
    /// How well it matches the text (geocoding).
    public var score: Double?
    /// How far from the point asked about (reverse geocoding).
    public var distanceM: Double?

    /// A place from its fields.
    public init(label: String, position: LatLon, kind: String, score: Double? = nil, distanceM: Double? = nil) {
        self.label = label; self.position = position; self.kind = kind; self.score = score; self.distanceM = distanceM
    }

    enum CodingKeys: String, CodingKey { case label, position, kind, score, distanceM = "distance_m" }
}

/// `GET /v1/geocode`.
public struct PlaceList: Codable, Sendable, Equatable {
    /// Best first.
    public var results: [PlaceAnswer]

    /// A list of `results`.
    public init(results: [PlaceAnswer]) { self.results = results }
}

/// `GET /v1/fares`: the fare chart where a trip starts.
public struct FareChartAnswer: Codable, Sendable, Equatable {
    /// The currency.
    public var currency: String
    /// Per cab type.
    public var rates: [Rate]
    /// The waiting charge.
    public var waiting: Waiting
    /// The discount on a passenger's first ride.
    public var firstRideDiscountPercent: Int64

    /// One cab type's rate, in minor units.
    public struct Rate: Codable, Sendable, Equatable {
        /// The cab type.
        public var cabType: String
        /// The base fare.
        public var base: Int64
        /// Per kilometre.
        public var perKm: Int64

        /// A rate from its fields.
        public init(cabType: String, base: Int64, perKm: Int64) { self.cabType = cabType; self.base = base; self.perKm = perKm }

        enum CodingKeys: String, CodingKey { case cabType = "cab_type", base, perKm = "per_km" }
    }

    /// How waiting is charged.
    public struct Waiting: Codable, Sendable, Equatable {
        /// Minutes free.
        public var freeMinutes: Int64
        /// Minutes per charged block.
        public var blockMinutes: Int64
        /// The charge per block.
        public var perBlock: Int64

        /// Waiting rules from their fields.
        public init(freeMinutes: Int64, blockMinutes: Int64, perBlock: Int64) {
            self.freeMinutes = freeMinutes; self.blockMinutes = blockMinutes; self.perBlock = perBlock
        }

        enum CodingKeys: String, CodingKey { case freeMinutes = "free_minutes", blockMinutes = "block_minutes", perBlock = "per_block" }
    }

    /// A chart from its fields.
    public init(currency: String, rates: [Rate], waiting: Waiting, firstRideDiscountPercent: Int64) {
        self.currency = currency; self.rates = rates; self.waiting = waiting; self.firstRideDiscountPercent = firstRideDiscountPercent
    }

    enum CodingKeys: String, CodingKey { case currency, rates, waiting, firstRideDiscountPercent = "first_ride_discount_percent" }
}

/// `GET /health`.
public struct Health: Codable, Sendable, Equatable {
    /// `ok`.
    public var status: String
    /// `test` on the test-mode gateway (no money moves), else `live`.
    public var payments: String
    /// `test` when registration codes come back in answers, else `live`.
    public var sms: String

    /// Health from its fields.
    public init(payments: String, sms: String) { status = "ok"; self.payments = payments; self.sms = sms }
}

/// `GET /ready`: the store answers; an admin also sees the replica's standing.
public struct Readiness: Codable, Sendable, Equatable {
    /// `ready`.
    public var status: String
    /// The city served.
    public var city: String
    /// Whether this replica owns the city's fleet (admins).
    public var owner: Bool?
    /// The owner's URL (admins).
    public var ownerURL: String?
    /// The lease's fencing token (admins).
    public var leaseToken: Int64?

    /// Readiness from its fields.
    public init(city: String, owner: Bool? = nil, ownerURL: String? = nil, leaseToken: Int64? = nil) {
        status = "ready"; self.city = city; self.owner = owner; self.ownerURL = ownerURL; self.leaseToken = leaseToken
    }

    enum CodingKeys: String, CodingKey { case status, city, owner, ownerURL = "owner_url", leaseToken = "lease_token" }
}

/// What the payment gateway says became of a refill.
public enum GatewayOutcomeName: String, WireChoice {
    /// Charged.
    case approved
    /// Declined.
    case declined
    /// Declined for want of funds.
    case insufficientFunds = "insufficient_funds"
    /// A 3-D Secure step is needed.
    case requiresAction = "requires_action"
    /// No answer from the card's bank.
    case timedOut = "timed_out"
}

/// `POST /v1/payments/callbacks`: the gateway's signed callback.
public struct GatewayCallback: Codable, Sendable, Equatable {
    /// The callback's own id.
    public var id: String
    /// The refill's intent, as the gateway names it.
    public var intent: String
    /// What became of it.
    public var outcome: GatewayOutcomeName
    /// The gateway's charge reference (approved).
    public var reference: String?
    /// Why (declined).
    public var reason: String?
    /// The 3-D Secure challenge (requires_action).
    public var challenge: String?

    /// A callback from its fields.
    public init(id: String, intent: String, outcome: GatewayOutcomeName, reference: String? = nil, reason: String? = nil,
                challenge: String? = nil) {
        self.id = id; self.intent = intent; self.outcome = outcome; self.reference = reference; self.reason = reason
        self.challenge = challenge
    }

    enum CodingKeys: String, WireKey {
        case id, intent, outcome, reference, reason, challenge
        var rule: FieldRule {
            switch self {
            case .id, .reference: .text(maximum: 200)
            case .intent: .text(maximum: 64, minimum: 1)
            case .outcome: .structured
            case .reason: .text(maximum: 500)
            case .challenge: .text(maximum: 2000)
            }
        }
    }
}

/// The answer to a gateway callback.
public struct CallbackAnswer: Codable, Sendable, Equatable {
    /// The intent, as the gateway named it.
    public var intent: String
    /// What the refill is now.
    public var status: RefillStatus

    /// An answer from its fields.
    public init(intent: String, status: RefillStatus) { self.intent = intent; self.status = status }
}
