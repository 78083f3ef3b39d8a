import CitySimulation
import Essentials
import Fleet
import Foundation
import Geodesy
import RoadGraph
import Services
import TaxiDispatch
import Zones

/// The moving parts of one ``ServiceSimulation`` run: the cabs, the passengers, the rides
/// and the queue of what happens next, in virtual time.
///
/// `@unchecked Sendable`: one task runs ``run(progress:)`` and is the only one to touch
/// the state; the backend's calls are awaited one at a time, so nothing runs beside it.
final class World: @unchecked Sendable {
    enum Action {
        case request
        case answer(DriverOffer, accept: Bool)
        case reachedPickup(ride: Int)
        case boarded(ride: Int)
        case reachedDestination(ride: Int)
        case cancel(ride: Int)
        case check(ride: Int)
        case report
        case runDue
        case idle(cab: Int, generation: Int)
        case minute(Int)
    }

    struct Cab {
        let profile: CabProfile
        var driver: Int64 = 0
        var position: Coordinate
        var leg: Leg?
        /// Bumped whenever the cab's plans change, so that a stale idle step does nothing.
        var generation = 0
        var ride: Int?
    }

    struct Passenger {
        var id: Int64 = 0
        let payment: PaymentMethod
        /// The ride under way or booked, if any.
        var ride: Int?
    }

    struct Ride {
        /// The passenger of a booking made outside the simulation.
        static let outside = -1
        let booking: Int
        /// The index in `passengers`, or `outside`.
        let passenger: Int
        let pickup: Coordinate, destination: Coordinate
        /// When the passenger wants to leave: now, or the time booked for later.
        let pickupTime: Date
        var cab: Int?
        var assigned: Date?
        var toPickup: [Coordinate] = []
        var metres = 0.0
        var ended = false
        var kept: Int?
    }

    let configuration: ServiceSimulation.Configuration
    let backend: any TaxiBackend
    let router: Router
    var rng: SeededRandom
    let junctions: [Coordinate]
    let start: Date, end: Date
    var queue = EventQueue<Action>()
    var now: Date
    var cabs: [Cab] = []
    var cabOfID: [String: Int] = [:]
    var passengers: [Passenger] = []
    var rides: [Ride] = []
    var rideOfBooking: [Int: Int] = [:]
    var trips: [CitySimulation.Trip] = []
    var invoices: [TripInvoice] = []
    var bookedNow = 0, bookedLater = 0, reports = 0
    var refused: [String: Int] = [:], unexpected: [String: Int] = [:]
    var etas: [Double] = [], bookNanos: [Double] = []

    init(zones: ZoneSet, network: RoadNetwork, configuration: ServiceSimulation.Configuration, backend: any TaxiBackend) {
        self.configuration = configuration
        self.backend = backend
        router = Router(network: network)
        rng = SeededRandom(seed: configuration.seed)
        junctions = (0..<network.nodeCount).map { network.coordinate(ofNode: $0) }
            .filter { zones.zoneIndex(longitude: $0.longitude, latitude: $0.latitude) >= 0 }
        start = ServiceSimulation.start
        end = start.addingTimeInterval(configuration.hours * 3600)
        now = start
    }

    // MARK: The run

    func run(progress: (@Sendable (Int) -> Void)?,
             checkpoint: (minutes: Double, report: @Sendable (ServiceSimulation.Result) async -> Void)?) async throws(ServiceError) -> ServiceSimulation.Result {
        let wall = ContinuousClock.now
        guard !junctions.isEmpty else { throw .invalid(field: "city", reason: "no junction of the road network lies in a taxi zone") }
        try await setUp()
        schedule(.report, at: start)
        schedule(.runDue, at: start)
        schedule(.request, at: start.addingTimeInterval(nextGap()))
        for minute in 1...max(1, Int((configuration.hours * 60).rounded(.up))) {
            schedule(.minute(minute), at: min(end, start.addingTimeInterval(Double(minute) * 60)))
        }
        var pendingCheckpoint = checkpoint.map { (start.addingTimeInterval($0.minutes * 60), $0.report) }
        while let (time, action) = queue.pop() {
            guard time <= end, !Task.isCancelled else { break }
            if let (at, report) = pendingCheckpoint, time > at {
                pendingCheckpoint = nil
                await report(try await result(wall: wall))
            }
            if time > now {
                now = time
                await call { try await self.backend.advance(to: time) }
            }
            if case let .minute(m) = action { progress?(m); continue }
            await perform(action)
            await takeOffers()
        }
        if now < end {
            now = end
            await call { try await self.backend.advance(to: self.end) }
        }
        return try await result(wall: wall)
    }

