import ArgumentParser
import CityModel
import Essentials
import Fares
import Fleet
import Foundation
import Geodesy
import PostgresStorage
import RoadGraph
import Services
import Storage
import TaxiDispatch
import Zones

/// `wayfare bench bookings`: whole trips through the services, as a backend makes them.
///
/// Each worker books now for one of its passengers, the offered driver accepts, arrives,
/// starts and completes the trip, and the fare is settled from the wallet: five
/// transactions and a dispatch decision per booking, timed end to end. The dispatcher runs
/// on a virtual clock that stands still, so cab reports never go stale and no timer fires:
/// the figure is the services' and the store's throughput, not a simulated city's.
struct BenchBookings: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bookings",
        abstract: "Bookings end to end through the services (book, allocate, arrive, start, complete, pay); one JSON line.")

    @Option(help: "sqlite:PATH, or a postgres:// URL (a scratch database is made on that server and dropped). Default: a temporary SQLite file.")
    var store: String?
    @Option(name: .customLong("store-password-file"), help: "A file whose first line is the PostgreSQL password (else WAYFARE_STORE_PASSWORD; never in --store).")
    var storePasswordFile: String?
    @Option(help: "Bookings to make (timed).") var bookings = 400
    @Option(help: "Workers booking at once.") var concurrency = 8
    @Option(help: "Cabs on shift.") var cabs = 64
    @Option(help: "Seed of the trips.") var seed: UInt64 = 1
    @Option(help: "Graph file (with --zones); default: Monaco from Data/.") var graph: String?
    @Option(help: "Zones GeoJSON (with --graph).") var zones: String?

    func run() throws { try runBlocking { try await measure() } }

    func measure() async throws {
        guard (1...1_000_000).contains(bookings) else { throw CLIError("--bookings must be between 1 and 1000000") }
        guard (1...256).contains(concurrency) else { throw CLIError("--concurrency must be between 1 and 256") }
        guard (1...100_000).contains(cabs), cabs >= concurrency else { throw CLIError("--cabs must be at least --concurrency and at most 100000") }
        let (zoneSet, network) = try SimulateCommand.loadCity(graph: graph, zones: zones)
        let fares = FareChart(currency: "INR", rates: Dictionary(uniqueKeysWithValues: zoneSet.serviceAreas.map {
            ($0.id, ["Sedan": FareRate(base: 5000, perKilometre: 1200)])
        }))
        let city = City(zones: zoneSet, network: network, fares: fares)
        let scratch = try ScratchStore(store, passwordFile: storePasswordFile)
        defer { scratch.drop() }
        let store = try scratch.address.open(connections: concurrency + 2)
        defer { store.close() }
        do { try store.migrate(ServiceSchema.migrations) } catch { throw CLIError("--store: \(error)") }

        let clock = VirtualScheduler(start: Date(timeIntervalSince1970: 1_790_000_000))
        let phones = PhoneInbox()  // the bench passengers' phones: where their codes arrive
        let accounts = Accounts(store: store, notifier: phones, clock: clock, settings: AccountSettings(), hasher: .fastForTests)
        let wallet = Wallet(store: store, gateway: TestModeGateway(), clock: clock)
        let offers = Locked<[Int: DriverOffer]>([:])
        let service = try Bookings(store: store, city: city, scheduler: clock, offers: { o in offers.withLock { $0[o.booking] = o } })

        // Places: junctions in a served zone, the trip's ends at least 500 m apart.
        var rng = SeededRandom(seed: seed)
        let places = (0..<network.nodeCount).map { network.coordinate(ofNode: $0) }.filter { zoneSet.isServed($0) }
        guard places.count > 10 else { throw CLIError("the city has too few junctions in its service areas") }
        func place() -> Coordinate { places[Int.random(in: 0..<places.count, using: &rng)] }

        // Setup, untimed: an admin, the drivers on shift, the passengers with money.
        let adminPassword = "Bench!admin-2026"
        _ = try await accounts.createAdmin(Registration(name: "Admin", mobile: "9000000000", email: "admin@bench.example",
                                                        password: adminPassword, confirmation: adminPassword), adminSession: nil)
        let admin = try await accounts.logIn(mobile: "9000000000", password: adminPassword).token
        for k in 0..<cabs {
            let d = try await accounts.createDriver(Registration(name: "Driver \(k)", mobile: String(format: "97%08d", k), email: "d\(k)@bench.example",
                                                                 password: "steady wheels \(k)", confirmation: "steady wheels \(k)"), adminSession: admin).id
            try await service.startShift(driver: d, cab: CabProfile(id: "cab\(k)", type: .sedan, seats: 4))
            try service.report(driver: d, position: place(), at: clock.now())
            try service.setAvailable(driver: d, true)
        }
        let perWorker = 4
        var passengers: [Int64] = []
        for k in 0..<(concurrency * perWorker) {
            let receipt = try await accounts.register(Registration(name: "Passenger \(k)", mobile: String(format: "98%08d", k), email: "p\(k)@bench.example",
                                                                   password: "correct horse \(k)", confirmation: "correct horse \(k)"))
            let p = try await accounts.verify(mobile: receipt.mobile, code: phones.code(for: receipt.mobile) ?? "").id
            _ = try await wallet.refill(passenger: p, amount: 5_000_000, paymentToken: "tok_visa", key: .random())
            passengers.append(p)
        }
        let trips = (0..<bookings).map { _ in
            var (a, b) = (place(), place())
            while a.distance(to: b) < 500 { b = place() }
            return (a, b)
        }

        // Timed: every booking's whole trip.
        struct Timing: Sendable { var total: Double; var book: Double; var served: Bool }
        let workers = concurrency, planned = trips, riders = passengers
        let started = DispatchTime.now().uptimeNanoseconds
        let timings: [Timing] = try await withThrowingTaskGroup(of: [Timing].self) { group in
            for w in 0..<workers {
                group.addTask {
                    var out: [Timing] = []
                    var j = 0
                    for i in stride(from: w, to: planned.count, by: workers) {
                        let passenger = riders[w * perWorker + j % perWorker]
                        j += 1
                        let t0 = DispatchTime.now().uptimeNanoseconds
                        let b = try await service.bookNow(BookingRequest(passenger: passenger, pickup: planned[i].0, destination: planned[i].1,
                                                                         cabType: .sedan), key: .random())
                        let t1 = DispatchTime.now().uptimeNanoseconds
                        guard let offer = offers.withLock({ $0.removeValue(forKey: b.number) }) else {
                            _ = try await service.cancel(b.number, for: passenger, key: .random())
                            out.append(Timing(total: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6, book: Double(t1 - t0) / 1e6, served: false))
                            continue
                        }
                        try await service.answer(offer: offer.id, driver: offer.driver, accept: true)
                        try await service.arrived(b.number, driver: offer.driver)
                        try await service.started(b.number, driver: offer.driver)
                        _ = try await service.complete(b.number, driver: offer.driver,
                                                       trip: TripReport(metres: Int64(planned[i].0.distance(to: planned[i].1) * 1.3)), key: .random())
                        out.append(Timing(total: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6, book: Double(t1 - t0) / 1e6, served: true))
                    }
                    return out
                }
            }
            var all: [Timing] = []
            for try await part in group { all += part }
            return all
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let audit = try LedgerAudit.run(on: store)
        let served = timings.filter(\.served)
        let (p50, p99) = percentiles(timings.map(\.total))
        let (bookP50, bookP99) = percentiles(timings.map(\.book))
        let within5s = Double(timings.filter { $0.total <= 5000 }.count) / Double(timings.count) * 100
        func r(_ x: Double) -> String { String(format: "%.3f", x) }
        print("""
            {"store":"\(scratch.address.engine)","bookings":\(timings.count),"served":\(served.count),"concurrency":\(workers),\
            "cabs":\(cabs),"seconds":\(r(wall)),"bookings_per_second":\(r(Double(timings.count) / wall)),\
            "trip_p50_ms":\(r(p50)),"trip_p99_ms":\(r(p99)),"book_p50_ms":\(r(bookP50)),"book_p99_ms":\(r(bookP99)),\
            "within_5s_percent":\(r(within5s)),"ledger_sound":\(audit.isSound)}
            """)
        guard audit.isSound else { throw CLIError("the ledger audit failed: \(audit)") }
    }
}

