import Foundation
import OSM

/// How a car may use one OSM way: the directions it may drive, its travel speed, and the
/// street name.
public struct WayUse: Equatable, Sendable {
    /// Along the way's node order.
    public var forward: Bool
    /// Against it.
    public var backward: Bool
    /// Travel speed in km/h.
    public var speedKmh: Double
    /// The `highway` class.
    public var highway: String
    /// `name`, else `ref`, else nil.
    public var name: String?
    /// True when the way posted a `maxspeed` below ``CarProfile/minimumSpeedKmh`` and the
    /// class default was used instead (counted in ``BuildReport/implausibleSpeeds``).
    public var postedSpeedIgnored = false
    /// True when a car pays to drive it: `toll=yes`, or `toll:motorcar=yes` (the more
    /// specific tag wins, so `toll=yes` with `toll:motorcar=no` is free for cabs).
    public var toll = false
}

/// The car profile: which OSM ways a car drives, in which directions and how fast.
///
/// Choices where OSM leaves room (also in the README):
/// - Driven classes: motorway, trunk, primary, secondary, tertiary (and their links),
///   unclassified, residential, living_street, service and road. Tracks, paths, footways,
///   cycleways, pedestrian streets, construction and proposed roads are not.
/// - Access: the most specific of `motorcar`, `motor_vehicle`, `vehicle`, `access` decides.
///   `no`, `private`, `agricultural`, `forestry`, `emergency`, `psv`, `military` and
///   `delivery` forbid; any other value allows (`destination` included: a cab may drop off).
/// - One-way: `oneway=yes/1/true` forward only, `-1/reverse` backward only; implied on
///   `highway=motorway` and on `junction=roundabout/circular`; `oneway=reversible` or
///   `alternating` is not driven (its direction depends on the hour).
/// - Speed: a posted `maxspeed` (numbers, `mph`, `km/h`, and zone values such as
///   `FR:urban`) times 0.8 for traffic; without one, a city default per class.
public struct CarProfile: Sendable {
    /// Default travel speeds (km/h) per driven class, for ways without a usable maxspeed.
    public var defaultSpeeds: [String: Double] = [
        "motorway": 90, "motorway_link": 45, "trunk": 70, "trunk_link": 40,
        "primary": 50, "primary_link": 35, "secondary": 45, "secondary_link": 30,
        "tertiary": 40, "tertiary_link": 30, "unclassified": 30, "residential": 25,
        "living_street": 10, "service": 15, "road": 20,
    ]
    /// The share of a posted limit a car drives at, on average, in town.
    public var maxspeedFactor = 0.8
    /// Posted speeds that give a travel speed below this (km/h) are taken for tagging
    /// mistakes (`maxspeed=0.001`, a weight limit typed into the wrong key) and replaced by
    /// the class default. Why 5: the slowest real limit is a walking-pace 5–7 km/h.
    public var minimumSpeedKmh = 5.0
    /// What turns cost, or nil to price none (the default, for now): with them, each
    /// junction becomes one node per way in, so that a route pays for its U-turns and its
    /// turns across traffic as OSRM's car profile has it (see ``TurnCosts``).
    public var turnCosts: TurnCosts?

    /// The default car profile (see the type's documentation for its speeds).
    public init() {}

    static let forbidding: Set<String> = ["no", "private", "agricultural", "forestry", "emergency", "psv", "military", "delivery"]

    /// How a car may use a way with these tags, or nil when it may not.
    public func use(of tags: [OSMTag]) -> WayUse? {
        guard let highway = tags["highway"], let classSpeed = defaultSpeeds[highway] else { return nil }
        if tags["area"] == "yes" { return nil }
        for key in ["motorcar", "motor_vehicle", "vehicle", "access"] {
            if let v = tags[key] {
                if Self.forbidding.contains(v) { return nil }
                break
            }
        }
        var forward = true, backward = true
        let implied = highway == "motorway" || ["roundabout", "circular"].contains(tags["junction"] ?? "")
        switch tags["oneway"] {
        case "yes", "1", "true": backward = false
        case "-1", "reverse": forward = false
        case "no", "false", "0": break
        case "reversible", "alternating": return nil
        default: if implied { backward = false }
        }
        var speed = classSpeed, ignored = false
        if let posted = tags["maxspeed"].flatMap(Self.kilometresPerHour) {
            if posted * maxspeedFactor >= minimumSpeedKmh { speed = posted * maxspeedFactor } else { ignored = true }
        }
        guard speed > 0, speed.isFinite else { return nil }
        let toll = (tags["toll:motorcar"] ?? tags["toll"]) == "yes"
        return WayUse(forward: forward, backward: backward, speedKmh: speed, highway: highway,
                      name: tags["name"] ?? tags["ref"], postedSpeedIgnored: ignored, toll: toll)
    }