    func schedule(_ action: Action, at time: Date) {
        if time.timeIntervalSince1970.isFinite { queue.push(action, at: time) }
    }

    /// Runs a backend call whose failure is not a rule the simulation expects: the error
    /// is counted (a sound run has none).
    @discardableResult
    func call<T>(_ work: () async throws -> T) async -> T? {
        do { return try await work() } catch {
            unexpected[(error as? ServiceError)?.description ?? "\(error)", default: 0] += 1
            return nil
        }
    }

    func setUp() async throws(ServiceError) {
        let types = configuration.types.isEmpty ? [(CabType.sedan, 4)] : configuration.types
        for i in 0..<configuration.cabs {
            let (type, seats) = types[i % types.count]
            let profile = CabProfile(id: "cab\(i + 1)", type: type, seats: seats)
            let at = junctions[Int.random(in: 0..<junctions.count, using: &rng)]
            var cab = Cab(profile: profile, position: at)
            cab.driver = try await backend.startShift(driver: i + 1, cab: profile)
            try await backend.report(driver: cab.driver, position: at, at: now)
            try await backend.setAvailable(driver: cab.driver, true)
            cabOfID[profile.id] = cabs.count
            cabs.append(cab)
        }
        for n in 0..<configuration.passengers {
            let cash = Double.random(in: 0..<1, using: &rng) < configuration.cashPassengers
            var passenger = Passenger(payment: cash ? .cash : .wallet)
            passenger.id = try await backend.registerPassenger(n + 1)
            if !cash {
                let short = Double.random(in: 0..<1, using: &rng) < configuration.shortWallets
                let amount = short ? configuration.shortTopUp : Int64.random(in: configuration.topUp, using: &rng)
                if amount > 0 { try await backend.refill(passenger: passenger.id, amount: amount) }
            }
            passengers.append(passenger)
        }
        for i in cabs.indices { idle(i) }
    }

    // MARK: What happens

