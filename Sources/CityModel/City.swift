import Fares
import Foundation
import RoadGraph
import Zones

/// A city's booking rules. The specifications disagree, so each is a setting; the defaults
/// are specification 000's.
public struct BookingSettings: Sendable, Equatable {
    /// The soonest a booking for later may be, ahead of now (000: 30 minutes).
    public var minimumLead: TimeInterval = 30 * 60
    /// The latest it may be (000: 3 days).
    public var maximumLead: TimeInterval = 3 * 86_400
    /// Another active booking of the passenger this close to the pickup time refuses the
    /// booking: "already a booking exists" (000: ±30 minutes, inclusive).
    public var conflictWindow: TimeInterval = 30 * 60
    /// How long before the pickup time a booking for later gets its cab and the passenger
    /// the notice (000: 20 minutes).
    public var allocateBefore: TimeInterval = 20 * 60
    /// How long ended bookings and their state history are kept (004: two years).
    public var historyRetention: TimeInterval = 730 * 86_400
    /// The shortest trip, pickup to destination, in metres (so "different" means something).
    public var minimumTripMetres: Double = 50
    /// How far the driver's taximeter may differ from the trip's track before the trip is
    /// flagged for review: this share of the track's distance (default 20 %)…
    public var meterToleranceShare: Double = 0.2
    /// … or this many metres, whichever is more (GPS and the meter both err on short trips).
    public var meterToleranceMetres: Double = 300
    /// The booking numbers drawn first (six digits). When 32 random draws in a space find
    /// no free number, the next space is ten times larger (seven digits, and so on up to
    /// twelve), so numbers never run out; a number is free again only once its booking is
    /// purged (``historyRetention``).
    public var numberSpace: ClosedRange<Int> = 100_000...999_999
    /// The most a wallet pays for a trip without the passenger's confirmation: the held
    /// estimate plus this percentage of it (default 50 %). Above it the rest waits for the
    /// passenger to confirm it (the fare confirmation of the services' bookings).
    public var confirmAbovePercent: Int64 = 50
    /// The GPS error of the drivers' phones, in metres (one standard deviation): how the
    /// trip's track is matched to the roads for billing (default 10 m, a phone in a city).
    public var trackSigmaMetres: Double = 10

    /// Specification 000's rules.
    public init() {}

    /// Specification 000: 30 minutes to 3 days ahead, the cab 20 minutes before.
    public static let specification000 = BookingSettings()
    /// Specification 001: at least 2 hours ahead, the cab 10 minutes before.
    public static var specification001: BookingSettings {
        var s = BookingSettings(); s.minimumLead = 2 * 3600; s.allocateBefore = 10 * 60; return s
    }
    /// Specification 004: up to a week ahead, the cab 10 minutes before.
    public static var specification004: BookingSettings {
        var s = BookingSettings(); s.maximumLead = 7 * 86_400; s.allocateBefore = 10 * 60; return s
    }
}

/// Everything the services need to know about a city: where it serves, its roads, its
/// fares and tolls, and its booking rules.
///
/// `Sendable`: immutable values.
public struct City: Sendable {
    /// Taxi zones and service areas.
    public var zones: ZoneSet
    /// The road graph (routes, ETAs, tolls).
    public var network: RoadNetwork
    /// The fare chart.
    public var fares: FareChart
    /// The toll list.
    public var tolls: TollList
    /// The booking rules.
    public var settings: BookingSettings

    /// A city from its parts.
    public init(zones: ZoneSet, network: RoadNetwork, fares: FareChart, tolls: TollList? = nil,
                settings: BookingSettings = BookingSettings()) {
        self.zones = zones; self.network = network; self.fares = fares
        self.tolls = tolls ?? .none(currency: fares.currency); self.settings = settings
    }
}
