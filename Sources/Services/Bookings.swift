import CityModel
import Essentials
import Fares
import Fleet
import Foundation
import Geodesy
import RoadGraph
import Storage
import TaxiDispatch
import Zones

/// Bookings now and later, from the fare estimate to the paid trip (000 UC05–07, 19, 22–24;
/// 001; 004), on the city's `Dispatcher` (TaxiDispatch) and any store.
///
/// The engine decides which cab and how long; this service keeps the rules and the records:
/// - **Now**: the booking is stored, the estimate held in the wallet, and the dispatcher
///   asked for a cab within its ETA limit (30 minutes); when none accepts in time the
///   booking ends *not served* with the reason.
/// - **Later**: 30 minutes to 3 days ahead, never within ±30 minutes of another of the
///   passenger's bookings ("already a booking exists"); editable and cancellable until its
///   cab is allocated, 20 minutes before (`BookingSettings`). ``runDue()`` allocates what
///   fell due; a host calls it every few seconds.
/// - Every state change is a row in the booking's history, with its time.
///
/// Dispatch outcomes (a driver accepted, a search ended) are written to the store when the
/// dispatcher announces them; an outcome the store refused is kept and written again by the
/// next ``runDue()``, so an acknowledged allocation is not lost to a brief outage.
///
/// One process owns a city's dispatcher; ``resume()`` gives it back the cabs on shift and
/// the searches a previous process left open.
///
/// `Sendable`: its stored properties are immutable and `Sendable`, and its mutable
/// bookkeeping (outstanding offers, open searches, routers) sits behind locks.
public final class Bookings: Sendable {
    let store: any SQLStore
    /// The city served.
    public let city: City
    /// The city's dispatcher: cabs report positions and statuses through it.
    public let dispatcher: Dispatcher
    let clock: any FleetClock
    let commissionPercent: Int64
    let routers: RouterPool
    /// Map matchers, for billing a trip from its matched track.
    let matchers: WorkspacePool<Matcher>
    let onOffer: (@Sendable (DriverOffer) -> Void)?
    let state = Locked(LiveState())
    /// How this process's searches ended, for the server's metrics.
    let outcomes = Locked(DispatchOutcomeCounts())

    struct LiveState {
        var offers: [UInt64: Offer] = [:]
        var driverOfCab: [String: Int64] = [:]
        var searchOfBooking: [Int: RequestID] = [:]
        /// Where each booking being dispatched goes: offers tell the driver.
        var destinationOfBooking: [Int: Coordinate] = [:]
        /// Outcomes the store refused, written again by `runDue`.
        var unsaved: [(number: Int, outcome: Outcome)] = []
        /// The trip each cab is on (started, not completed), by cab.
        var tripOfCab: [String: Int] = [:]
        /// Each trip's track in this process, from its start.
        var tracks: [Int: [TrackPoint]] = [:]
        /// Track points not yet written to the store (``persistPositions()`` writes them).
        var unsavedPoints: [(number: Int, point: TrackPoint)] = []
        /// The route each tracked booking's cab was shown, followed report by report, by cab.
        var followed: [String: Followed] = [:]
        /// Deviations not yet in their bookings' histories (``persistPositions()`` writes them).
        var unsavedDeviations: [Deviation] = []
    }

    /// A tracked booking's route and how its cab keeps to it.
    struct Followed: Sendable {
        var number: Int
        /// The booking's state while this route is followed (allocated: the way to the
        /// pickup; started: the trip).
        var state: BookingState
        var follower: RouteFollower
        /// When the cab last left its route.
        var changedAt: Date?
    }

    /// A cab that left its route, for the booking's history.
    struct Deviation: Sendable {
        var number: Int
        var state: BookingState
        var atMs: Int64
        var detail: String
    }

    /// A trip's track keeps at most this many points in memory (a day at one report every 5 s).
    static let maximumTrackPoints = 17_280

    /// The lease a replica must still hold for its dispatch outcomes to be written (nil: the
    /// only process, unfenced). Set by the server from its `CityLease` at every renewal.
    let fence = Locked<(city: String, token: Int64)?>(nil)

