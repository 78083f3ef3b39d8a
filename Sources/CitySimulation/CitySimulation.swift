import Fleet
import Foundation
import Geodesy
import RoadGraph
import TaxiDispatch
import Zones

/// A city at work, simulated on its real road graph and zones, in virtual time.
///
/// Cabs drive along routed paths at the graph's speeds (each route's own average speed,
/// interpolated along its geometry), report their positions every `reportInterval` through
/// the `Dispatcher`, and when idle wait at a stand or cruise to a random junction nearby.
/// Passengers arrive as a Poisson process, more of them near the centre, and request a
/// ride to a random junction. Drivers accept, decline or ignore offers with the configured
/// probabilities and answer after a random delay. An assigned cab drives to the pickup,
/// waits for boarding, drives the trip, and is available again at the drop-off.
///
/// The same seed gives the same day: every random draw comes from one seeded generator, in
/// event order, and the event queue breaks ties by insertion order. Only the measured
/// decision latencies (wall time) differ between runs.
public struct CitySimulation {
    /// What to simulate.
    public struct Configuration: Sendable {
        /// Cabs in the fleet.
        public var cabs = 200
        /// Simulated hours.
        public var hours = 1.0
        /// Ride requests over the whole run (Poisson arrivals at this mean rate).
        public var requests = 2000
        /// The seed of every random draw.
        public var seed: UInt64 = 42
        /// Seconds between a cab's position reports.
        public var reportInterval: TimeInterval = 5
        /// The chances that a driver accepts and declines an offer (the rest ignore it).
        public var acceptProbability = 0.8, declineProbability = 0.15
        /// A driver's answer comes this many seconds after the offer (uniform).
        public var responseSeconds: ClosedRange<Double> = 2...12
        /// Seconds a passenger takes to board.
        public var boardingSeconds: TimeInterval = 30
        /// How idle cabs spend their time: the chance of cruising to a junction within
        /// `cruiseMetres` (else they wait 2–6 minutes at a stand).
        public var cruiseProbability = 0.5, cruiseMetres = 1500.0
        /// The farthest a ride goes, in metres as the crow flies (destinations are drawn
        /// among the junctions that near the origin).
        public var tripMetres = 8000.0
        /// How strongly demand gathers in the centre: each origin is the junction nearest the
        /// centre of this many random draws (1: uniform over junctions).
        public var centreBias = 2
        /// Cab types, assigned in turn, and their seats.
        public var types: [(CabType, Int)] = [(.tataNano, 3), (.hatchback, 4), (.sedan, 4)]
        /// Dispatch rules and policy.
        public var dispatch = Dispatcher.Configuration()
        /// Trips whose routes are kept for `trips.geojson` (the first ones served).
        public var keptTrips = 5000
        /// The defaults: Monaco's hour with 200 cabs and 2,000 requests.
        public init() {}
    }

    /// What one run produced.
    public struct Result: Sendable {
        /// The figures, as `summary.json` holds them.
        public var summary: Summary
        /// The decisions, in order.
        public var decisions: [DecisionRecord]
        /// Served trips with their routes (up to `keptTrips`).
        public var trips: [Trip]
        /// Per cab: offers, accepted, declined, timed out.
        public var drivers: [(cab: String, driver: DispatchStatistics.Driver)]
    }

    /// One served ride.
    public struct Trip: Sendable {
        /// The request and its cab.
        public var request: UInt64, cab: String
        /// Where the passenger was picked up and dropped off.
        public var pickup: Coordinate, dropOff: Coordinate
        /// The cab's route to the pickup and the trip's route.
        public var toPickup: [Coordinate], ride: [Coordinate]
        /// The ETA when assigned and the seconds the cab really took to arrive.
        public var etaSeconds: Double, arrivalSeconds: Double

        /// A ride as given (the services' simulation makes them too).
        public init(request: UInt64, cab: String, pickup: Coordinate, dropOff: Coordinate, toPickup: [Coordinate],
                    ride: [Coordinate], etaSeconds: Double, arrivalSeconds: Double) {
            self.request = request; self.cab = cab; self.pickup = pickup; self.dropOff = dropOff
            self.toPickup = toPickup; self.ride = ride; self.etaSeconds = etaSeconds; self.arrivalSeconds = arrivalSeconds
        }
    }

    /// The run's figures.
    public struct Summary: Sendable, Codable, Equatable {
        /// A distribution in three numbers (seconds).
        public struct Spread: Sendable, Codable, Equatable {
            /// Mean, median and 95th percentile.
            public var mean, p50, p95: Double
        }
        /// Two percentiles of the measured decision latency, in microseconds.
        public struct Latency: Sendable, Codable, Equatable {
            /// Median and 99th percentile.
            public var p50, p99: Double
        }
        /// Cabs, simulated hours and the seed.
        public var cabs: Int, hours: Double, seed: UInt64
        /// Requests made, served, not served by reason, and refused outright (pickup off the
        /// road network or outside the service area).
        public var requests: Int, served: Int
        /// Requests that ended without a cab, by reason.
        public var notServed: [String: Int]
        /// Requests refused outright (no road near the pickup).
        public var refused: Int
        /// Requests still searching when the run ended.
        public var open: Int
        /// The ETA of the assigned cab, at assignment.
        public var pickupETA: Spread?
        /// How late cabs really arrived compared with their ETA (seconds; negative is early).
        public var arrivalMinusETA: Spread?
        /// Seconds from request to acceptance.
        public var waitUntilAccepted: Spread?
        /// Offers made, over requests.
        public var offersPerRequest: Double
        /// Per-driver acceptance rate over drivers with offers: mean, p50 and p95.
        public var driverAcceptance: Spread?
        /// Wall time of each request's first decision (zone, candidates, ETAs, the offer).
        public var decisionMicroseconds: Latency?
        /// Position reports sent.
        public var reports: Int
        /// Wall seconds the run took.
        public var wallSeconds: Double

        enum CodingKeys: String, CodingKey {
            case cabs, hours, seed, requests, served, refused, open, reports
            case notServed = "not_served", pickupETA = "pickup_eta_s", arrivalMinusETA = "arrival_minus_eta_s"
            case waitUntilAccepted = "wait_until_accepted_s", offersPerRequest = "offers_per_request"
            case driverAcceptance = "driver_acceptance", decisionMicroseconds = "decision_us", wallSeconds = "wall_seconds"
        }
    }

    let zones: ZoneSet
    let network: RoadNetwork
    /// The run's settings.
    public let configuration: Configuration

    /// A simulation of the city given by its zones and road graph.
    public init(zones: ZoneSet, network: RoadNetwork, configuration: Configuration = .init()) {
        self.zones = zones; self.network = network; self.configuration = configuration
    }

    /// Runs the simulated hours and returns what happened. `progress` gets the simulated
    /// minutes done, once a simulated minute.
    public func run(policy: any DispatchPolicy = ZoneQueuePolicy(), progress: ((Int) -> Void)? = nil) throws(DispatchError) -> Result {
        let engine = try Engine(zones: zones, network: network, configuration: configuration, policy: policy)
        return engine.run(progress: progress)
    }
}