    func perform(_ action: Action) async {
        switch action {
        case .request:
            await request()
            schedule(.request, at: now.addingTimeInterval(nextGap()))
        case let .answer(offer, accept):
            await answer(offer, accept: accept)
        case let .reachedPickup(r):
            guard let i = rides[r].cab else { return }
            await call { try await self.backend.arrived(self.rides[r].booking, driver: self.cabs[i].driver) }
            // A cab early for a booking for later waits for the time booked.
            let late = Double.random(in: 0..<1, using: &rng) < configuration.latePassengers
            let wait = late ? Double.random(in: 720...1200, using: &rng) : Double.random(in: configuration.boardingSeconds, using: &rng)
            schedule(.boarded(ride: r), at: max(now, rides[r].pickupTime).addingTimeInterval(wait))
        case let .boarded(r):
            guard let i = rides[r].cab else { return }
            await call { try await self.backend.started(self.rides[r].booking, driver: self.cabs[i].driver) }
            let ride = drive(i, to: rides[r].destination)
            rides[r].metres = ride.metres
            if let k = rides[r].kept {
                trips[k].ride = ride.points
                trips[k].arrivalSeconds = now.timeIntervalSince(rides[r].assigned ?? now)
            }
            schedule(.reachedDestination(ride: r), at: now.addingTimeInterval(ride.seconds))
        case let .reachedDestination(r):
            guard let i = rides[r].cab else { return }
            if let invoice = await call({ try await self.backend.complete(self.rides[r].booking, driver: self.cabs[i].driver,
                                                                           metres: Int64(self.rides[r].metres.rounded())) }) {
                invoices.append(invoice)
            }
            end(r)
            cabs[i].ride = nil
            idle(i)
        case let .cancel(r):
            guard !rides[r].ended, rides[r].cab == nil else { return }
            do {
                try await backend.cancel(rides[r].booking, passenger: passengers[rides[r].passenger].id)
                end(r)
            } catch ServiceError.conflict {
                // Allocated meanwhile: too late to cancel; the ride goes ahead.
            } catch {
                unexpected[error.description, default: 0] += 1
            }
        case let .check(r):
            guard !rides[r].ended, rides[r].cab == nil else { return }
            let p = passengers[rides[r].passenger].id
            guard let booking = await call({ try await self.backend.booking(self.rides[r].booking, passenger: p) }) else { return }
            switch booking.state {
            case .notServed, .cancelled, .completed: end(r)
            default: schedule(.check(ride: r), at: now.addingTimeInterval(60))
            }
        case .report:
            for i in cabs.indices {
                let here = position(of: i)
                await call { try await self.backend.report(driver: self.cabs[i].driver, position: here, at: self.now) }
                reports += 1
            }
            schedule(.report, at: now.addingTimeInterval(configuration.reportInterval))
        case .runDue:
            await call { try await self.backend.runDue() }
            schedule(.runDue, at: now.addingTimeInterval(configuration.dueInterval))
        case let .idle(i, generation):
            if cabs[i].generation == generation, cabs[i].ride == nil { idle(i) }
        case .minute:
            break
        }
    }

    /// A passenger books, now or for later.
    func request() async {
        let p = pickPassenger()
        var pickup = junctions[Int.random(in: 0..<junctions.count, using: &rng)]
        var destination = pickup
        for _ in 0..<200 {
            let candidate = junctions[Int.random(in: 0..<junctions.count, using: &rng)]
            let d = candidate.distance(to: pickup)
            if d >= 300 && d <= configuration.tripMetres { destination = candidate; break }
        }
        if destination == pickup { pickup = junctions[0] }
        let types = configuration.types.isEmpty ? [(CabType.sedan, 4)] : configuration.types
        let type = types[Int.random(in: 0..<types.count, using: &rng)].0
        let request = BookingRequest(passenger: passengers[p].id, pickup: pickup, destination: destination, cabType: type,
                                     payment: passengers[p].payment)
        let lead = Double.random(in: 1800...3600, using: &rng)
        let later = Double.random(in: 0..<1, using: &rng) < configuration.laterShare && now.addingTimeInterval(lead) < end
        let cancels = Double.random(in: 0..<1, using: &rng) < configuration.cancelShare
        let before = ContinuousClock.now
        let booking: Booking
        do {
            booking = later ? try await backend.bookLater(request, at: now.addingTimeInterval(lead))
                            : try await backend.bookNow(request)
        } catch {
            switch error {
            case .conflict(let why), .invalid(_, let why): refused[why, default: 0] += 1
            default: unexpected[error.description, default: 0] += 1
            }
            return
        }
        if !later {
            let d = ContinuousClock.now - before
            bookNanos.append(Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9)
        }
        if later { bookedLater += 1 } else { bookedNow += 1 }
        let r = rides.count
        let pickupTime = later ? now.addingTimeInterval(lead) : now
        rides.append(Ride(booking: booking.number, passenger: p, pickup: pickup, destination: destination, pickupTime: pickupTime))
        rideOfBooking[booking.number] = r
        passengers[p].ride = r
        // A search ends within minutes; the app looks then whether a cab came.
        schedule(.check(ride: r), at: pickupTime.addingTimeInterval(180))
        if later && cancels {
            schedule(.cancel(ride: r), at: now.addingTimeInterval(Double.random(in: 60...(lead - 1500), using: &rng)))
        }
    }

    /// A passenger with no ride booked when one of a few draws finds one; else any.
    func pickPassenger() -> Int {
        var p = Int.random(in: 0..<passengers.count, using: &rng)
        for _ in 0..<8 where passengers[p].ride != nil {
            p = Int.random(in: 0..<passengers.count, using: &rng)
        }
        return p
    }

