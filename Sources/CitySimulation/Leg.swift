import Foundation
import Geodesy

/// A cab driving one routed path at the route's speeds: where it is at any time.
///
/// Shared by the engine-only simulation and the one that books through the services, so
/// that both move cabs the same way.
package struct Leg: Sendable {
    /// The path's points, from the start to the end.
    package let points: [Coordinate]
    /// Metres from the start to each point.
    package let cumulative: [Double]
    /// When the cab set off.
    package let start: Date
    /// How long the path takes, in seconds.
    package let duration: Double

    /// A leg along `points` (at least one) that takes `duration` seconds from `start`.
    package init(points: [Coordinate], start: Date, duration: Double) {
        var cumulative = [0.0]
        cumulative.reserveCapacity(points.count)
        for (a, b) in zip(points, points.dropFirst()) { cumulative.append(cumulative.last! + a.distance(to: b)) }
        self.points = points
        self.cumulative = cumulative
        self.start = start
        self.duration = duration
    }

    /// The path's length in metres.
    package var metres: Double { cumulative.last ?? 0 }

    /// Where the cab is at `t`: interpolated along the path at constant speed, the start
    /// before it set off and the end after it arrived.
    package func position(at t: Date) -> Coordinate {
        let share = duration <= 0 ? 1 : min(1, max(0, t.timeIntervalSince(start) / duration))
        let target = share * metres
        var lo = 0, hi = cumulative.count - 1
        while lo < hi { let m = (lo + hi + 1) / 2; if cumulative[m] <= target { lo = m } else { hi = m - 1 } }
        guard lo + 1 < points.count else { return points[lo] }
        let span = cumulative[lo + 1] - cumulative[lo]
        let f = span > 0 ? (target - cumulative[lo]) / span : 0
        let a = points[lo], b = points[lo + 1]
        return Coordinate(unchecked: a.latitude + f * (b.latitude - a.latitude), a.longitude + f * (b.longitude - a.longitude))
    }
}
