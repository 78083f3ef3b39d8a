import Foundation
import Geodesy
import RoadGraph

/// One position of a cab on a trip, stamped by the server's clock when the report arrived.
public struct TrackPoint: Sendable, Equatable {
    /// Where the cab said it was.
    public var position: Coordinate
    /// When the server received the report.
    public var time: Date

    /// A point.
    public init(position: Coordinate, time: Date) {
        self.position = position
        self.time = time
    }
}

/// What a trip measured from the server's own record: the cab's position reports between
/// `started` and `complete`, matched to the road graph as one track (map matching), or,
/// without a matcher, routed between consecutive reports.
///
/// The driver's taximeter is a claim, like every number a client sends: the fare is billed
/// from this measure, and the meter is kept beside it as a cross-check.
public struct TripMeasurement: Sendable, Equatable {
    /// The billed distance, in metres.
    public var metres: Int64
    /// Seconds the cab stood still (or crawled) between two reports on the way.
    public var waitingSeconds: Int64
    /// How many reports the measure rests on; 0 when the trip had none and the distance is
    /// the route from pickup to destination.
    public var reports: Int
    /// The track driven, one line per piece: the reports matched to the roads (with a
    /// matcher), else the reports kept; empty when the trip had none.
    public var track: [[Coordinate]] = []

    /// Reports closer than this to the last one kept are jitter of a standing cab, not road
    /// driven: routing between them would bill GPS noise.
    static let jitterMetres = 10.0
    /// Between two reports this far apart in time nothing is known: no waiting is counted.
    static let longestGapSeconds = 120.0
    /// Slower than this between two reports counts as waiting (walking pace).
    static let crawlMetresPerSecond = 1.5
    /// A cab that has not reported for this long before completion is assumed to have
    /// driven on to the destination (the phone lost its network): the leg is added.
    static let staleEndSeconds = 60.0
    /// … unless its last report is already this close to the destination.
    static let arrivedMetres = 150.0

    /// Measures a trip.
    ///
    /// - Parameters:
    ///   - track: the reports from the start (the first point is where the trip started),
    ///     in time order.
    ///   - pickup: where the trip was booked from.
    ///   - destination: where it was booked to.
    ///   - completedAt: when the driver completed it, by the server's clock.
    ///   - booked: the length of the route the trip was estimated on (billed when the trip
    ///     has no reports).
    ///   - route: the road distance in metres between two points (nil when there is no route:
    ///     the great-circle distance is used).
    ///   - match: the track matched to the roads (a `Matcher`), when a matcher is at hand:
    ///     the billed distance is then the matched track's length, with each break bridged
    ///     as a leg between reports (below). Nil: legs between consecutive reports.
    public static func measure(track: [TrackPoint], pickup: Coordinate, destination: Coordinate, completedAt: Date,
                               booked: Double?, route: (Coordinate, Coordinate) -> Double?,
                               match: (([TracePoint]) -> MapMatch)? = nil) -> TripMeasurement {
        func road(_ a: Coordinate, _ b: Coordinate) -> Double { route(a, b) ?? a.distance(to: b) }
        guard track.count >= 2 else {
            // The phone was offline the whole trip: the booked trip's route.
            return TripMeasurement(metres: whole(booked ?? road(pickup, destination)), waitingSeconds: 0, reports: 0)
        }
        var metres = 0.0, waiting = 0.0
        var end = track[0].position
        var driven: [[Coordinate]] = []
        for (previous, point) in zip(track, track.dropFirst()) {
            let dt = point.time.timeIntervalSince(previous.time)
            if dt > 0, dt <= longestGapSeconds, previous.position.distance(to: point.position) < max(jitterMetres, crawlMetresPerSecond * dt) {
                waiting += dt
            }
        }
        if let match {
            let start = track[0].time
            let matched = match(track.map { TracePoint($0.position, time: $0.time.timeIntervalSince(start)) })
            metres = matched.distanceMetres
            // A break is a stretch no plausible route explains (a jump, a phone offline): it is
            // billed as a leg between the reports either side of it, under the same rules.
            for b in matched.breaks where b > 0 {
                guard let before = (0..<b).last(where: { matched.points[$0] != nil }) else { continue }
                metres += leg(from: track[before], to: track[b], road: road)
            }
            end = matched.points.last(where: { $0 != nil })??.coordinate ?? track[track.count - 1].position
            driven = matched.pieces
        } else {
            var kept = track[0]
            driven = [[kept.position]]
            for point in track.dropFirst() {
                guard kept.position.distance(to: point.position) >= jitterMetres else { continue }
                metres += leg(from: kept, to: point, road: road)
                kept = point
                driven[0].append(point.position)
            }
            end = kept.position
        }
        if let last = track.last, completedAt.timeIntervalSince(last.time) > staleEndSeconds,
           last.position.distance(to: destination) > arrivedMetres {
            metres += road(end, destination)
        }
        return TripMeasurement(metres: whole(metres), waitingSeconds: whole(waiting), reports: track.count - 1, track: driven)
    }

    /// No cab drives faster than this between two reports (130 km/h).
    static let fastestMetresPerSecond = 36.0
    /// Reports closer in time than this are close on the road too: a route much longer
    /// than the straight line between them is an artefact.
    static let denseReportSeconds = 60.0

    /// The road between two reports: the route, unless it cannot be what the cab drove.
    ///
    /// Between reports seconds apart a cab drives nearly straight, so a route more than
    /// twice the straight line (plus 50 m) is an artefact of snapping: a report at a junction
    /// put on the street going the other way, and the route going round the block to turn.
    /// After a longer gap the cab may really have gone round, and the route is kept as long
    /// as no cab could have driven it faster than 130 km/h. Otherwise the straight line is
    /// billed, in the passenger's favour. (With a matcher, only the breaks of the matched
    /// track are billed this way.)
    static func leg(from a: TrackPoint, to b: TrackPoint, road: (Coordinate, Coordinate) -> Double) -> Double {
        let straight = a.position.distance(to: b.position)
        let routed = road(a.position, b.position)
        let seconds = b.time.timeIntervalSince(a.time)
        // Nobody is billed for a jump no cab could drive (a GPS fix that leapt, or a spoofed one).
        let fastest = fastestMetresPerSecond * max(0, seconds)
        if routed <= straight { return min(straight, fastest) }
        if routed <= 2 * straight + 50 { return min(routed, fastest) }
        if seconds > denseReportSeconds, routed <= fastest { return routed }
        return min(straight, fastest)
    }

    /// Rounded, and never a trap: a sum of finite road lengths on one planet is far below 2^63.
    static func whole(_ value: Double) -> Int64 {
        Int64(exactly: value.rounded()) ?? (value > 0 ? Int64(Int32.max) : 0)
    }
}