    func nextGap() -> TimeInterval {
        let rate = Double(configuration.bookings) / (configuration.hours * 3600)
        guard rate > 0 else { return .infinity }
        return -log1p(-Double.random(in: 0..<1, using: &rng)) / rate
    }

    /// Drivers decide on the offers made since the last step.
    func takeOffers() async {
        for offer in await backend.takeOffers() {
            let u = Double.random(in: 0..<1, using: &rng)
            let delay = Double.random(in: configuration.responseSeconds, using: &rng)
            guard u < configuration.acceptProbability + configuration.declineProbability else { continue }  // lets it lapse
            schedule(.answer(offer, accept: u < configuration.acceptProbability), at: now.addingTimeInterval(delay))
        }
    }

    func answer(_ offer: DriverOffer, accept: Bool) async {
        do {
            try await backend.answer(offer, accept: accept)
        } catch ServiceError.conflict {
            return  // lapsed or withdrawn before the answer: nothing to do
        } catch {
            unexpected[error.description, default: 0] += 1
            return
        }
        guard accept, let i = cabOfID[offer.cab] else { return }
        let r: Int
        if let known = rideOfBooking[offer.booking] {
            r = known
        } else {
            // A booking from outside the simulation (the live page of `wayfare demo --serve`):
            // the driver serves it like any other; its passenger boards on arrival.
            guard let destination = offer.destination else { return }
            r = rides.count
            rides.append(Ride(booking: offer.booking, passenger: Ride.outside, pickup: offer.pickup, destination: destination, pickupTime: now))
            rideOfBooking[offer.booking] = r
        }
        rides[r].cab = i
        rides[r].assigned = now
        cabs[i].ride = r
        etas.append(offer.etaSeconds)
        let leg = drive(i, to: rides[r].pickup)
        if trips.count < configuration.keptTrips {
            rides[r].kept = trips.count
            trips.append(CitySimulation.Trip(request: UInt64(offer.booking), cab: offer.cab, pickup: rides[r].pickup,
                                             dropOff: rides[r].destination, toPickup: leg.points, ride: [],
                                             etaSeconds: offer.etaSeconds, arrivalSeconds: 0))
        }
        schedule(.reachedPickup(ride: r), at: now.addingTimeInterval(leg.seconds))
    }

    func end(_ r: Int) {
        rides[r].ended = true
        let p = rides[r].passenger
        if p != Ride.outside, passengers[p].ride == r { passengers[p].ride = nil }
    }

    // MARK: Cabs

    func position(of i: Int) -> Coordinate { cabs[i].leg?.position(at: now) ?? cabs[i].position }

    /// Starts cab i on the road to `target`; returns the path, its length and duration
    /// (the cab stays put when there is no route).
    func drive(_ i: Int, to target: Coordinate) -> (points: [Coordinate], metres: Double, seconds: Double) {
        let here = position(of: i)
        cabs[i].position = here
        cabs[i].generation += 1
        guard let route = try? router.route(from: here, to: target), !route.geometry.isEmpty else {
            // No road between them (a junction cut off): the cab is taken to be there.
            cabs[i].leg = nil
            cabs[i].position = target
            return ([here, target], here.distance(to: target), 0)
        }
        let leg = Leg(points: route.geometry, start: now, duration: route.durationSeconds)
        cabs[i].leg = leg
        cabs[i].position = route.geometry.last!
        return (route.geometry, leg.metres, route.durationSeconds)
    }

    /// An idle cab cruises to a junction nearby or waits at a stand, then decides again.
    func idle(_ i: Int) {
        let here = position(of: i)
        if Double.random(in: 0..<1, using: &rng) < configuration.cruiseProbability {
            for _ in 0..<8 {
                let j = junctions[Int.random(in: 0..<junctions.count, using: &rng)]
                if j.distance(to: here) <= 1500 {
                    let leg = drive(i, to: j)
                    schedule(.idle(cab: i, generation: cabs[i].generation), at: now.addingTimeInterval(max(30, leg.seconds)))
                    return
                }
            }
        }
        cabs[i].position = here
        cabs[i].leg = nil
        cabs[i].generation += 1
        schedule(.idle(cab: i, generation: cabs[i].generation), at: now.addingTimeInterval(Double.random(in: 120...360, using: &rng)))
    }