    /// Zone values of `maxspeed` (country:zone), in km/h. Those meaning "no limit" are absent.
    static let zoneSpeeds: [String: Double] = [
        "urban": 50, "FR:urban": 50, "FR:rural": 80, "FR:motorway": 130, "FR:zone30": 30,
        "DE:urban": 50, "DE:rural": 100, "DE:living_street": 7, "DE:zone30": 30,
        "FI:urban": 50, "FI:rural": 80, "FI:motorway": 120,
        "MC:urban": 50, "IT:urban": 50, "IT:rural": 90, "IT:motorway": 130,
        "CH:urban": 50, "CH:rural": 80, "CH:motorway": 120, "AT:urban": 50, "AT:rural": 100,
        "GB:nsl_single": 96.56, "GB:nsl_dual": 112.65, "GB:motorway": 112.65,
        "US:urban": 40.23, "walk": 6,
    ]

    /// Parses a `maxspeed` value: "50", "50 km/h", "30 mph", "FR:urban". nil when unusable
    /// ("none", "signals", garbage).
    public static func kilometresPerHour(_ value: String) -> Double? {
        let v = value.trimmingCharacters(in: .whitespaces)
        if let zone = zoneSpeeds[v] { return zone }
        if v.hasSuffix(":living_street") { return 10 }
        if v.hasSuffix(":zone30") { return 30 }
        var number = v, factor = 1.0
        for (suffix, f) in [("mph", 1.609344), ("km/h", 1.0), ("kmh", 1.0), ("kph", 1.0)] where v.hasSuffix(suffix) {
            number = String(v.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
            factor = f
            break
        }
        guard let n = Double(number), n.isFinite, n > 0, n < 400 else { return nil }
        return n * factor
    }
}

/// A turn restriction with a via node: from one way, through a node, onto another.
public struct TurnRestriction: Equatable, Sendable {
    /// `no_*`: this turn is forbidden. `only_*`: every other turn from `fromWay` at `via` is.
    public enum Kind: Sendable { case forbidden, mandatory }
    /// Forbidden or mandatory.
    public var kind: Kind
    /// The OSM way the turn starts on.
    public var fromWay: Int64
    /// The OSM node the turn is made at.
    public var via: Int64
    /// The OSM way the turn ends on.
    public var toWay: Int64

    /// The restriction a relation states for cars, or nil when it states none this reader
    /// applies. Via-way restrictions, conditional ones and those whose `except` names cars
    /// are skipped (counted by the importer).
    public init?(_ r: OSMRelation) {
        let type = r.tags["type"]
        guard type == "restriction" || type == "restriction:motorcar" else { return nil }
        let value = r.tags["restriction:motorcar"] ?? r.tags["restriction"] ?? ""
        if let except = r.tags["except"], except.split(separator: ";").contains(where: { $0 == "motorcar" || $0 == "motor_vehicle" }) { return nil }
        if value.hasPrefix("no_") { kind = .forbidden } else if value.hasPrefix("only_") { kind = .mandatory } else { return nil }
        let from = r.members.filter { $0.role == "from" && $0.type == .way }
        let via = r.members.filter { $0.role == "via" }
        let to = r.members.filter { $0.role == "to" && $0.type == .way }
        guard from.count == 1, to.count == 1, via.count == 1, via[0].type == .node else { return nil }
        fromWay = from[0].ref; self.via = via[0].ref; toWay = to[0].ref
    }
}
