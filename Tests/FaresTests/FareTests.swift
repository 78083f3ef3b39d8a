import Fares
import Fleet
import Foundation
import Geodesy
import RoadGraph
import Testing
import TestSupport
import ZoneImport
import Zones

@Suite struct FareTests {
    let chart = FareChart(currency: "INR", rates: ["Monaco": ["Sedan": FareRate(base: 5000, perKilometre: 1200),
                                                              "Tata Nano": FareRate(base: 2500, perKilometre: 800)]])

    /// The specification's waiting rule: the first 10 minutes free, then INR 50 for each
    /// started 30 minutes.
    @Test(arguments: [(0, 0), (600, 0), (601, 5000), (2400, 5000), (2401, 10_000), (4200, 10_000), (4201, 15_000)] as [(Int64, Int64)])
    func waitingIsChargedPerStartedHalfHourAfterTenFreeMinutes(seconds: Int64, charge: Int64) throws {
        let f = try chart.fare(TripMeasure(metres: 0, waitingSeconds: seconds), at: FareRate(base: 0, perKilometre: 0))
        #expect(f.waiting == charge && f.total == charge)
    }

    /// The distance charge against Decimal arithmetic rounding half up (an oracle that shares
    /// no code with the fare), over seeded random rates and distances.
    @Test func distanceIsProratedToTheMetreAndRoundedHalfUp() throws {
        var rng = SeededRandom(seed: 17)
        for _ in 0..<5000 {
            let perKm = Int64.random(in: 0...100_000, using: &rng), metres = Int64.random(in: 0...200_000, using: &rng)
            var exact = Decimal(perKm) * Decimal(metres) / 1000, rounded = Decimal()
            NSDecimalRound(&rounded, &exact, 0, .plain)
            let f = try chart.fare(TripMeasure(metres: metres), at: FareRate(base: 0, perKilometre: perKm))
            #expect(Decimal(f.distance) == rounded, "\(perKm) × \(metres) m")
        }
        #expect(try chart.fare(TripMeasure(metres: 1), at: FareRate(base: 0, perKilometre: 1500)).distance == 2)  // 1.5 → 2
        #expect(try chart.fare(TripMeasure(metres: 1), at: FareRate(base: 0, perKilometre: 1499)).distance == 1)
    }

    @Test func theFirstRidePromotionTakesTenPercentOffAllButTolls() throws {
        let rate = FareRate(base: 5000, perKilometre: 1200)
        let trip = TripMeasure(metres: 6_123, waitingSeconds: 700, tolls: 3000)
        let f = try chart.fare(trip, at: rate, firstRide: true)
        // 5000 + 7347.6 → 7348 + 5000 = 17348; 10 % = 1734.8 → 1735.
        #expect(f.base == 5000 && f.distance == 7348 && f.waiting == 5000 && f.tolls == 3000 && f.discount == 1735)
        #expect(f.total == 17348 + 3000 - 1735)
        #expect(try chart.fare(trip, at: rate).discount == 0)
        #expect(chart.format(f.total) == "INR 186.13")
        #expect(chart.format(5) == "INR 0.05" && chart.format(-120) == "INR -1.20")
        #expect(FareChart(currency: "JPY", minorUnits: 1, rates: [:]).format(1500) == "JPY 1500")
    }

    @Test func theChartOfAPointComesFromItsServiceAreaAndOutsideIsTheSpecificationsError() throws {
        let data = SharedData.projectRoot.appendingPathComponent("Data/monaco")
        let (zones, _) = try ZoneImporter.load(zonesAt: data.appendingPathComponent("wards.geojson").path,
                                               serviceAreasAt: data.appendingPathComponent("communes.geojson").path)
        let casino = Coordinate(unchecked: 43.7393, 7.4277), nice = Coordinate(unchecked: 43.7102, 7.2620)
        #expect(try chart.chart(at: casino, in: zones).count == 2)
        #expect(try chart.rate(at: casino, in: zones, type: .sedan) == FareRate(base: 5000, perKilometre: 1200))
        #expect(throws: FareError.noRate(serviceArea: "Monaco", cabType: "Hatchback")) { try chart.rate(at: casino, in: zones, type: .hatchback) }
        #expect(throws: FareError.outOfServiceArea(nice)) { try chart.chart(at: nice, in: zones) }
        #expect(FareError.outOfServiceArea(nice).description.hasSuffix("is out of bounds of any service area"))
        // The estimate: the rate where the pickup is, over the fastest route's metres.
        let graph = try RoadNetwork.importOSM(path: data.appendingPathComponent("monaco.osm.pbf").path).0
        let router = Router(network: graph)
        let palace = Coordinate(unchecked: 43.7314, 7.4197)
        let (fare, route, _) = try chart.estimate(from: casino, to: palace, type: .sedan, in: zones, router: router)
        let metres = Int64(route.distanceMetres.rounded())
        #expect(fare.total == 5000 + (1200 * metres + 500) / 1000 && metres > 1000)
        #expect(throws: FareError.outOfServiceArea(nice)) { try chart.estimate(from: nice, to: palace, type: .sedan, in: zones, router: router) }
    }

