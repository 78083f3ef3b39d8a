import Essentials
import Fleet
import Foundation

/// A cab's movement between taxi zones, seen through its position reports.
public struct ZoneEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// The cab reported from inside a zone after being outside every zone (or unseen).
        case entered(zone: Int)
        /// The cab reported from outside every zone after being in one.
        case exited(zone: Int)
        /// The cab reported from another zone than its last.
        case crossed(from: Int, to: Int)
    }
    /// The cab's id.
    public let cab: String
    /// The cab's own event counter, 1, 2, 3, … with no gaps: a consumer that sees a jump
    /// knows exactly how many of this cab's events it missed.
    public let sequence: UInt64
    /// The zone change (zone indices into the dispatcher's `ZoneSet`).
    public let kind: Kind
    /// The time of the report that caused it.
    public let time: Date

    /// An event (for consumers' own tests and replays).
    public init(cab: String, sequence: UInt64, kind: Kind, time: Date) {
        self.cab = cab; self.sequence = sequence; self.kind = kind; self.time = time
    }
}

/// What a zone-event subscription yields: the events in order, and, where the buffer was
/// full, how many were dropped at that point (never silently).
public enum ZoneEventDelivery: Sendable, Equatable {
    /// The next event.
    case event(ZoneEvent)
    /// This many events were dropped here because the subscriber fell `capacity` behind;
    /// the per-cab sequence numbers tell which.
    case dropped(Int)
}

/// A subscription to a dispatcher's zone events: an `AsyncSequence` with a bounded buffer.
///
/// Why drop-and-count rather than back-pressure: events are produced inside position
/// reports, which must not wait for a slow consumer (a gateway streaming thousands of
/// reports a second would stall behind a dashboard). So a full buffer drops the newest
/// events and delivers a `.dropped(n)` marker in their place as soon as there is room; the
/// sum of delivered events and dropped counts is always the number produced.
///
/// `Sendable`: the buffer sits behind a lock. One task should iterate it.
public final class ZoneEventSubscription: AsyncSequence, Sendable {
    /// The element type: events and drop markers.
    public typealias Element = ZoneEventDelivery

    struct State {
        var buffer: [ZoneEventDelivery] = []
        var head = 0
        var pendingDrops = 0
        var waiting: CheckedContinuation<ZoneEventDelivery?, Never>?
        var finished = false
        var delivered = 0
        var dropped = 0
    }
    /// How many deliveries the buffer holds before it drops.
    public let capacity: Int
    let state: Locked<State>

    init(capacity: Int) {
        self.capacity = Swift.max(2, capacity)
        state = Locked(State())
    }

    /// Events produced for this subscriber so far: delivered into the buffer plus dropped.
    public var produced: Int { state.withLock { $0.delivered + $0.dropped } }

    /// Called by the dispatcher for every event, in order.
    func publish(_ event: ZoneEvent) {
        let resume: (CheckedContinuation<ZoneEventDelivery?, Never>, ZoneEventDelivery)? = state.withLock { s in
            guard !s.finished else { return nil }
            if let w = s.waiting {
                s.waiting = nil
                s.delivered += 1
                return (w, .event(event))
            }
            let count = s.buffer.count - s.head
            // A pending drop marker takes a slot of its own before the event.
            let needed = s.pendingDrops > 0 ? 2 : 1
            guard count + needed <= capacity else { s.pendingDrops += 1; s.dropped += 1; return nil }
            if s.pendingDrops > 0 { s.buffer.append(.dropped(s.pendingDrops)); s.pendingDrops = 0 }
            s.buffer.append(.event(event))
            s.delivered += 1
            return nil
        }
        if let (w, e) = resume { w.resume(returning: e) }
    }

    /// Ends the sequence after what is buffered (and a final drop marker, if any).
    public func finish() {
        let w: CheckedContinuation<ZoneEventDelivery?, Never>? = state.withLock { s in
            s.finished = true
            defer { s.waiting = nil }
            return s.waiting
        }
        w?.resume(returning: nil)
    }

    /// Takes the next delivery without waiting: nil when nothing is buffered.
    public func poll() -> ZoneEventDelivery? { state.withLock { Self.take(&$0) } }

    fileprivate static func take(_ s: inout State) -> ZoneEventDelivery? {
        if s.head < s.buffer.count {
            let e = s.buffer[s.head]
            s.head += 1
            if s.head > 1024, s.head * 2 > s.buffer.count { s.buffer.removeFirst(s.head); s.head = 0 }
            return e
        }
        if s.pendingDrops > 0 { defer { s.pendingDrops = 0 }; return .dropped(s.pendingDrops) }
        return nil
    }

    /// The iterator: waits for the next delivery, nil once finished and drained.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: ZoneEventSubscription
        /// The next delivery.
        public mutating func next() async -> ZoneEventDelivery? {
            let s = subscription
            if let e = s.poll() { return e }
            return await withCheckedContinuation { (c: CheckedContinuation<ZoneEventDelivery?, Never>) in
                let ready: ZoneEventDelivery?? = s.state.withLock { st in
                    if let e = Self.takeAgain(&st) { return .some(e) }
                    if st.finished { return .some(nil) }
                    st.waiting = c
                    return .none
                }
                if let ready { c.resume(returning: ready) }
            }
        }

        private static func takeAgain(_ s: inout State) -> ZoneEventDelivery? { ZoneEventSubscription.take(&s) }
    }

    /// Iterates the deliveries.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: self) }
}
