import Fleet
import Foundation
import GeoJSON
import Geodesy
import RoadGraph
import Zones

/// Why a fare chart cannot be loaded or a fare given.
public enum FareError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The chart file is missing, not JSON, or a field is wrong: the place and the reason.
    case badChart(place: String, reason: String)
    /// The point is outside every service area (the specification's words).
    case outOfServiceArea(Coordinate)
    /// The service area has no rate for this cab type.
    case noRate(serviceArea: String, cabType: String)
    /// A trip measure is negative or absurd (the field and the value).
    case badTrip(field: String, value: Int64)
    /// An amount would not fit in 64 bits of minor units.
    case overflow
    /// No route for the estimate (the routing error's line).
    case noRoute(String)

    /// The error in one line.
    public var description: String {
        switch self {
        case let .badChart(place, reason): "\(place): \(reason)"
        case let .outOfServiceArea(c): ZoneError.outOfServiceArea(c).description
        case let .noRate(area, type): "service area \"\(area)\" has no fare for cab type \"\(type)\""
        case let .badTrip(field, value): "\(field) must be between 0 and its limit, not \(value)"
        case .overflow: "the amount does not fit in 64-bit minor units"
        case let .noRoute(why): "no fare estimate: \(why)"
        }
    }
}

/// One cab type's tariff in one service area, in minor units (paise for INR).
public struct FareRate: Sendable, Equatable {
    /// Charged once per trip.
    public let base: Int64
    /// Charged per kilometre driven (prorated to the metre, see `FareChart`).
    public let perKilometre: Int64
    /// A rate.
    public init(base: Int64, perKilometre: Int64) { self.base = base; self.perKilometre = perKilometre }
}

/// What a finished trip measured, for its final fare.
public struct TripMeasure: Sendable, Equatable {
    /// Metres driven with the passenger.
    public var metres: Int64
    /// Seconds the cab waited for the passenger (at the pickup and on the way).
    public var waitingSeconds: Int64
    /// Tolls paid on the route, in minor units, passed on as they are.
    public var tolls: Int64
    /// A measure.
    public init(metres: Int64, waitingSeconds: Int64 = 0, tolls: Int64 = 0) {
        self.metres = metres; self.waitingSeconds = waitingSeconds; self.tolls = tolls
    }
}

/// A fare, line by line, in minor units. `total = base + distance + waiting + tolls - discount`.
public struct FareBreakdown: Sendable, Equatable {
    /// The rate's base fare.
    public var base: Int64
    /// The distance charge.
    public var distance: Int64
    /// The waiting charge.
    public var waiting: Int64
    /// Tolls, passed on.
    public var tolls: Int64
    /// The promotion taken off (first ride).
    public var discount: Int64
    /// What the passenger pays.
    public var total: Int64
}

/// The fares of a city: a rate per service area and cab type, the waiting rule and the
/// first-ride promotion, all in integer minor units (never floating point).
///
/// Rounding, written down once:
/// - **Distance**: `perKilometre × metres / 1000`, rounded half up to the minor unit
///   (1.5 paise is 2). Metres are whole metres.
/// - **Waiting**: the first `freeWaitingMinutes` are free; after them each *started* block of
///   `waitingBlockMinutes` costs `waitingBlockCharge` (the taximeter rule: a started unit is
///   charged in full). With the specification's numbers: 10 free minutes, then INR 50 per
///   started 30 minutes, so 10:00 costs nothing, 10:01 costs INR 50 and 40:01 INR 100.
/// - **First ride**: `firstRideDiscountPercent` of base + distance + waiting (tolls are
///   passed on undiscounted), rounded half up in the passenger's favour.
///
/// The file is JSON:
/// `{"currency":"INR","minor_units":100,"rates":[{"service_area":"…","cab_type":"Sedan","base":5000,"per_km":1200},…],
///   "waiting":{"free_minutes":10,"block_minutes":30,"per_block":5000},"first_ride_discount_percent":10}`.
/// A service area is named by its id or its name in the zone file.
public struct FareChart: Sendable, Equatable {
    /// ISO 4217 code of the amounts.
    public let currency: String
    /// Minor units per major unit (100 paise to the rupee).
    public let minorUnits: Int64
    /// Rates by service area (id or name, as given) and cab type name.
    public let rates: [String: [String: FareRate]]
    /// Free waiting, in minutes.
    public let freeWaitingMinutes: Int64
    /// The waiting block, in minutes.
    public let waitingBlockMinutes: Int64
    /// The charge per started waiting block.
    public let waitingBlockCharge: Int64
    /// The first-ride promotion, in percent.
    public let firstRideDiscountPercent: Int64