    @Test func hugeOrNegativeTripsAreErrorsNotTraps() throws {
        let top = FareRate(base: FareChart.maximumAmount, perKilometre: FareChart.maximumAmount)
        #expect(throws: FareError.overflow) { try chart.fare(TripMeasure(metres: 1_000_000_000), at: top) }
        #expect(throws: FareError.badTrip(field: "metres", value: -1)) { try chart.fare(TripMeasure(metres: -1), at: top) }
        #expect(throws: FareError.badTrip(field: "waiting_seconds", value: .max)) {
            try chart.fare(TripMeasure(metres: 0, waitingSeconds: .max), at: top)
        }
        #expect(throws: FareError.badTrip(field: "tolls", value: .min)) { try chart.fare(TripMeasure(metres: 0, tolls: .min), at: top) }
        let full = try FareChart(currency: "INR", rates: [:], waitingBlockCharge: FareChart.maximumAmount, firstRideDiscountPercent: 100)
            .fare(TripMeasure(metres: 0, waitingSeconds: 100_000_000, tolls: FareChart.maximumAmount), at: top, firstRide: true)
        #expect(full.total == FareChart.maximumAmount)  // everything but the tolls discounted away
    }

    @Test func chartFilesAreCheckedFieldByField() throws {
        let folder = TemporaryFolder()
        let good = #"{"currency":"INR","minor_units":100,"rates":[{"service_area":"Monaco","cab_type":"Sedan","base":5000,"per_km":1200}],"waiting":{"free_minutes":10,"block_minutes":30,"per_block":5000},"first_ride_discount_percent":10}"#
        try good.write(toFile: folder.path("fares.json"), atomically: true, encoding: .utf8)
        let loaded = try FareChart.load(path: folder.path("fares.json"))
        #expect(loaded == FareChart(currency: "INR", rates: ["Monaco": ["Sedan": FareRate(base: 5000, perKilometre: 1200)]]))
        let cases: [(String, String)] = [
            ("{", "line 1"),
            (#"{"rates":[]}"#, "currency"),
            (#"{"currency":"INR","rates":[]}"#, "rates"),
            (#"{"currency":"INR","rates":[{"service_area":"M","cab_type":"Sedan","base":50.5,"per_km":1}]}"#, "rates[0].base"),
            (#"{"currency":"INR","rates":[{"service_area":"M","cab_type":"Sedan","base":-1,"per_km":1}]}"#, "rates[0].base"),
            (#"{"currency":"INR","rates":[{"service_area":"M","cab_type":"Sedan","base":1,"per_km":1e300}]}"#, "rates[0].per_km"),
            (#"{"currency":"INR","rates":[{"service_area":"M","base":1,"per_km":1}]}"#, "rates[0].cab_type"),
            (#"{"currency":"INR","rates":[{"service_area":"M","cab_type":"S","base":1,"per_km":1},{"service_area":"M","cab_type":"S","base":2,"per_km":1}]}"#, "rates[1]"),
            (#"{"currency":"INR","rates":[{"service_area":"M","cab_type":"S","base":1,"per_km":1}],"waiting":{"block_minutes":0}}"#, "waiting.block_minutes"),
            (#"{"currency":"INR","rates":[{"service_area":"M","cab_type":"S","base":1,"per_km":1}],"first_ride_discount_percent":101}"#, "first_ride_discount_percent"),
        ]
        for (i, (text, field)) in cases.enumerated() {
            let path = folder.path("bad\(i).json")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            #expect { try FareChart.load(path: path) } throws: { ($0 as? FareError)?.description.contains(field) == true }
        }
        #expect(throws: FareError.badChart(place: folder.path("none.json"), reason: "no such file")) { try FareChart.load(path: folder.path("none.json")) }
    }
}