/// Runs async work from a synchronous command on the main thread, which is not one of the
/// cooperative pool's threads, so waiting here starves no task.
func runBlocking(_ work: @escaping @Sendable () async throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let outcome = Locked<Result<Void, any Error>>(.success(()))
    Task {
        do { try await work() } catch { outcome.withLock { $0 = .failure(error) } }
        done.signal()
    }
    done.wait()
    try outcome.withLock { $0 }.get()
}

/// Notifications are left in the outbox (the bench measures the services, not a sender).
struct DiscardingNotifier: Notifier {
    func send(_ notification: OutgoingNotification) async throws {}
}

/// The bench's store: a temporary SQLite file, the SQLite file given, or a scratch database
/// on the PostgreSQL server given, dropped afterwards.
struct ScratchStore {
    let address: StoreAddress
    let drop: () -> Void

    init(_ option: String?, passwordFile: String?) throws {
        guard let option else {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wayfare-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            address = .sqlite(path: dir.appendingPathComponent("bench.sqlite").path)
            drop = { try? FileManager.default.removeItem(at: dir) }
            return
        }
        let given = try StoreAddress(parsing: option, passwordFile: passwordFile)
        guard case let .postgres(url, password) = given else {
            if case let .sqlite(path) = given, FileManager.default.fileExists(atPath: path) {
                throw CLIError("\(path): exists; the bench needs a new SQLite file")
            }
            address = given
            drop = {}
            return
        }
        guard var components = URLComponents(string: url) else { throw CLIError("--store: not a URL") }
        let name = "wf_bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let admin: PostgresStore
        do {
            admin = try PostgresStore(url: url, password: password, maxConnections: 1)
            try admin.executeOutsideTransaction("CREATE DATABASE \(name)")
        } catch { throw CLIError("--store: \(error)") }
        components.path = "/" + name
        address = .postgres(url: components.string ?? url, password: password)
        drop = {
            try? admin.executeOutsideTransaction("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            admin.close()
        }
    }
}
