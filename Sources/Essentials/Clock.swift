import Foundation

/// Where a fleet reads the time: for staleness, for refusing reports from the future, and
/// for deciding when to publish.
///
/// Why injected: timed rules (a cab stale after 120 s, a snapshot at most 50 ms old) must be
/// testable without sleeping, and a simulation runs a day of a city in seconds.
public protocol FleetClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The system's wall clock.
public struct SystemClock: FleetClock {
    /// The wall clock.
    public init() {}
    /// `Date()`.
    public func now() -> Date { Date() }
}

/// A clock that moves only when told: for tests and simulations.
///
/// `Sendable`: its time sits behind a lock, so a simulation thread may advance it while
/// others read it.
public final class ManualClock: FleetClock {
    private let time: Locked<Date>

    /// A clock showing `start`.
    public init(_ start: Date) { time = Locked(start) }

    /// The time the clock shows.
    public func now() -> Date { time.withLock { $0 } }

    /// Moves the clock forward (or back, for a negative interval).
    public func advance(by seconds: TimeInterval) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }

    /// Sets the clock to `date`.
    public func set(_ date: Date) { time.withLock { $0 = date } }
}

extension Duration {
    /// The duration in seconds, as a `Double` (attoseconds included): the one conversion
    /// the timings of imports, simulations and stores use.
    package var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
