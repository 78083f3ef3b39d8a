import CityFolder
import Foundation
import GeoJSON
import SQLiteStorage
import ServiceSimulation
import Services
import Storage
import TestSupport
import Testing
import WayfareDemo

/// `wayfare demo`'s engine: the simulated city over HTTP against a real server on loopback.
@Suite("The demo: a city over HTTP")
struct DemoTests {
    /// The oracle is the same simulation run in process, straight on the services: HTTP,
    /// JSON, sessions and the polling of offers must change nothing of what happens. (The
    /// pickup ETAs are compared to 0.1 s: the API gives them to a tenth.)
    @Test("eighty simulated minutes over HTTP (bookings now and for later) end exactly as they do in process; summary.json and map.svg are written")
    func overHTTPAsInProcess() async throws {
        let out = TemporaryFolder()
        var options = Demo.Options(city: MonacoFolder.path, outDir: out.url.path)
        // Long enough for bookings for later (30 to 60 minutes ahead) to be made and served.
        options.minutes = 80
        options.cabs = 6
        let demo = try await Demo(options, progress: { _ in }).run()

        let store = try SQLiteStore(path: out.path("in-process.sqlite"))
        try store.migrate(ServiceSchema.migrations)
        let backend = try InProcessBackend(city: MonacoFolder.folder.city, store: store, start: ServiceSimulation.start)
        let direct = try await ServiceSimulation(zones: MonacoFolder.folder.city.zones, network: MonacoFolder.folder.city.network,
                                                 configuration: options.simulation).run(on: backend).summary

        let http = demo.simulation
        #expect(http.bookedNow > 0 && http.bookedLater > 0 && http.completed > 0, "the demo booked now and later and completed trips: \(http)")
        #expect(http.bookedNow == direct.bookedNow && http.bookedLater == direct.bookedLater, "over HTTP \(http), in process \(direct)")
        #expect(http.refused == direct.refused, "over HTTP \(http.refused), in process \(direct.refused); later \(http.bookedLater) vs \(direct.bookedLater), unexpected \(http.unexpectedErrors)")
        #expect(http.completed == direct.completed)
        #expect(http.notServed == direct.notServed)
        #expect(http.cancelled == direct.cancelled)
        #expect(http.fares == direct.fares)
        #expect(http.revenue == direct.revenue)
        #expect(http.cashTrips == direct.cashTrips)
        #expect(http.unexpectedErrors.isEmpty, "\(http.unexpectedErrors)")
        let etaHTTP: Double = http.pickupETA?.mean ?? -1, etaDirect: Double = direct.pickupETA?.mean ?? -2
        #expect(abs(etaHTTP - etaDirect) < 0.1)
        #expect(demo.ledgerBalanced)
        #expect(http.ledgerTransfers == direct.ledgerTransfers)
        #expect(demo.served == http.completed)
        #expect(demo.requests >= http.bookedNow + http.bookedLater)
        #expect(demo.httpRequests > http.reports, "every report was a request")

        let summary = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: out.path("summary.json")))))
        #expect(summary["served"]?.numberValue == Double(demo.served))
        #expect(summary["revenue"]?.numberValue == Double(demo.revenue))
        #expect(summary["simulation"]?["completed"]?.numberValue == Double(http.completed))
        let svg: String = try String(contentsOfFile: out.path("map.svg"), encoding: .utf8)
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.hasSuffix("</svg>\n"))
        // Every zone is drawn, and every completed trip's ride.
        let titles: Int = svg.components(separatedBy: "<title>").count - 1
        #expect(titles == MonacoFolder.folder.city.zones.zones.count)
        let rides: Int = svg.components(separatedBy: "stroke=\"#1b7f3b\"").count - 1
        #expect(rides >= http.completed)
        // And the tracks the server kept of them (the drivers' reports matched to the roads).
        let driven = svg.components(separatedBy: "class=\"driven\"").last?.components(separatedBy: "</g>").first ?? ""
        let tracks: Int = driven.components(separatedBy: "<path ").count - 1
        #expect(tracks > 0 && tracks <= http.completed, "\(tracks) driven tracks for \(http.completed) trips")
    }
}
