import CitySimulation
import Fleet
import Foundation
import Geodesy
import RoadGraph
import Services
import TaxiDispatch
import Zones

/// A city at work through the services: passengers register, top up their wallets, book
/// now and later, cancel now and then; drivers on shift report positions, answer offers,
/// drive to the pickup, wait, drive the trip and complete it; fares are settled from the
/// wallets or paid in cash. Everything runs in virtual time on a ``TaxiBackend``, so an
/// hour of Monaco takes seconds, and the summary adds what the services know: revenue,
/// cash share and whether the ledger balances.
///
/// The same seed makes the same passengers, trips and driver choices; the booking numbers
/// and the measured wall times differ from run to run.
public struct ServiceSimulation: Sendable {
    /// The city, the crowd and its habits.
    public struct Configuration: Sendable {
        /// Cabs on shift (types in turn from ``types``).
        public var cabs = 40
        /// Simulated hours.
        public var hours = 1.0
        /// Bookings attempted over the run (Poisson arrivals).
        public var bookings = 240
        /// Passengers who book (each at most one trip at a time, mostly).
        public var passengers = 120
        /// The share of bookings made for later (30 to 60 minutes ahead).
        public var laterShare = 0.25
        /// The share of bookings for later that the passenger cancels before allocation.
        public var cancelShare = 0.05
        /// The share of passengers who pay cash by choice.
        public var cashPassengers = 0.1
        /// The share of wallet passengers whose balance is too small for a trip, so the
        /// trip is paid in cash (the specification's fallback).
        public var shortWallets = 0.1
        /// What a wallet passenger tops up, in minor units.
        public var topUp: ClosedRange<Int64> = 100_000...300_000
        /// What a short wallet holds, in minor units.
        public var shortTopUp: Int64 = 2_000
        /// Random seed.
        public var seed: UInt64 = 42
        /// Seconds between position reports of each cab.
        public var reportInterval: TimeInterval = 5
        /// Seconds between the host's calls to `runDue` (bookings for later falling due).
        public var dueInterval: TimeInterval = 30
        /// Chances that a driver accepts or declines an offer; the rest let it lapse.
        public var acceptProbability = 0.85, declineProbability = 0.1
        /// How long a driver takes to answer, in seconds.
        public var responseSeconds: ClosedRange<Double> = 2...12
        /// Seconds from the cab's arrival to the passenger on board.
        public var boardingSeconds: ClosedRange<Double> = 20...120
        /// The share of passengers who keep the cab waiting 12 to 20 minutes (waiting is
        /// charged after the first 10).
        public var latePassengers = 0.05
        /// Furthest trip, straight-line metres; the nearest is 300 m.
        public var tripMetres = 6000.0
        /// Chance that an idle cab cruises (else it waits at a stand).
        public var cruiseProbability = 0.5
        /// Cab types and seats, in turn.
        public var types: [(CabType, Int)] = [(.sedan, 4), (.hatchback, 4), (.tataNano, 3)]
        /// The dispatcher's rules.
        public var dispatch = Dispatcher.Configuration()
        /// Served trips kept with their routes (the first ones).
        public var keptTrips = 5000

        /// The defaults: 40 cabs, one hour, 240 bookings from 120 passengers.
        public init() {}
    }

