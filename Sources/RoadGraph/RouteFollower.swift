import Foundation
import Geodesy

/// How a ``RouteFollower`` tells a cab that left its route from one on it.
public struct FollowSettings: Sendable, Equatable {
    /// The matcher's settings for the reports (their GPS error).
    public var match: MatchSettings
    /// A report matched farther than this from the route, in metres, is off it. The matched
    /// position is on a road, so on the route's own roads it is within rounding of the line:
    /// the margin only has to cover the geometry of a junction.
    public var offRouteMetres: Double
    /// … and the report itself farther than this from the line, in metres.
    public var reportOffRouteMetres: Double
    /// A report matched onto the route but this much farther from it than from the nearest
    /// road is off it (the match held it on a road stacked over the one it is on).
    public var reportFarMetres: Double
    /// A report matched this far behind the farthest point reached along the route, in
    /// metres, is off it too: the cab turned back along the road it was shown.
    public var backwardMetres: Double
    /// How many reports in a row must be off the route before it is taken as left.
    public var reportsToConfirm: Int
    /// How many of the latest reports are matched together at each report.
    public var window: Int
    /// Within this many metres of the route's end (along it) the cab has arrived: nothing more is followed.
    public var arrivedMetres: Double

    /// Settings for reports with GPS error `gpsSigmaMetres`: a report is off the route when
    /// matched beyond 20 m of it (or 60 m back along it) and itself beyond 1.5σ (at least
    /// 10 m) of it, or when matched on it but 1.5σ (at least 12 m) farther from it than from
    /// the nearest road; the route is left after two such reports in a row; the last 8
    /// reports are matched together; the cab has arrived within 5σ (at least 40 m) of the
    /// end, along the route.
    ///
    /// Why both the match and the report: Monaco's stacked and parallel roads make the
    /// matcher put a cab that is on its route on the road beside it for a report or two
    /// (the last report of a window has no later one to settle it), and a noisy report
    /// alone cannot tell a street from the next one. Tuned on the simulator's drivers
    /// (`DeviationTests`): every wrong turn caught by the second report 30 m (or 4σ) off
    /// the route, no deviation on 43 clean trips at σ 5 and 10 m every 2 and 5 s.
    public init(gpsSigmaMetres: Double = 10, offRouteMetres: Double = 20, backwardMetres: Double = 60, reportsToConfirm: Int = 2,
                window: Int = 8, arrivedMetres: Double? = nil) {
        match = MatchSettings(gpsSigmaMetres: gpsSigmaMetres)
        self.offRouteMetres = max(1, offRouteMetres.isFinite ? offRouteMetres : 20)
        reportOffRouteMetres = max(10, 1.5 * match.gpsSigmaMetres)
        reportFarMetres = max(12, 1.5 * match.gpsSigmaMetres)
        self.backwardMetres = max(1, backwardMetres.isFinite ? backwardMetres : 60)
        self.reportsToConfirm = max(1, reportsToConfirm)
        self.window = max(2, window)
        self.arrivedMetres = max(0, arrivedMetres.flatMap { $0.isFinite ? $0 : nil } ?? max(40, 5 * match.gpsSigmaMetres))
    }
}

/// What one report told a ``RouteFollower``.
public enum FollowStep: Sendable, Equatable {
    /// The cab is on the route, this many metres along it.
    case onRoute(metresAlong: Double)
    /// This report is off the route, but not yet enough of them in a row to say so.
    case offRoute(count: Int)
    /// The cab left the route: ``RouteFollower/route`` is now a new route from `at` (where
    /// the cab was matched) to the same end.
    case deviated(at: Coordinate)
    /// The cab left the route, and no new route from where it is reaches the end: the old
    /// route is kept.
    case deviatedWithoutRoute(at: Coordinate)
    /// The report matched no road (an outlier, or no road within reach): nothing learnt.
    case unknown
    /// The cab is at the route's end; later reports are not followed.
    case arrived
}