    /// The bookings of `city` on `store`.
    ///
    /// - Parameters:
    ///   - store: the store, migrated to ``ServiceSchema``.
    ///   - city: the city served.
    ///   - wallet: the wallet settings (the commission taken at settlement).
    ///   - dispatch: the dispatcher's rules (offer timeout, search limit, 30-minute ETA limit).
    ///   - policy: how the dispatcher picks cabs.
    ///   - scheduler: the timers of the dispatcher; its clock is the services' clock, so a
    ///     virtual scheduler tests every timed rule without sleeping.
    ///   - offers: called with each offer to a driver (the server pushes it to the app).
    public init(store: any SQLStore, city: City, wallet: WalletSettings = WalletSettings(),
                dispatch: Dispatcher.Configuration = .init(), policy: any DispatchPolicy = FastestArrivalPolicy(),
                scheduler: any DispatchScheduler = SystemScheduler(),
                offers: (@Sendable (DriverOffer) -> Void)? = nil) throws(ServiceError) {
        self.store = store
        self.city = city
        clock = scheduler.clock
        commissionPercent = wallet.commissionPercent
        routers = RouterPool(network: city.network)
        let network = city.network
        matchers = WorkspacePool { Matcher(network: network) }
        onOffer = offers
        let relay = NotificationRelay()
        var fleet = Fleet.Configuration()
        fleet.cabTypes = city.fares.cabTypes
        if fleet.cabTypes.isEmpty { fleet.cabTypes = Fleet.Configuration().cabTypes }
        do {
            dispatcher = try Dispatcher(zones: city.zones, network: city.network, fleetConfiguration: fleet, configuration: dispatch,
                                        policy: policy, scheduler: scheduler, notify: { n in relay.send(n) })
        } catch { throw .invalid(field: "dispatch", reason: error.description) }
        relay.connect(self)
    }

    var now: Date { clock.now() }

    // MARK: Pieces

    /// The route and rate of a request, checked: the fields, the service area, the cab type.
    struct Priced: Sendable { var rate: FareRate; var metres: Int64; var tolls: Int64 }

    func price(_ r: BookingRequest) throws(ServiceError) -> Priced {
        guard (1...50).contains(r.seats) else { throw .invalid(field: "seats", reason: "must be between 1 and 50") }
        guard dispatcher.fleet.configuration.cabTypes.contains(r.cabType) else {
            throw .invalid(field: "cabType", reason: "the city has no cab type \"\(r.cabType.name)\"")
        }
        guard r.pickup.distance(to: r.destination) >= city.settings.minimumTripMetres else {
            throw .invalid(field: "destination", reason: "must be at least \(Int(city.settings.minimumTripMetres)) m from the pickup")
        }
        let rate: FareRate
        do { rate = try city.fares.rate(at: r.pickup, in: city.zones, type: r.cabType) } catch {
            switch error {
            case .outOfServiceArea: throw .invalid(field: "pickup", reason: "present location is out of bounds of any service area")
            default: throw .invalid(field: "cabType", reason: error.description)
            }
        }
        guard (0...2).contains(r.route) else { throw .invalid(field: "route", reason: "must be 0 (the fastest), 1 or 2") }
        let route = try chosenRoute(from: r.pickup, to: r.destination, choice: r.route)
        guard route.fromSnapMetres <= dispatcher.configuration.maxSnapMetres else {
            throw .invalid(field: "pickup", reason: "no road within \(Int(dispatcher.configuration.maxSnapMetres)) m")
        }
        let charge: TollList.Charge
        do { charge = try city.tolls.charge(for: route.tollWays, type: r.cabType) } catch { throw .invalid(field: "cabType", reason: error.description) }
        return Priced(rate: rate, metres: Int64(route.distanceMetres.rounded()), tolls: charge.total)
    }

    /// Route `choice` of those offered between two places (0: the fastest).
    func chosenRoute(from pickup: Coordinate, to destination: Coordinate, choice: Int) throws(ServiceError) -> Route {
        if choice == 0 {
            guard let route = routers.with({ try? $0.route(from: pickup, to: destination) }) else {
                throw .invalid(field: "destination", reason: "no route by road from the pickup")
            }
            return route
        }
        let offered = routers.with { (try? $0.routes(from: pickup, to: destination, count: choice + 1)) ?? [] }
        guard offered.indices.contains(choice) else {
            throw .invalid(field: "route", reason: offered.isEmpty ? "no route by road from the pickup"
                                                                  : "only \(offered.count) route(s) are offered between these places")
        }
        return offered[choice]
    }

    /// The fare of a priced trip; an amount too large for the chart is refused as the destination's fault.
    static func fare(_ p: Priced, chart: FareChart, firstRide: Bool) throws(ServiceError) -> FareBreakdown {
        do { return try chart.fare(TripMeasure(metres: p.metres, tolls: p.tolls), at: p.rate, firstRide: firstRide) }
        catch { throw .invalid(field: "destination", reason: error.description) }
    }

