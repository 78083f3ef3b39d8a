// The README's Swift example, whole: a backend that loads a zone file, a road graph and a
// geocoder table, then answers "which zone", "route and ETA", "nearest cabs" and "geocode",
// and dispatches a ride. It depends only on the pure-Swift engine modules (Geodesy, Zones,
// Fleet, RoadGraph, Geocoding, TaxiDispatch): it links neither GEOS nor PROJ. `ExampleTests` runs it on Monaco's files and
// checks that every ```swift block of the README appears here, word for word.
//
//   wayfare-example ZONES.wfz GRAPH.wfg TABLE.wfgc
import Foundation
import Geodesy
import Zones
import Fleet
import RoadGraph
import Geocoding
import TaxiDispatch

func run(zonePath: String, graphPath: String, tablePath: String) throws {
    // MARK: Which zone
    // A ZoneSet is an immutable value of flat arrays: Sendable. Load it once at start-up and
    // share it with every thread; queries take no lock and allocate nothing.
    let zones = try ZoneFile.read(path: zonePath)
    let pickup = try Coordinate(latitude: 43.7393, longitude: 7.4277)
    let zone = zones.zone(containing: pickup)                 // nil outside every zone
    let city = try zones.serviceArea(containing: pickup)      // throws ZoneError.outOfServiceArea outside
    print("zone: \(zone?.name ?? "none"), service area: \(city.name)")

    // MARK: Route and ETA
    // A RoadNetwork is Sendable and shared. A Router is not: it owns the search's scratch
    // arrays, so each thread makes its own (cheap) and reuses it for every query.
    let network = try GraphFile.read(path: graphPath)
    let router = Router(network: network)
    let dropoff = try Coordinate(latitude: 43.7314, longitude: 7.4197)
    let route = try router.route(from: pickup, to: dropoff)   // throws RouteError.noRoadNearby, .noRoute
    print("route: \(Int(route.distanceMetres)) m, \(Int(route.durationSeconds)) s, via \(route.streets.prefix(2).joined(separator: ", "))")

    // MARK: Nearest cabs
    // A Fleet is a Sendable class: reports and status changes take a short lock, and
    // queries read the last published snapshot, so any thread may report or query.
    let fleet = try Fleet()
    let now = Date()
    for (id, latitude, longitude) in [("MC-01", 43.7402, 7.4260), ("MC-02", 43.7330, 7.4210), ("MC-03", 43.7290, 7.4170)] {
        try fleet.register(id: id, type: .sedan, status: .available)
        try fleet.report(cab: id, latitude: latitude, longitude: longitude, at: now)
    }
    fleet.publish()                                            // or wait for the publish interval
    let nearest = fleet.nearest(2, to: pickup, types: [.sedan], now: now)
    let etas = try router.etas(to: pickup, from: nearest.compactMap(\.cab.position))
    for (match, eta) in zip(nearest, etas) {
        print("cab \(match.cab.id): \(Int(match.distance)) m away, ETA \(eta.map { "\(Int($0.seconds)) s" } ?? "none")")
    }

    // MARK: Geocode
    // A GeocoderTable is Sendable and shared; searches allocate only their answers.
    let table = try GeocoderFile.read(path: tablePath)
    let found = try table.geocode("place du casino", near: pickup, limit: 1)
    let here = table.reverse(pickup)
    print("geocode: \(found.first?.label ?? "nothing"); reverse: \(here?.label ?? "nothing")")

    // MARK: Dispatch
    // A Dispatcher is Sendable: one lock around its queues and offers. It owns its Fleet, so
    // reports and statuses go through it; offers and outcomes arrive through `notify`.
    let offers = OfferInbox()
    let dispatcher = try Dispatcher(zones: zones, network: network, notify: { offers.receive($0) })
    try dispatcher.register([CabProfile(id: "MC-04", type: .sedan, seats: 4)])
    try dispatcher.report(cab: "MC-04", position: try Coordinate(latitude: 43.7402, longitude: 7.4260), at: Date())
    try dispatcher.setStatus(of: "MC-04", to: .available)     // joins its zone's queue
    let request = try dispatcher.request(RideRequest(customer: "ann", pickup: pickup, type: .sedan))
    if let offer = offers.latest {                             // the driver's app shows it for 15 s
        try dispatcher.answer(offer.id, accept: true)
    }
    if case let .assigned(assignment) = try dispatcher.status(of: request) {
        print("dispatch: \(assignment.cab), ETA \(Int(assignment.eta.seconds)) s")
    }
}

/// Offers as a driver gateway would receive them (from any thread).
final class OfferInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var offers: [Offer] = []
    func receive(_ note: DispatchNotification) {
        if case let .offer(offer) = note { lock.lock(); offers.append(offer); lock.unlock() }
    }
    var latest: Offer? { lock.lock(); defer { lock.unlock() }; return offers.last }
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: wayfare-example ZONES.wfz GRAPH.wfg TABLE.wfgc\n".utf8))
    exit(2)
}
do {
    try run(zonePath: arguments[1], graphPath: arguments[2], tablePath: arguments[3])
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