/// Follows a cab along the route a passenger was shown, report by report, and notices when
/// it leaves it: each report is matched to the road together with the few before it (a
/// ``Matcher``), and the matched position and the report itself are placed on the route's
/// line (the rules are ``FollowSettings``'); ``FollowSettings/reportsToConfirm`` reports
/// off the route in a row and the cab has left it, and a new route is taken from where it is.
///
/// Why match rather than take the report: a raw fix 20 m from the route says nothing on a
/// street 20 m wide, and a matched one is on a road: on the route's roads it lies on the
/// route's line.
///
/// A value: each tracked trip keeps its own, and the caller keeps it behind its own lock.
public struct RouteFollower: Sendable {
    /// The route followed now (the one shown, or the latest taken after a deviation).
    public private(set) var route: Route
    /// Where the route ends: the pickup or destination it was asked for.
    public let destination: Coordinate
    /// How far along the route the cab has come, in metres.
    public private(set) var metresAlong: Double = 0
    /// How many times the cab left its route.
    public private(set) var deviations = 0
    /// Whether the cab reached the end.
    public private(set) var hasArrived = false
    /// The settings.
    public let settings: FollowSettings
    var recent: [TracePoint] = []
    /// How far each of `recent` is from the nearest road (metres).
    var nearestRoad: [Double] = []
    var offInARow = 0
    /// When the cab was last placed on the route.
    var lastTime: Double?
    /// The route's line in a local frame, and the metres along it at each point.
    var frame: LocalFrame
    var line: [LocalPoint] = []
    var along: [Double] = []

    /// Follows `route`, which ends at `destination`.
    public init(route: Route, to destination: Coordinate, settings: FollowSettings = FollowSettings()) {
        self.route = route
        self.destination = destination
        self.settings = settings
        frame = LocalFrame(origin: route.geometry.first ?? destination)
        take(route)
    }

    mutating func take(_ route: Route) {
        self.route = route
        frame = LocalFrame(origin: route.geometry.first ?? destination)
        line = route.geometry.map(frame.project)
        along = [0]
        for (a, b) in zip(line, line.dropFirst()) { along.append(along[along.count - 1] + a.distance(to: b)) }
        metresAlong = 0
        offInARow = 0
    }

