import Essentials
import Fleet
import Foundation
import Geodesy
import RoadGraph
import TaxiDispatch
import Zones

/// The simulation's moving parts: one virtual scheduler drives the dispatcher's timers and
/// the city's events alike.
///
/// `@unchecked Sendable`: the scheduler's work items capture it, and they all run on the
/// one thread that calls `run` (the virtual scheduler runs work on the advancing thread),
/// so its state is never touched concurrently.
final class Engine: @unchecked Sendable {
    enum Phase { case idle, toPickup, boarding, riding }
    struct SimCab {
        let id: String
        var position: Coordinate
        var leg: Leg?
        var phase = Phase.idle
        /// Bumped whenever the cab's plans change: a scheduled step with an older number is
        /// a plan that no longer holds and does nothing.
        var generation = 0
    }
    struct Pending { var customer: String; var requested: Date; var pickup: Coordinate; var destination: Coordinate }

    let configuration: CitySimulation.Configuration
    let scheduler: VirtualScheduler
    let log = InMemoryDecisionLog()
    var dispatcher: Dispatcher!
    let router: Router
    var rng: SeededRandom
    var cabs: [SimCab] = []
    var slotOf: [String: Int] = [:]
    let junctions: [Coordinate]
    let centre: Coordinate
    let start: Date, end: Date
    var pending: [UInt64: Pending] = [:]
    var trips: [CitySimulation.Trip] = []
    /// Where each kept trip is in `trips`, by request.
    var tripIndex: [UInt64: Int] = [:]
    var decisionNanos: [Double] = []
    var accepted: [Double] = [], etas: [Double] = [], lateness: [Double] = []
    var refused = 0, requests = 0, reports = 0

    init(zones: ZoneSet, network: RoadNetwork, configuration: CitySimulation.Configuration, policy: any DispatchPolicy) throws(DispatchError) {
        self.configuration = configuration
        start = Date(timeIntervalSince1970: 1_790_000_000)
        end = start.addingTimeInterval(configuration.hours * 3600)
        scheduler = VirtualScheduler(start: start)
        router = Router(network: network)
        rng = SeededRandom(seed: configuration.seed)
        junctions = (0..<network.nodeCount).map { network.coordinate(ofNode: $0) }
            .filter { zones.zoneIndex(longitude: $0.longitude, latitude: $0.latitude) >= 0 }
        centre = junctions.isEmpty ? Coordinate(unchecked: 0, 0)
            : Coordinate(unchecked: junctions.map(\.latitude).reduce(0, +) / Double(junctions.count),
                         junctions.map(\.longitude).reduce(0, +) / Double(junctions.count))
        dispatcher = try Dispatcher(zones: zones, network: network, configuration: configuration.dispatch, policy: policy,
                                    scheduler: scheduler, log: log, notify: { [unowned self] in self.notified($0) })
    }

    func run(progress: ((Int) -> Void)?) -> CitySimulation.Result {
        let wall = ContinuousClock.now
        guard !junctions.isEmpty else { return result(wall: wall) }
        let profiles = (0..<configuration.cabs).map { i in
            let (type, seats) = configuration.types[i % configuration.types.count]
            return CabProfile(id: "cab\(i)", type: type, seats: seats)
        }
        try? dispatcher.register(profiles)
        for p in profiles {
            let at = junctions[Int.random(in: 0..<junctions.count, using: &rng)]
            slotOf[p.id] = cabs.count
            cabs.append(SimCab(id: p.id, position: at))
            _ = try? dispatcher.report(cab: p.id, position: at, at: start)
            try? dispatcher.setStatus(of: p.id, to: .available)
        }
        for i in cabs.indices { idle(i) }
        // Reports in 50 staggered slots per interval, so the fleet reports evenly.
        let slots = 50
        for k in 0..<slots {
            scheduleReports(slot: k, of: slots, at: start.addingTimeInterval(configuration.reportInterval * Double(k) / Double(slots)))
        }
        scheduleNextRequest(after: start)
        var minute = 0
        while minute < Int((configuration.hours * 60).rounded(.up)) {
            minute += 1
            scheduler.advance(to: min(end, start.addingTimeInterval(Double(minute) * 60)))
            progress?(minute)
        }
        return result(wall: wall)
    }

    // MARK: Cabs

