import Benchmark
import CityModel
import Fares
import Fleet
import Foundation
import Geodesy
import RoadGraph
import SQLiteStorage
import Services
import Storage
import TaxiDispatch
import ZoneImport
import Zones

// A whole trip through the services, as a backend calls them: book now (stored, estimate
// held, dispatched), the offered driver accepts, arrives, starts and completes (fare
// settled, commission and payout posted): five SQLite transactions with an fsync each and a
// dispatch decision. The baseline in the same process is one SQLite write transaction that
// inserts one row, the floor of any stored change. Monaco, 16 cabs that report once and a
// virtual clock that stands still, so cabs never go stale and no timer fires.

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
private let monacoData = root.appendingPathComponent("Data/monaco")

/// The services on a fresh SQLite file, made on first use. `@unchecked Sendable`: ordo-one
/// runs one benchmark's samples one after another, and each benchmark in its own process.
private final class Rig: @unchecked Sendable {
    var made: (bookings: Bookings, store: any SQLStore, passengers: [Int64], trips: [(Coordinate, Coordinate)])?
    let offers = Offers()
    var next = 0

    func value() async throws -> (bookings: Bookings, store: any SQLStore, passengers: [Int64], trips: [(Coordinate, Coordinate)]) {
        if let made { return made }
        let zones = try ZoneImporter.load(zonesAt: monacoData.appendingPathComponent("wards.geojson").path,
                                          serviceAreasAt: monacoData.appendingPathComponent("communes.geojson").path).0
        let network = try RoadNetwork.importOSM(path: monacoData.appendingPathComponent("monaco.osm.pbf").path).0
        let city = City(zones: zones, network: network, fares: try FareChart.load(path: monacoData.appendingPathComponent("fares.json").path))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wayfare-bench-bookings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try SQLiteStore(path: folder.appendingPathComponent("bench.sqlite").path)
        try store.migrate(ServiceSchema.migrations)
        try store.blockingWrite { c in try c.execute("CREATE TABLE bench_baseline (id INTEGER PRIMARY KEY, v BIGINT NOT NULL)") }
        let clock = VirtualScheduler(start: Date(timeIntervalSince1970: 1_790_000_000))
        // Real scrypt (the fast test hasher is the package's own): setup takes ~10 s.
        let accounts = Accounts(store: store, notifier: RecordingNotifier(), clock: clock)
        let wallet = Wallet(store: store, gateway: TestModeGateway(), clock: clock)
        let offers = self.offers
        let bookings = try Bookings(store: store, city: city, scheduler: clock, offers: { o in offers.put(o) })
        var rng = SeededRandom(seed: 1)
        let places = (0..<network.nodeCount).map { network.coordinate(ofNode: $0) }.filter { zones.zoneIndex(longitude: $0.longitude, latitude: $0.latitude) >= 0 }
        func place() -> Coordinate { places[Int.random(in: 0..<places.count, using: &rng)] }
        let password = "Bench!admin-2026"
        _ = try await accounts.createAdmin(Registration(name: "Admin", mobile: "9000000000", email: "admin@bench.example",
                                                        password: password, confirmation: password), adminSession: nil)
        let admin = try await accounts.logIn(mobile: "9000000000", password: password).token
        for k in 0..<16 {
            let d = try await accounts.createDriver(Registration(name: "Driver \(k)", mobile: String(format: "97%08d", k), email: "d\(k)@bench.example",
                                                                 password: "steady wheels \(k)", confirmation: "steady wheels \(k)"), adminSession: admin).id
            try await bookings.startShift(driver: d, cab: CabProfile(id: "cab\(k)", type: .sedan, seats: 4))
            try bookings.report(driver: d, position: place(), at: clock.now())
            try bookings.setAvailable(driver: d, true)
        }
        var passengers: [Int64] = []
        for k in 0..<8 {
            let p = try await accounts.register(Registration(name: "Passenger \(k)", mobile: String(format: "98%08d", k), email: "p\(k)@bench.example",
                                                             password: "correct horse \(k)", confirmation: "correct horse \(k)")).id
            _ = try await wallet.refill(passenger: p, amount: 5_000_000, paymentToken: "tok_visa", key: .random())
            passengers.append(p)
        }
        let trips = (0..<1000).map { _ in
            var (a, b) = (place(), place())
            while a.distance(to: b) < 500 { b = place() }
            return (a, b)
        }
        made = (bookings, store, passengers, trips)
        return made!
    }

    /// One whole trip, by the next passenger in turn.
    func trip() async throws {
        let (bookings, _, passengers, trips) = try await value()
        let k = next
        next += 1
        let passenger = passengers[k % passengers.count], (from, to) = trips[k % trips.count]
        let b = try await bookings.bookNow(BookingRequest(passenger: passenger, pickup: from, destination: to, cabType: .sedan), key: .random())
        guard let offer = offers.take(b.number) else {
            _ = try await bookings.cancel(b.number, for: passenger, key: .random())
            return
        }
        try await bookings.answer(offer: offer.id, driver: offer.driver, accept: true)
        try await bookings.arrived(b.number, driver: offer.driver)
        try await bookings.started(b.number, driver: offer.driver)
        _ = try await bookings.complete(b.number, driver: offer.driver, trip: TripReport(metres: Int64(from.distance(to: to) * 1.3)), key: .random())
    }
}

/// The offers the dispatcher made, by booking, behind a lock (they arrive on the store's
/// worker threads).
private final class Offers: @unchecked Sendable {
    private let lock = NSLock()
    private var byBooking: [Int: DriverOffer] = [:]
    func put(_ offer: DriverOffer) { lock.withLock { byBooking[offer.booking] = offer } }
    func take(_ booking: Int) -> DriverOffer? { lock.withLock { byBooking.removeValue(forKey: booking) } }
}

private func configuration() -> Benchmark.Configuration {
    Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
                                                    warmupIterations: 20, maxDuration: .seconds(10), maxIterations: 2_000)
}

let benchmarks: @Sendable () -> Void = {
    let trips = Rig()
    Benchmark("Bookings: whole trip (book, allocate, arrive, start, complete and pay), SQLite", configuration: configuration()) { benchmark async throws in
        _ = try await trips.value()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { try await trips.trip() }
    }
    let baseline = Rig()
    Benchmark("Baseline: one SQLite write transaction inserting one row", configuration: configuration()) { benchmark async throws in
        let store = try await baseline.value().store
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            baseline.next += 1
            let v = Int64(baseline.next)
            try await store.write { c in try c.execute("INSERT INTO bench_baseline (v) VALUES (?)", [.integer(v)]) }
        }
    }
}