    /// The route still ahead: from the point reached to the end.
    public var remainingGeometry: [Coordinate] {
        guard let k = along.firstIndex(where: { $0 > metresAlong }), k > 0 else { return hasArrived ? [] : route.geometry }
        let a = line[k - 1], b = line[k], span = along[k] - along[k - 1]
        let t = span > 0 ? (metresAlong - along[k - 1]) / span : 0
        let here = frame.unproject(LocalPoint(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y)))
        return [here] + route.geometry[k...]
    }

    /// Metres of road still ahead.
    public var remainingMetres: Double {
        guard let total = along.last, total > 0 else { return 0 }
        return max(0, route.distanceMetres * (total - metresAlong) / total)
    }

    /// Seconds still ahead, at the route's own pace.
    public var remainingSeconds: Double {
        guard let total = along.last, total > 0 else { return 0 }
        return max(0, route.durationSeconds * (total - metresAlong) / total)
    }

    /// Weighs one report (in time order) with `matcher`, re-routing on its router when the
    /// cab has left the route.
    public mutating func observe(_ report: TracePoint, matcher: Matcher) -> FollowStep {
        guard !hasArrived else { return .arrived }
        recent.append(report)
        nearestRoad.append(matcher.router.candidates(of: report.coordinate, within: settings.match.searchRadiusMetres, count: 1).first?.metres
                           ?? settings.match.searchRadiusMetres)
        if recent.count > settings.window {
            recent.removeFirst(recent.count - settings.window)
            nearestRoad.removeFirst(nearestRoad.count - settings.window)
        }
        let points = matcher.match(recent, settings: settings.match).points
        guard let latest = points.last, let matched = latest else { return .unknown }
        // No farther along than a cab could have driven since it was last placed (50 m/s).
        let ahead = report.time.flatMap { t in lastTime.map { 50 * max(0, t - $0) + 100 } } ?? .infinity
        let (offset, off) = judge(matched, report.coordinate, nearestRoad: nearestRoad[nearestRoad.count - 1], ahead: ahead)
        guard off else {
            offInARow = 0
            if let offset {
                metresAlong = max(metresAlong, offset)
                lastTime = report.time ?? lastTime
            }
            // By the way along the route, not the distance to its end: a route may pass near
            // its end before it gets there (a one-way loop round the block).
            if let total = along.last, total - metresAlong <= settings.arrivedMetres {
                metresAlong = total
                hasArrived = true
                return .arrived
            }
            return .onRoute(metresAlong: metresAlong)
        }
        // The reports before this one that counted against the route, judged again now that
        // this one is known (a slip of the matcher at the end of a window is often undone by
        // the next report): the run of reports off the route is counted afresh.
        var run = 1
        for k in points.indices.dropLast().reversed().prefix(offInARow) {
            guard let earlier = points[k], judge(earlier, recent[k].coordinate, nearestRoad: nearestRoad[k], ahead: ahead).off else { break }
            run += 1
        }
        offInARow = run
        guard offInARow >= settings.reportsToConfirm else { return .offRoute(count: offInARow) }
        deviations += 1
        offInARow = 0
        guard let next = try? matcher.router.route(from: matched.coordinate, to: destination) else {
            return .deviatedWithoutRoute(at: matched.coordinate)
        }
        take(next)
        lastTime = report.time
        // The reports before the turn belong to the old route: the new one starts here.
        recent = [report]
        nearestRoad = [nearestRoad[nearestRoad.count - 1]]
        return .deviated(at: matched.coordinate)
    }

    /// Whether a report counts against the route, and where along the route it lies when it
    /// is on it.
    ///
    /// - Matched off the route (more than ``FollowSettings/offRouteMetres`` from its line, or
    ///   far behind the point reached: a turn back): off when the report itself is more than
    ///   ``FollowSettings/reportOffRouteMetres`` from the line. A report by the route matched
    ///   to a road beside it, or to the other carriageway, is the matcher's slip between
    ///   stacked or parallel roads, not a turn.
    /// - Matched on the route: off when the report is more than
    ///   ``FollowSettings/reportFarMetres`` farther from the route than from the nearest
    ///   road. The match can keep a cab on a road stacked over its real one for a report or
    ///   two; but a cab in a rank or a car park 30 m off its road is no nearer any other road,
    ///   and stays on its route.
    func judge(_ matched: MatchedPoint, _ raw: Coordinate, nearestRoad: Double, ahead: Double) -> (offset: Double?, off: Bool) {
        let report = place(frame.project(raw), ahead: ahead)
        let (offset, distance) = place(frame.project(matched.coordinate), ahead: ahead)
        if distance <= settings.offRouteMetres, offset >= metresAlong - settings.backwardMetres {
            return report.distance - nearestRoad > settings.reportFarMetres ? (nil, true) : (offset, false)
        }
        return report.distance > settings.reportOffRouteMetres ? (nil, true) : (report.offset, false)
    }





    /// The nearest point of the route's line to `p`: metres along the route and metres away.
    ///
    /// Only the stretch from 200 m behind the point reached to `ahead` metres beyond it is
    /// searched. Where the line passes within a metre of the best more than once (a street
    /// driven down and back up, a loop), the first such place not behind the point reached
    /// wins: the cab drives the route in order.
    func place(_ p: LocalPoint, ahead: Double = .infinity) -> (offset: Double, distance: Double) {
        guard let first = line.first else { return (0, .infinity) }
        if line.count == 1 { return (0, first.distance(to: p)) }
        var found: [(offset: Double, distance: Double)] = []
        for k in line.indices.dropFirst() where along[k] >= metresAlong - 200 && along[k - 1] <= metresAlong + ahead {
            let a = line[k - 1], b = line[k]
            let dx = b.x - a.x, dy = b.y - a.y, len2 = dx * dx + dy * dy
            let t = len2 > 0 ? min(1, max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2)) : 0
            found.append((along[k - 1] + t * (along[k] - along[k - 1]), LocalPoint(x: a.x + t * dx, y: a.y + t * dy).distance(to: p)))
        }
        guard let nearest = found.map(\.distance).min() else { return (metresAlong, .infinity) }
        let ties = found.filter { $0.distance <= nearest + 1 }
        let slack = settings.backwardMetres / 2
        if let next = ties.filter({ $0.offset >= metresAlong - slack }).min(by: { $0.offset < $1.offset }) { return next }
        return ties.min { abs($0.offset - metresAlong) < abs($1.offset - metresAlong) }!
    }
}
