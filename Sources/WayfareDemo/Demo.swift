import BinaryFile
import CityFolder
import CitySimulation
import Essentials
import Fleet
import Foundation
import GeoJSON
import Hummingbird
import Logging
import SQLiteStorage
import ServiceLifecycle
import ServiceSimulation
import Services
import Storage
import TaxiDispatch
import WayfareServer

/// `wayfare demo`: a city at work, seen from outside. The server runs on loopback on a
/// fresh SQLite store; the simulated city (``ServiceSimulation``) talks to it over HTTP
/// through ``HTTPBackend``; the results are a summary and a map.
///
/// Why a virtual clock: an hour of a city's traffic should take a minute, not an hour. The
/// server's clock is a `VirtualScheduler` that the simulation moves; everything else — the
/// requests, the JSON, the sessions, the store — is what a real server does.
package struct Demo {
    /// What to run.
    package struct Options: Sendable {
        package var city: String
        package var outDir: String
        package var minutes = 60
        package var cabs = 40
        package var seed: UInt64 = 42
        package var port = 0
        package init(city: String, outDir: String) {
            self.city = city
            self.outDir = outDir
        }

        /// The simulated city: `cabs` cabs for `minutes`, 6 requests per cab per hour
        /// (about one every 10 minutes a cab: a busy but not saturated city), up to 3
        /// passengers per cab.
        package var simulation: ServiceSimulation.Configuration {
            var configuration = ServiceSimulation.Configuration()
            configuration.cabs = cabs
            configuration.hours = Double(minutes) / 60
            configuration.bookings = max(1, Int((Double(cabs) * 6 * configuration.hours).rounded()))
            configuration.passengers = max(1, min(configuration.bookings, cabs * 3))
            configuration.seed = seed
            return configuration
        }
    }

    /// The summary a demo writes (`summary.json`): the headline figures first, the
    /// simulation's whole summary after.
    package struct Summary: Codable, Sendable {
        package var city: String
        package var minutes: Int
        package var requests: Int
        package var served: Int
        package var meanPickupETASeconds: Double?
        package var dispatchP50Milliseconds: Double?
        package var dispatchP99Milliseconds: Double?
        package var revenue: Int64
        package var currency: String
        package var ledgerBalanced: Bool
        package var httpRequests: Int
        package var url: String
        package var simulation: ServiceSimulation.Summary

        enum CodingKeys: String, CodingKey {
            case city, minutes, requests, served, revenue, currency, url, simulation
            case meanPickupETASeconds = "mean_pickup_eta_s", dispatchP50Milliseconds = "dispatch_p50_ms"
            case dispatchP99Milliseconds = "dispatch_p99_ms", ledgerBalanced = "ledger_balanced", httpRequests = "http_requests"
        }
    }

    let options: Options
    let progress: @Sendable (String) -> Void

    /// How long the city goes on, live, with `--serve`.
    static let liveHours = 24.0

    package init(_ options: Options, progress: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.progress = progress
    }

    /// Runs the demo; with `serve`, keeps the server up afterwards until SIGINT or SIGTERM,
    /// calling `serving` with the page's URL.
    package func run(serve: Bool = false, serving: @escaping @Sendable (String) -> Void = { _ in }) async throws -> Summary {
        let folder = try CityFolder.load(options.city)
        let storePath = (options.outDir as NSString).appendingPathComponent("demo.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storePath + suffix) }
        let store = try SQLiteStore(path: storePath)
        try store.migrate(ServiceSchema.migrations)

        let scheduler = VirtualScheduler(start: ServiceSimulation.start)
        var logger = Logger(label: "wayfare.demo")
        logger.logLevel = .warning
        let server = try WayfareServer(city: folder, store: store, scheduler: scheduler, gateway: TestModeGateway(), notifier: nil,
                                       logger: logger, passwords: .fastForTests, guards: .unlimited, sms: .test)
        _ = try await server.accounts.createAdmin(
            Registration(name: "Demo admin", mobile: DemoAdmin.mobile, email: DemoAdmin.email, password: DemoAdmin.password,
                         confirmation: DemoAdmin.password), adminSession: nil)

        let port = Locked<Int?>(nil)
        let app = server.application(port: options.port, periodicWork: false) { bound in port.withLock { $0 = bound } }
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: serve ? [.sigterm, .sigint] : [],
                                                      logger: logger))
        let running = Task { try await group.run() }
        var waited = 0
        while port.withLock({ $0 }) == nil {
            guard waited < 1000 else { throw DemoError("the server did not start listening within 10 s") }
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        let url = "http://127.0.0.1:\(port.withLock { $0 }!)"
        progress("server: \(url) (SQLite store \(storePath))")

        // With --serve the city goes on after the measured minutes, in real time: the clock
        // then waits for the wall clock, so the cabs on the live page move at their speed.
        let liveFrom = ServiceSimulation.start.addingTimeInterval(Double(options.minutes) * 60)
        let wallAtLiveFrom = Locked<ContinuousClock.Instant?>(nil)
        let backend = HTTPBackend(base: url, storeName: "sqlite", currency: folder.city.fares.currency,
                                  allocateBefore: folder.settings.booking.allocateBefore, outsideBookings: serve,
                                  advance: { date in
                                      if serve, date > liveFrom {
                                          let origin = wallAtLiveFrom.withLock { o in
                                              if o == nil { o = ContinuousClock.now }
                                              return o!
                                          }
                                          try await Task.sleep(until: origin + .milliseconds(Int64(date.timeIntervalSince(liveFrom) * 1000)),
                                                               clock: .continuous)
                                      }
                                      try await offThePool { scheduler.advance(to: date) }
                                  },
                                  runDue: { await server.runPeriodicWork() })
        var configuration = options.simulation
        if serve { configuration.hours += Self.liveHours }
        let simulation = ServiceSimulation(zones: folder.city.zones, network: folder.city.network, configuration: configuration)
        let minutes = options.minutes
        let outDir = options.outDir, cityName = folder.settings.name
        let reported = Locked<Summary?>(nil)
        let report: @Sendable (ServiceSimulation.Result) async -> Void = { result in
            let s = result.summary
            let summary = Summary(
                city: cityName, minutes: minutes, requests: s.bookedNow + s.bookedLater + s.refused.values.reduce(0, +),
                served: s.completed, meanPickupETASeconds: s.pickupETA?.mean, dispatchP50Milliseconds: s.bookNowMilliseconds?.p50,
                dispatchP99Milliseconds: s.bookNowMilliseconds?.p99, revenue: s.revenue, currency: s.currency,
                ledgerBalanced: s.ledgerBalanced, httpRequests: backend.requestCount, url: url, simulation: s)
            reported.withLock { $0 = summary }
            let cabs = server.bookings.dispatcher.fleet.allCabs().compactMap(\.position)
            let driven = (try? await server.bookings.drivenTracks(limit: 1000)) ?? []
            let map = DemoMap(zones: folder.city.zones, streets: folder.city.network.streetPolylines())
            let title = "\(cityName): \(minutes) simulated minutes, \(s.completed) trips completed, \(cabs.count) cabs"
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            do {
                try Self.write(map.svg(trips: result.trips, driven: driven, cabs: cabs, title: title), to: (outDir as NSString).appendingPathComponent("map.svg"))
                try Self.write(String(decoding: try encoder.encode(summary), as: UTF8.self) + "\n",
                               to: (outDir as NSString).appendingPathComponent("summary.json"))
            } catch {
                progress("\(error)")
            }
        }
        let tick: @Sendable (Int) -> Void = { [progress] minute in
            if minute <= minutes, minute % 10 == 0 || minute == minutes { progress("minute \(minute)/\(minutes)") }
        }
        if serve {
            let city = Task {
                try await simulation.run(on: backend, progress: tick, checkpoint: (Double(minutes), { result in
                    await report(result)
                    serving(url)
                }))
            }
            // Until SIGINT or SIGTERM: the server stops gracefully, then the city.
            defer { city.cancel() }
            try await running.value
        } else {
            let result = try await simulation.run(on: backend, progress: tick)
            await report(result)
            await group.triggerGracefulShutdown()
            try await running.value
        }
        guard let summary = reported.withLock({ $0 }) else { throw DemoError("stopped before the first \(minutes) minutes ended") }
        return summary
    }

    /// Writes `text` to `path` whole or not at all (write, fsync, rename).
    static func write(_ text: String, to path: String) throws {
        do { try BinaryFile.writeAtomically(Array(text.utf8), to: path) } catch { throw DemoError("\(path): \(error.reason)") }
    }
}

/// Why the demo stopped: one line.
package struct DemoError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