    func position(of i: Int, at t: Date) -> Coordinate {
        cabs[i].leg?.position(at: t) ?? cabs[i].position
    }

    /// Starts driving cab i to `target` now; `arrived` runs on arrival unless plans change.
    /// Returns the route's geometry and duration (nil when there is no route: the cab stays).
    @discardableResult
    func drive(_ i: Int, to target: Coordinate, arrived: @escaping @Sendable (Engine, Int) -> Void) -> (geometry: [Coordinate], seconds: Double)? {
        let now = scheduler.now()
        let here = position(of: i, at: now)
        cabs[i].position = here
        cabs[i].leg = nil
        cabs[i].generation += 1
        let generation = cabs[i].generation
        guard let route = try? router.route(from: here, to: target) else {
            scheduler.wake(at: now) { [self] in if cabs[i].generation == generation { arrived(self, i) } }
            return nil
        }
        cabs[i].leg = Leg(points: route.geometry, start: now, duration: route.durationSeconds)
        scheduler.wake(at: now.addingTimeInterval(route.durationSeconds)) { [self] in
            guard cabs[i].generation == generation else { return }
            cabs[i].position = cabs[i].leg?.points.last ?? cabs[i].position
            cabs[i].leg = nil
            arrived(self, i)
        }
        return (route.geometry, route.durationSeconds)
    }

    /// An idle cab cruises to a junction nearby or waits at a stand, then decides again.
    func idle(_ i: Int) {
        cabs[i].phase = .idle
        let now = scheduler.now()
        if Double.random(in: 0..<1, using: &rng) < configuration.cruiseProbability {
            let here = position(of: i, at: now)
            for _ in 0..<8 {
                let j = junctions[Int.random(in: 0..<junctions.count, using: &rng)]
                if j.distance(to: here) <= configuration.cruiseMetres {
                    drive(i, to: j) { e, i in e.idle(i) }
                    return
                }
            }
        }
        cabs[i].position = position(of: i, at: now)
        cabs[i].leg = nil
        cabs[i].generation += 1
        let generation = cabs[i].generation
        scheduler.wake(at: now.addingTimeInterval(Double.random(in: 120...360, using: &rng))) { [self] in
            if cabs[i].generation == generation { idle(i) }
        }
    }

    func scheduleReports(slot k: Int, of slots: Int, at t: Date) {
        guard t < end else { return }
        scheduler.wake(at: t) { [self] in
            var i = k
            while i < cabs.count {
                _ = try? dispatcher.report(cab: cabs[i].id, position: position(of: i, at: t), at: t)
                reports += 1
                i += slots
            }
            scheduleReports(slot: k, of: slots, at: t.addingTimeInterval(configuration.reportInterval))
        }
    }

    // MARK: Passengers

    func scheduleNextRequest(after t: Date) {
        let rate = Double(configuration.requests) / (configuration.hours * 3600)
        guard rate > 0 else { return }
        let gap = -log1p(-Double.random(in: 0..<1, using: &rng)) / rate
        let next = t.addingTimeInterval(gap)
        guard next < end else { return }
        scheduler.wake(at: next) { [self] in
            makeRequest()
            scheduleNextRequest(after: next)
        }
    }

    func makeRequest() {
        requests += 1
        var origin = junctions[Int.random(in: 0..<junctions.count, using: &rng)]
        for _ in 1..<max(1, configuration.centreBias) {
            let other = junctions[Int.random(in: 0..<junctions.count, using: &rng)]
            if other.distance(to: centre) < origin.distance(to: centre) { origin = other }
        }
        var destination = junctions[Int.random(in: 0..<junctions.count, using: &rng)]
        var tries = 0
        while destination.distance(to: origin) > configuration.tripMetres && tries < 500 {
            destination = junctions[Int.random(in: 0..<junctions.count, using: &rng)]
            tries += 1
        }
        let customer = "p\(requests)"
        let before = ContinuousClock.now
        do {
            let id = try dispatcher.request(RideRequest(customer: customer, pickup: origin, destination: destination))
            let d = ContinuousClock.now - before
            decisionNanos.append(Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9)
            pending[id.value] = Pending(customer: customer, requested: scheduler.now(), pickup: origin, destination: destination)
        } catch {
            refused += 1
        }
    }

