import Fleet
import Foundation
import GeoJSON

/// The tolls of a city: which OSM toll ways belong to which toll and what each cab type
/// pays there, in minor units.
///
/// A route's toll line is the sum, over the tolls whose ways it drives, of each toll's
/// price for the cab type, each toll charged once per trip however many of its ways the
/// route drives (a toll road is mapped as many ways; its barrier is paid once). A toll way
/// on the route that the list does not name costs nothing and is reported as unpriced, so
/// that the city can complete its list; the fare never guesses a price.
///
/// The file is JSON:
/// `{"currency":"INR","tolls":[{"name":"A8 La Turbie","ways":[101431177,101431181],"prices":{"Sedan":30000},"default":25000}]}`,
/// where `default` (optional) is the price for a cab type missing from `prices`.
public struct TollList: Sendable, Equatable {
    /// One toll: its name, its OSM ways, and its prices.
    public struct Toll: Sendable, Equatable {
        /// The name shown on the invoice.
        public var name: String
        /// The OSM ids of the ways that pay this toll.
        public var ways: [Int64]
        /// The price by cab type name.
        public var prices: [String: Int64]
        /// The price for a type not in `prices`, if any.
        public var defaultPrice: Int64?

        /// A toll.
        public init(name: String, ways: [Int64], prices: [String: Int64], defaultPrice: Int64? = nil) {
            self.name = name; self.ways = ways; self.prices = prices; self.defaultPrice = defaultPrice
        }
    }

    /// What a route pays: the total, the line per toll, and the toll ways no toll names.
    public struct Charge: Sendable, Equatable {
        /// The sum of the lines.
        public var total: Int64
        /// Each toll paid, once, in the order the route reaches it.
        public var lines: [(name: String, amount: Int64)]
        /// Toll ways on the route the list does not price.
        public var unpriced: [Int64]

        /// Equal totals, lines and unpriced ways.
        public static func == (a: Charge, b: Charge) -> Bool {
            a.total == b.total && a.unpriced == b.unpriced && a.lines.map(\.name) == b.lines.map(\.name)
                && a.lines.map(\.amount) == b.lines.map(\.amount)
        }
    }

    /// ISO 4217 code of the prices (must match the fare chart's).
    public let currency: String
    /// The tolls.
    public let tolls: [Toll]
    let tollOfWay: [Int64: Int]

    /// A list from its tolls; a way named by two tolls is refused.
    public init(currency: String, tolls: [Toll]) throws(FareError) {
        self.currency = currency
        self.tolls = tolls
        var index: [Int64: Int] = [:]
        for (k, t) in tolls.enumerated() {
            for w in t.ways {
                guard index[w] == nil else { throw .badChart(place: "tolls[\(k)].ways", reason: "way \(w) is already in toll \"\(tolls[index[w]!].name)\"") }
                index[w] = k
            }
        }
        tollOfWay = index
    }

    /// No tolls: every toll way is unpriced.
    public static func none(currency: String) -> TollList { try! TollList(currency: currency, tolls: []) }

    /// The charge for driving `ways` (a route's `tollWays`) in a cab of `type`.
    /// - Throws: `noRate` when a toll has no price for the type and no default.
    public func charge(for ways: [Int64], type: CabType) throws(FareError) -> Charge {
        var charge = Charge(total: 0, lines: [], unpriced: [])
        var paid = Set<Int>()
        for w in ways {
            guard let k = tollOfWay[w] else { if !charge.unpriced.contains(w) { charge.unpriced.append(w) }; continue }
            guard paid.insert(k).inserted else { continue }
            let toll = tolls[k]
            guard let price = toll.prices[type.name] ?? toll.defaultPrice else {
                throw .noRate(serviceArea: "toll \(toll.name)", cabType: type.name)
            }
            charge.lines.append((toll.name, price))
            charge.total += price  // each ≤ 10^12, and a route passes few tolls
        }
        return charge
    }

    /// Loads a toll file; every field is checked and named in the error.
    public static func load(path: String) throws(FareError) -> TollList {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .badChart(place: path, reason: FileManager.default.fileExists(atPath: path) ? "cannot read" : "no such file")
        }
        let json: JSONValue
        do { json = try JSONParser.parse(data) } catch { throw .badChart(place: path, reason: error.description) }
        func whole(_ v: JSONValue?, _ field: String, max: Double) throws(FareError) -> Int64 {
            guard let n = v?.numberValue, n.rounded() == n, n >= 0, n <= max else {
                throw .badChart(place: "\(path): \(field)", reason: "must be a whole number from 0 to \(Int64(max))")
            }
            return Int64(n)
        }
        guard let currency = json["currency"]?.stringValue, currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw .badChart(place: "\(path): currency", reason: "a three-letter ISO 4217 code is required")
        }
        guard let list = json["tolls"]?.arrayValue else { throw .badChart(place: "\(path): tolls", reason: "a list is required") }
        var tolls: [Toll] = []
        for (i, t) in list.enumerated() {
            let place = "tolls[\(i)]"
            guard let name = t["name"]?.stringValue, !name.isEmpty, name.count <= 100 else {
                throw .badChart(place: "\(path): \(place).name", reason: "a name of 1 to 100 characters is required")
            }
            guard let ways = t["ways"]?.arrayValue, !ways.isEmpty else {
                throw .badChart(place: "\(path): \(place).ways", reason: "a non-empty list of OSM way ids is required")
            }
            var ids: [Int64] = []
            // 2^53: the largest whole number JSON numbers carry exactly.
            for (j, w) in ways.enumerated() { ids.append(try whole(w, "\(place).ways[\(j)]", max: 9_007_199_254_740_992)) }
            guard case let .object(prices)? = t["prices"] else {
                throw .badChart(place: "\(path): \(place).prices", reason: "an object of cab type → price is required")
            }
            var byType: [String: Int64] = [:]
            for (type, v) in prices {
                guard byType[type] == nil else { throw .badChart(place: "\(path): \(place).prices.\(type)", reason: "given twice") }
                byType[type] = try whole(v, "\(place).prices.\(type)", max: Double(FareChart.maximumAmount))
            }
            let fallback = try t["default"].map { v throws(FareError) in try whole(v, "\(place).default", max: Double(FareChart.maximumAmount)) }
            tolls.append(Toll(name: name, ways: ids, prices: byType, defaultPrice: fallback))
        }
        do { return try TollList(currency: currency, tolls: tolls) } catch {
            if case let .badChart(place, reason) = error { throw .badChart(place: "\(path): \(place)", reason: reason) }
            throw error
        }
    }
}