    static func isFirstRide(_ c: any SQLConnection, _ passenger: Int64) throws -> Bool {
        try !BookingStatements(c).hasCompletedTrip(passenger)
    }

    static func refuseConflicts(_ c: any SQLConnection, passenger: Int64, at pickupMs: Int64, window: TimeInterval, except: Int?) throws {
        let w = Int64(window * 1000)
        if try BookingStatements(c).hasLiveBooking(passenger, pickupIn: (pickupMs - w)...(pickupMs + w), except: except ?? 0) {
            throw ServiceError.conflict("already a booking exists")
        }
    }

    /// A free booking number from the system's random source: not guessable from the ones
    /// before it. Drawn in `space` first; when 32 draws there find none free (the space is
    /// nearly full), in the next one, ten times larger, up to twelve digits.
    static func freeNumber(_ c: any SQLConnection, space: ClosedRange<Int>) throws -> Int {
        var rng = SystemRandomNumberGenerator()
        var low = space.lowerBound, high = space.upperBound
        while high <= 999_999_999_999 {
            for _ in 0..<32 {
                let n = Int.random(in: low...high, using: &rng)
                if try !BookingStatements(c).isTaken(n) { return n }
            }
            (low, high) = (high + 1, high * 10 + 9)
        }
        throw ServiceError.conflict("no free booking number")
    }

    /// A booking of `passenger`'s; another passenger's is `notFound`, as an unknown one is.
    static func ownRow(_ c: any SQLConnection, _ number: Int, _ passenger: Int64, locked: Bool = false) throws -> BookingStatements.BookingRow {
        guard let row = try BookingStatements(c).booking(number, passenger: passenger, locked: locked) else { throw ServiceError.notFound("booking \(number)") }
        return row
    }

    /// A booking allocated to `driver`; any other is `notFound`.
    static func driversRow(_ c: any SQLConnection, _ number: Int, _ driver: Int64, locked: Bool = false) throws -> BookingStatements.BookingRow {
        guard let row = try BookingStatements(c).booking(number, driver: driver, locked: locked) else { throw ServiceError.notFound("booking \(number)") }
        return row
    }

    static func event(_ c: any SQLConnection, _ number: Int, _ state: BookingState, _ now: Int64, _ detail: String) throws {
        try BookingStatements(c).insertEvent(number, state, at: now, detail: detail)
    }

    /// The payment reference of a booking's revision: unique even when a purged booking's
    /// number is drawn again.
    static func reference(_ number: Int, created: Int64, revision: Int64) -> String { "booking:\(number):\(created):\(revision)" }

    /// Degrees as every service stores them: whole 10⁻⁷ degrees (about 1 cm). Only for
    /// validated coordinates (finite, in range).
    static func e7(_ degrees: Double) -> Int64 { Int64((degrees * 1e7).rounded()) }
    static func e7(_ c: Coordinate) -> String { "\(e7(c.latitude)),\(e7(c.longitude))" }

}

/// Routers for the services' threads: one is taken for a query and given back.
///
/// Why a pool: a `Router` keeps search state sized to the network and is not `Sendable`;
/// making one per call would allocate that state every time.
package typealias RouterPool = WorkspacePool<Router>

extension WorkspacePool where Workspace == Router {
    /// Routers over `network`.
    package convenience init(network: RoadNetwork) { self.init { Router(network: network) } }
}

/// Hands the dispatcher's notifications to the `Bookings` that owns the dispatcher, which
/// exists only after the dispatcher does; weakly, so the two do not keep each other alive.
///
/// Why not a closure in `Locked`: reading a function value through `Locked`'s generic
/// `inout` accessor re-abstracts it and writes it back wrapped in another thunk, so every
/// notification made the path longer (a trip's cost grew with every trip before it).
///
/// `Sendable`: the weak reference sits in a `Locked`.
final class NotificationRelay: Sendable {
    private struct Weak { weak var target: Bookings? }
    private let target = Locked(Weak())

    func connect(_ bookings: Bookings) { target.withLock { $0.target = bookings } }

    func send(_ notification: DispatchNotification) {
        target.withLock { $0.target }?.dispatched(notification)
    }
}

/// Searches ended by this process, by outcome.
package struct DispatchOutcomeCounts: Sendable {
    package var allocated = 0
    package var notServed = 0
    package init() {}
}