    // MARK: Drivers

    func notified(_ n: DispatchNotification) {
        switch n {
        case let .offer(offer):
            let u = Double.random(in: 0..<1, using: &rng)
            let delay = Double.random(in: configuration.responseSeconds, using: &rng)
            guard u < configuration.acceptProbability + configuration.declineProbability else { return }  // ignored
            let accept = u < configuration.acceptProbability
            scheduler.wake(at: scheduler.now().addingTimeInterval(delay)) { [self] in
                try? dispatcher.answer(offer.id, accept: accept)
            }
        case .offerWithdrawn: break
        case let .requestEnded(id, _, status):
            guard case let .assigned(a) = status, let p = pending[id.value], let i = slotOf[a.cab] else { pending[id.value] = nil; return }
            pending[id.value] = nil
            let now = scheduler.now()
            accepted.append(now.timeIntervalSince(p.requested))
            etas.append(a.eta.seconds)
            cabs[i].phase = .toPickup
            let toPickup = drive(i, to: p.pickup) { e, i in e.pickedUp(i, id: id.value, pending: p, assigned: now, eta: a.eta.seconds) }
            if trips.count < configuration.keptTrips {
                tripIndex[id.value] = trips.count
                trips.append(CitySimulation.Trip(request: id.value, cab: a.cab, pickup: p.pickup, dropOff: p.destination,
                                                 toPickup: toPickup?.geometry ?? [], ride: [], etaSeconds: a.eta.seconds, arrivalSeconds: 0))
            }
        }
    }

    func pickedUp(_ i: Int, id: UInt64, pending p: Pending, assigned: Date, eta: Double) {
        let now = scheduler.now()
        lateness.append(now.timeIntervalSince(assigned) - eta)
        cabs[i].phase = .boarding
        cabs[i].generation += 1
        let generation = cabs[i].generation
        scheduler.wake(at: now.addingTimeInterval(configuration.boardingSeconds)) { [self] in
            guard cabs[i].generation == generation else { return }
            cabs[i].phase = .riding
            let ride = drive(i, to: p.destination) { e, i in
                try? e.dispatcher.setStatus(of: e.cabs[i].id, to: .available)
                e.idle(i)
            }
            if let k = tripIndex[id] {
                trips[k].ride = ride?.geometry ?? []
                trips[k].arrivalSeconds = now.timeIntervalSince(assigned)
            }
        }
    }

    // MARK: Results

    func result(wall: ContinuousClock.Instant) -> CitySimulation.Result {
        let records = log.records
        let stats = DispatchStatistics(records)
        func spread(_ v: [Double]) -> CitySimulation.Summary.Spread? {
            DispatchStatistics.Summary(v).map { .init(mean: round3($0.mean), p50: round3($0.p50), p95: round3($0.p95)) }
        }
        let drivers = stats.drivers.sorted { $0.key < $1.key }
        let sortedNanos = decisionNanos.sorted()
        let latency = sortedNanos.isEmpty ? nil : CitySimulation.Summary.Latency(
            p50: round3((percentile(0.5, ofSorted: sortedNanos) ?? 0) / 1000),
            p99: round3((percentile(0.99, ofSorted: sortedNanos) ?? 0) / 1000))
        let d = ContinuousClock.now - wall
        let summary = CitySimulation.Summary(
            cabs: configuration.cabs, hours: configuration.hours, seed: configuration.seed,
            requests: requests, served: stats.served,
            notServed: Dictionary(uniqueKeysWithValues: NotServedReason.allCases.map { ($0.rawValue, stats.notServed[$0] ?? 0) }),
            refused: refused, open: stats.open, pickupETA: spread(etas), arrivalMinusETA: spread(lateness),
            waitUntilAccepted: spread(accepted), offersPerRequest: round3(stats.offersPerRequest),
            driverAcceptance: spread(drivers.filter { $0.value.offers > 0 }.map(\.value.acceptanceRate)),
            decisionMicroseconds: latency, reports: reports,
            wallSeconds: round3(d.inSeconds))
        return CitySimulation.Result(summary: summary, decisions: records, trips: trips, drivers: drivers.map { ($0.key, $0.value) })
    }
}

/// Rounded to 3 decimals, for stable and readable JSON.
func round3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 + 0 }  // + 0: no "-0"
