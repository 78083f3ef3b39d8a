import Essentials
import Fleet
import Foundation

/// Where the dispatcher's timers run: the 15-second offer timeout, the 2-minute search
/// limit, retries, and cabs going stale.
///
/// Why injected: the timed rules must be tested without sleeping, and a simulated day must
/// run in seconds. The dispatcher keeps its own deadlines and only asks to be woken at the
/// earliest; a wake that finds nothing due does nothing, so a scheduler may wake early,
/// late or twice without breaking a rule (a late wake makes a timeout late by as much).
public protocol DispatchScheduler: Sendable {
    /// The clock the deadlines are read on.
    var clock: any FleetClock { get }
    /// Calls `work` once, at `date` or as soon as possible after it.
    func wake(at date: Date, _ work: @escaping @Sendable () -> Void)
}

/// Real time: the system clock and a dispatch queue's timers.
public struct SystemScheduler: DispatchScheduler {
    /// The wall clock.
    public let clock: any FleetClock = SystemClock()
    private let queue: DispatchQueue

    /// A scheduler that runs its work on a serial queue of its own.
    public init() { queue = DispatchQueue(label: "wayfare.dispatch.timers") }

    /// Schedules `work` on the queue after the time left until `date`.
    public func wake(at date: Date, _ work: @escaping @Sendable () -> Void) {
        let seconds = max(0, date.timeIntervalSinceNow)
        queue.asyncAfter(deadline: .now() + seconds, execute: work)
    }
}

/// Simulated time: a clock that moves only when the scheduler is advanced, running every
/// piece of work that falls due on the way in time order (ties in the order scheduled).
///
/// `Sendable`: its queue and time sit behind a lock; work runs outside the lock on the
/// thread that calls `advance`, so work may schedule more work.
public final class VirtualScheduler: DispatchScheduler, FleetClock {
    private struct State { var now: Date; var queue = TimedHeap<@Sendable () -> Void>() }
    private let state: Locked<State>

    /// A scheduler whose clock shows `start`.
    public init(start: Date) { state = Locked(State(now: start)) }

    /// Itself: the virtual clock.
    public var clock: any FleetClock { self }

    /// The virtual time.
    public func now() -> Date { state.withLock { $0.now } }

    /// Queues `work` for `date` (a past date runs at the next `advance`).
    public func wake(at date: Date, _ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.queue.push(date, work) }
    }

    /// Work queued and not yet run.
    public var pendingCount: Int { state.withLock { $0.queue.count } }

    /// The time of the earliest queued work, if any.
    public var nextDate: Date? { state.withLock { $0.queue.first?.date } }

    /// Moves the clock to `date`, running each piece of work due by then at its own time.
    /// The clock never moves backwards.
    public func advance(to date: Date) {
        while true {
            let next: (@Sendable () -> Void)? = state.withLock { s in
                guard let first = s.queue.first, first.date <= date else { return nil }
                s.queue.pop()
                s.now = max(s.now, first.date)
                return first.what
            }
            guard let next else { break }
            next()
        }
        state.withLock { $0.now = max($0.now, date) }
    }

    /// Moves the clock forward by `seconds`.
    public func advance(by seconds: TimeInterval) { advance(to: now().addingTimeInterval(seconds)) }
}