    /// A chart from its parts (the specification's waiting rule and promotion by default).
    public init(currency: String, minorUnits: Int64 = 100, rates: [String: [String: FareRate]],
                freeWaitingMinutes: Int64 = 10, waitingBlockMinutes: Int64 = 30, waitingBlockCharge: Int64 = 5000,
                firstRideDiscountPercent: Int64 = 10) {
        self.currency = currency; self.minorUnits = minorUnits; self.rates = rates
        self.freeWaitingMinutes = freeWaitingMinutes; self.waitingBlockMinutes = waitingBlockMinutes
        self.waitingBlockCharge = waitingBlockCharge; self.firstRideDiscountPercent = firstRideDiscountPercent
    }

    /// The largest amount a chart may hold: 10^12 minor units (ten billion rupees), so
    /// every sum and product below stays far inside 64 bits.
    public static let maximumAmount: Int64 = 1_000_000_000_000

    /// Loads a chart file; every field is checked and named in the error.
    public static func load(path: String) throws(FareError) -> FareChart {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .badChart(place: path, reason: FileManager.default.fileExists(atPath: path) ? "cannot read" : "no such file")
        }
        let json: JSONValue
        do { json = try JSONParser.parse(data) } catch { throw .badChart(place: path, reason: error.description) }
        func amount(_ v: JSONValue?, _ field: String, max: Int64 = maximumAmount) throws(FareError) -> Int64 {
            guard let n = v?.numberValue else { throw .badChart(place: "\(path): \(field)", reason: "a whole number is required") }
            guard n.rounded() == n, n >= 0, n <= Double(max) else {
                throw .badChart(place: "\(path): \(field)", reason: "must be a whole number from 0 to \(max), not \(n)")
            }
            return Int64(n)
        }
        guard let currency = json["currency"]?.stringValue, currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw .badChart(place: "\(path): currency", reason: "a three-letter ISO 4217 code is required")
        }
        let minor = try amount(json["minor_units"] ?? .number(100), "minor_units", max: 10_000)
        guard minor >= 1 else { throw .badChart(place: "\(path): minor_units", reason: "must be at least 1") }
        guard let list = json["rates"]?.arrayValue, !list.isEmpty else {
            throw .badChart(place: "\(path): rates", reason: "a non-empty list is required")
        }
        var rates: [String: [String: FareRate]] = [:]
        for (i, r) in list.enumerated() {
            let place = "rates[\(i)]"
            guard let area = r["service_area"]?.stringValue, !area.isEmpty else {
                throw .badChart(place: "\(path): \(place).service_area", reason: "a service area id or name is required")
            }
            guard let type = r["cab_type"]?.stringValue, !type.isEmpty else {
                throw .badChart(place: "\(path): \(place).cab_type", reason: "a cab type is required")
            }
            guard rates[area]?[type] == nil else {
                throw .badChart(place: "\(path): \(place)", reason: "a second rate for \(area) / \(type)")
            }
            rates[area, default: [:]][type] = FareRate(base: try amount(r["base"], "\(place).base"),
                                                       perKilometre: try amount(r["per_km"], "\(place).per_km"))
        }
        let w = json["waiting"] ?? .object([])
        let free = try amount(w["free_minutes"] ?? .number(10), "waiting.free_minutes", max: 1440)
        let block = try amount(w["block_minutes"] ?? .number(30), "waiting.block_minutes", max: 1440)
        guard block >= 1 else { throw .badChart(place: "\(path): waiting.block_minutes", reason: "must be at least 1") }
        let perBlock = try amount(w["per_block"] ?? .number(5000), "waiting.per_block")
        let discount = try amount(json["first_ride_discount_percent"] ?? .number(10), "first_ride_discount_percent", max: 100)
        return FareChart(currency: currency, minorUnits: minor, rates: rates, freeWaitingMinutes: free,
                         waitingBlockMinutes: block, waitingBlockCharge: perBlock, firstRideDiscountPercent: discount)
    }

    /// The fare chart where `point` is: the rates of its service area by cab type name.
    /// Outside every service area: "present location is out of bounds of any service area".
    public func chart(at point: Coordinate, in zones: ZoneSet) throws(FareError) -> [String: FareRate] {
        let area: ServiceArea
        do { area = try zones.serviceArea(containing: point) } catch { throw .outOfServiceArea(point) }
        return rates[area.id] ?? rates[area.name] ?? [:]
    }

    /// Every cab type the chart prices in some service area, by name.
    public var cabTypes: [CabType] {
        rates.values.reduce(into: Set<String>()) { $0.formUnion($1.keys) }.sorted().map(CabType.init)
    }

    /// The cab type a price is quoted for when none is asked: Sedan when the chart has it,
    /// else the first by name (nil for an empty chart).
    public var defaultCabType: CabType? {
        let types = cabTypes
        return types.contains(.sedan) ? .sedan : types.first
    }

    /// The rate of `type` where `point` is.
    public func rate(at point: Coordinate, in zones: ZoneSet, type: CabType) throws(FareError) -> FareRate {
        let here = try chart(at: point, in: zones)
        guard let rate = here[type.name] else {
            let area = (try? zones.serviceArea(containing: point)).map(\.name) ?? "?"
            throw .noRate(serviceArea: area, cabType: type.name)
        }
        return rate
    }

    /// The fare of a trip at `rate`, with the promotion when it is the passenger's first.
    public func fare(_ trip: TripMeasure, at rate: FareRate, firstRide: Bool = false) throws(FareError) -> FareBreakdown {
        // 10^9 m (a million km) and 10^8 s (three years) bound any real trip and keep every
        // product below 2^63 with amounts up to 10^12.
        guard (0...1_000_000_000).contains(trip.metres) else { throw .badTrip(field: "metres", value: trip.metres) }
        guard (0...100_000_000).contains(trip.waitingSeconds) else { throw .badTrip(field: "waiting_seconds", value: trip.waitingSeconds) }
        guard (0...Self.maximumAmount).contains(trip.tolls) else { throw .badTrip(field: "tolls", value: trip.tolls) }
        // Every step checked: a chart's amounts are bounded, but a trip's are products.
        func times(_ a: Int64, _ b: Int64) throws(FareError) -> Int64 {
            let (r, o) = a.multipliedReportingOverflow(by: b)
            if o { throw .overflow }
            return r
        }
        func plus(_ a: Int64, _ b: Int64) throws(FareError) -> Int64 {
            let (r, o) = a.addingReportingOverflow(b)
            if o { throw .overflow }
            return r
        }
        let distance = try plus(try times(rate.perKilometre, trip.metres), 500) / 1000
        let beyond = trip.waitingSeconds - freeWaitingMinutes * 60
        let blocks = beyond <= 0 ? 0 : (beyond + waitingBlockMinutes * 60 - 1) / (waitingBlockMinutes * 60)
        let waiting = try times(blocks, waitingBlockCharge)
        let charged = try plus(try plus(rate.base, distance), waiting)
        let discount = firstRide ? try plus(try times(charged, firstRideDiscountPercent), 50) / 100 : 0
        return FareBreakdown(base: rate.base, distance: distance, waiting: waiting, tolls: trip.tolls, discount: discount,
                             total: try plus(charged, trip.tolls) - discount)
    }

    /// An amount as text: `INR 123.45`.
    public func format(_ minor: Int64) -> String {
        let digits = String(minorUnits - 1).count
        let sign = minor < 0 ? "-" : "", m = minor.magnitude, unit = UInt64(minorUnits)
        guard minorUnits > 1 else { return "\(currency) \(sign)\(m)" }
        let fraction = String(m % unit)
        return "\(currency) \(sign)\(m / unit).\(String(repeating: "0", count: max(0, digits - fraction.count)))\(fraction)"
    }
}