    /// The run in numbers (`summary.json` of `wayfare simulate --services`). Money is in
    /// minor units of ``currency``.
    public struct Summary: Sendable, Codable, Equatable {
        /// Mean, median and 95th percentile.
        public struct Spread: Sendable, Codable, Equatable {
            /// The values' summary.
            public var mean, p50, p95: Double
        }
        /// The 50th and 99th percentiles, in milliseconds.
        public struct Latency: Sendable, Codable, Equatable {
            /// The percentiles.
            public var p50, p99: Double
        }
        /// The store and the currency.
        public var store: String, currency: String
        /// The run's settings.
        public var cabs: Int, passengers: Int, hours: Double, seed: UInt64
        /// Bookings the service took, now and for later.
        public var bookedNow: Int, bookedLater: Int
        /// Bookings the service refused, by reason (for example "already a booking exists").
        public var refused: [String: Int]
        /// How the bookings ended: paid trips, not served, cancelled, and still under way
        /// when the run stopped.
        public var completed: Int, notServed: Int, cancelled: Int, unfinished: Int
        /// Completed trips paid from the wallet, and in cash (by choice or a short wallet).
        public var walletTrips: Int, cashTrips: Int
        /// Cash trips over completed trips.
        public var cashShare: Double
        /// Fares of the completed trips, what wallets paid, what drivers collected in cash,
        /// and what awaits the passengers' confirmation (a fare above the estimate plus the
        /// city's margin, a long wait at the pickup for example). The first is the sum of the
        /// other three.
        public var fares: Int64, walletPaid: Int64, cashPaid: Int64, awaitingConfirmation: Int64
        /// The company's commission: the sum of the invoices', and the revenue account's
        /// balance in the ledger (equal when nothing is lost).
        public var commission: Int64, revenue: Int64
        /// Whether the ledger's invariants hold after the run, and its transfers.
        public var ledgerBalanced: Bool, ledgerTransfers: Int
        /// The ETA of the accepted offers, seconds.
        public var pickupETA: Spread?
        /// Wall time of the book-now calls (stored, held and dispatched), milliseconds.
        public var bookNowMilliseconds: Latency?
        /// Position reports sent.
        public var reports: Int
        /// Calls that failed for a reason the simulation did not expect (none in a sound run).
        public var unexpectedErrors: [String: Int]
        /// Wall-clock seconds of the run.
        public var wallSeconds: Double

        enum CodingKeys: String, CodingKey {
            case store, currency, cabs, passengers, hours, seed, refused, completed, cancelled, unfinished, fares
            case commission, revenue, reports
            case bookedNow = "booked_now", bookedLater = "booked_later", notServed = "not_served"
            case walletTrips = "wallet_trips", cashTrips = "cash_trips", cashShare = "cash_share"
            case walletPaid = "wallet_paid", cashPaid = "cash_paid", awaitingConfirmation = "awaiting_confirmation"
            case ledgerBalanced = "ledger_balanced", ledgerTransfers = "ledger_transfers", pickupETA = "pickup_eta_s"
            case bookNowMilliseconds = "book_now_ms", unexpectedErrors = "unexpected_errors", wallSeconds = "wall_seconds"
        }
    }

    /// What a run returns: the summary and the first served trips with their routes.
    public struct Result: Sendable {
        /// The summary.
        public var summary: Summary
        /// Served trips: the route to the pickup and the ride (for the map).
        public var trips: [CitySimulation.Trip]
    }

    /// The city's zones (where passengers are) and road network (how cabs drive).
    public let zones: ZoneSet
    /// See ``zones``.
    public let network: RoadNetwork
    /// The settings.
    public let configuration: Configuration

    /// A simulation of `zones` and `network` with `configuration`.
    public init(zones: ZoneSet, network: RoadNetwork, configuration: Configuration = .init()) {
        self.zones = zones
        self.network = network
        self.configuration = configuration
    }

    /// The virtual time at which runs start: 2026-09-22 09:46:40 UTC (the engine-only
    /// simulation's start too).
    public static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// Runs the city for the configured hours against `backend`, whose clock must stand at
    /// ``start``. `progress` hears each simulated minute.
    /// - Throws: the first `ServiceError` of the setup (registering, topping up, starting
    ///   shifts); errors during the run are counted in the summary instead.
    public func run(on backend: any TaxiBackend, progress: (@Sendable (Int) -> Void)? = nil) async throws(ServiceError) -> Result {
        try await run(on: backend, progress: progress, checkpoint: nil)
    }

    /// Runs the city as ``run(on:progress:)`` does, and hands `checkpoint` the result as it
    /// stands after `checkpoint.minutes` simulated minutes, then goes on (`wayfare demo
    /// --serve` reports its hour, then keeps the city running live). A cancelled task ends
    /// the run at its next event.
    package func run(on backend: any TaxiBackend, progress: (@Sendable (Int) -> Void)?,
                     checkpoint: (minutes: Double, report: @Sendable (Result) async -> Void)?) async throws(ServiceError) -> Result {
        let world = World(zones: zones, network: network, configuration: configuration, backend: backend)
        return try await world.run(progress: progress, checkpoint: checkpoint)
    }
}