    // MARK: Results

    func result(wall: ContinuousClock.Instant) async throws(ServiceError) -> ServiceSimulation.Result {
        var completed = 0, notServed = 0, cancelled = 0, unfinished = 0
        for ride in rides where ride.passenger != Ride.outside {
            let booking = try await backend.booking(ride.booking, passenger: passengers[ride.passenger].id)
            switch booking.state {
            case .completed: completed += 1
            case .notServed: notServed += 1
            case .cancelled: cancelled += 1
            default: unfinished += 1
            }
        }
        let accounts = try await backend.companyAccounts()
        let audit = try await backend.auditLedger()
        let cashTrips = invoices.filter { $0.method == "cash" }.count
        let d = ContinuousClock.now - wall
        let summary = ServiceSimulation.Summary(
            store: backend.storeName, currency: backend.currency,
            cabs: configuration.cabs, passengers: configuration.passengers, hours: configuration.hours, seed: configuration.seed,
            bookedNow: bookedNow, bookedLater: bookedLater, refused: refused,
            completed: completed, notServed: notServed, cancelled: cancelled, unfinished: unfinished,
            walletTrips: invoices.count - cashTrips, cashTrips: cashTrips,
            cashShare: invoices.isEmpty ? 0 : rounded3(Double(cashTrips) / Double(invoices.count)),
            fares: invoices.reduce(0) { $0 + $1.total }, walletPaid: invoices.reduce(0) { $0 + $1.walletPaid },
            cashPaid: invoices.reduce(0) { $0 + $1.cashPaid }, awaitingConfirmation: invoices.reduce(0) { $0 + $1.awaitingConfirmation },
            commission: invoices.reduce(0) { $0 + $1.commission },
            revenue: accounts.revenue, ledgerBalanced: audit.sound, ledgerTransfers: audit.transfers,
            pickupETA: spread(etas), bookNowMilliseconds: latency(bookNanos.map { $0 / 1e6 }), reports: reports,
            unexpectedErrors: unexpected,
            wallSeconds: rounded3(d.inSeconds))
        return ServiceSimulation.Result(summary: summary, trips: trips)
    }

    func spread(_ values: [Double]) -> ServiceSimulation.Summary.Spread? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return .init(mean: rounded3(sorted.reduce(0, +) / Double(sorted.count)), p50: rounded3(rank(sorted, 0.5)),
                     p95: rounded3(rank(sorted, 0.95)))
    }

    func latency(_ values: [Double]) -> ServiceSimulation.Summary.Latency? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return .init(p50: rounded3(rank(sorted, 0.5)), p99: rounded3(rank(sorted, 0.99)))
    }

    /// The nearest-rank percentile of sorted values.
    func rank(_ sorted: [Double], _ q: Double) -> Double { percentile(q, ofSorted: sorted) ?? 0 }
}

/// Rounded to 3 decimals, for readable JSON.
func rounded3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 + 0 }

/// What happens next: a binary min-heap of actions by time, first in first out among equal
/// times (a sequence number breaks ties, so runs repeat exactly).
struct EventQueue<Action> {
    private var heap: [(time: Date, seq: Int, action: Action)] = []
    private var seq = 0

    var isEmpty: Bool { heap.isEmpty }

    mutating func push(_ action: Action, at time: Date) {
        seq += 1
        heap.append((time, seq, action))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard less(i, parent) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> (Date, Action)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count && less(l, m) { m = l }
            if r < heap.count && less(r, m) { m = r }
            guard m != i else { break }
            heap.swapAt(i, m)
            i = m
        }
        return (top.time, top.action)
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        heap[a].time < heap[b].time || (heap[a].time == heap[b].time && heap[a].seq < heap[b].seq)
    }
}