extension FareChart {
    /// The fare estimate before booking: the rate where the pickup is, over the fastest
    /// route's length rounded to the metre, with the tolls that route drives (priced by
    /// `tolls`) and no waiting. Returns the breakdown, the route it was priced on, and the
    /// toll charge line by line.
    public func estimate(from pickup: Coordinate, to destination: Coordinate, type: CabType, in zones: ZoneSet,
                         router: Router, tolls: TollList? = nil,
                         firstRide: Bool = false) throws(FareError) -> (fare: FareBreakdown, route: Route, tolls: TollList.Charge) {
        let rate = try rate(at: pickup, in: zones, type: type)
        let route: Route
        do { route = try router.route(from: pickup, to: destination) } catch {
            throw .noRoute(error.description)
        }
        let (fare, charge) = try estimate(on: route, at: rate, type: type, tolls: tolls, firstRide: firstRide)
        return (fare, route, charge)
    }

    /// The fare estimate on a route already chosen (one of the alternatives a passenger
    /// picks from), at `rate`: its length rounded to the metre, its tolls, no waiting.
    public func estimate(on route: Route, at rate: FareRate, type: CabType, tolls: TollList? = nil,
                         firstRide: Bool = false) throws(FareError) -> (fare: FareBreakdown, tolls: TollList.Charge) {
        let metres = Int64(route.distanceMetres.rounded())
        let charge = try (tolls ?? .none(currency: currency)).charge(for: route.tollWays, type: type)
        return (try fare(TripMeasure(metres: metres, tolls: charge.total), at: rate, firstRide: firstRide), charge)
    }
}
