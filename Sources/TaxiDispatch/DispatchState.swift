import Fleet
import Foundation
import Geodesy
import RoadGraph

/// Everything a dispatcher changes, kept under its one lock.
///
/// The zone queues are intrusive doubly linked lists over the cab records (`prev`, `next`
/// slot numbers), so joining the tail, leaving from anywhere and moving to the bottom are
/// O(1) with no allocation, and a queue is walked head first without a copy.
struct DispatchState {
    struct CabRecord {
        let profile: CabProfile
        let handle: CabHandle
        var status: CabStatus = .unattended
        var position: Coordinate?
        var lastReport: Date?
        /// The zone of the last position, -1 outside every zone or before the first report.
        var zone: Int32 = -1
        var queued = false
        /// The zone whose queue holds the cab while `queued` (its zone when it joined: a zone
        /// change unlinks it before it joins the new one).
        var queueZone: Int32 = -1
        /// The number of the cab's latest join of a queue's tail: within one queue, a lower
        /// number is nearer the head.
        var queueTicket: UInt64 = 0
        var prev: Int32 = -1, next: Int32 = -1
        var eventSequence: UInt64 = 0
        var offer: UInt64?
        /// The road snap of `snappedAt` (the position it was made for).
        var snap: Snap?
        var snappedAt: Coordinate?

        init(profile: CabProfile, handle: CabHandle) { self.profile = profile; self.handle = handle }
    }

    struct Queue { var head: Int32 = -1, tail: Int32 = -1, count = 0 }

    struct RequestRecord {
        let request: RideRequest
        let snap: Snap
        let zone: Int
        let parameters: SelectionParameters
        let opened: Date
        let deadline: Date
        var offer: UInt64?
        var asked: [Int: Int] = [:]
        var offersMade = 0
        var etaOfOffer: ETA?
        var retryPending = false
        var loggedCandidates: [String]?
        var ended: RequestStatus?

        init(request: RideRequest, snap: Snap, zone: Int, parameters: SelectionParameters, opened: Date, deadline: Date) {
            self.request = request; self.snap = snap; self.zone = zone; self.parameters = parameters
            self.opened = opened; self.deadline = deadline
        }
    }

    enum Deadline { case offerLapse(UInt64), searchLimit(RequestID), retry(RequestID) }

    var cabs: [CabRecord] = []
    var slotOfID: [String: Int] = [:]
    /// Each registered cab's slot by its fleet handle: what a handle search answers with.
    var slotOfHandle: [CabHandle: Int] = [:]
    /// The handle search's buffer, kept from search to search.
    var nearby: [NearbyCab] = []
    var queues: [Queue]
    var requests: [RequestID: RequestRecord] = [:]
    var openByCustomer: [String: RequestID] = [:]
    var offers: [UInt64: Offer] = [:]
    var nextRequest: UInt64 = 0
    var nextOffer: UInt64 = 0
    var deadlines = TimedHeap<Deadline>()
    /// When each cab's latest report goes stale (older entries are skipped when popped).
    var staleHeap = StaleHeap()
    var wakeScheduled: Date?
    /// Requests with no offer out, waiting for a candidate (their retry is scheduled).
    var waiting = Set<RequestID>()
    /// Cabs that, during the current call, joined a queue or were freed of an offer.
    var freedCabs: [Int] = []
    var subscriptions: [ZoneEventSubscription] = []
    let router: Router
    let workspace = FleetWorkspace()
    var tickets: UInt64 = 0

    init(zoneCount: Int, router: Router) {
        queues = .init(repeating: Queue(), count: zoneCount)
        self.router = router
    }

    /// Joins the tail of a zone's queue.
    mutating func append(_ slot: Int, zone: Int) {
        let tail = queues[zone].tail
        cabs[slot].prev = tail; cabs[slot].next = -1; cabs[slot].queued = true; cabs[slot].queueZone = Int32(zone)
        tickets += 1
        cabs[slot].queueTicket = tickets
        if tail >= 0 { cabs[Int(tail)].next = Int32(slot) } else { queues[zone].head = Int32(slot) }
        queues[zone].tail = Int32(slot)
        queues[zone].count += 1
    }

    /// Leaves whatever queue the cab is in (the one of its recorded zone).
    mutating func unlink(_ slot: Int) {
        guard cabs[slot].queued else { return }
        let zone = Int(cabs[slot].queueZone)
        let p = cabs[slot].prev, n = cabs[slot].next
        if p >= 0 { cabs[Int(p)].next = n } else { queues[zone].head = n }
        if n >= 0 { cabs[Int(n)].prev = p } else { queues[zone].tail = p }
        cabs[slot].prev = -1; cabs[slot].next = -1; cabs[slot].queued = false
        queues[zone].count -= 1
    }

    /// The cab's road snap, recomputed only when it has moved.
    mutating func snap(of slot: Int, within limit: Double) -> Snap? {
        guard let p = cabs[slot].position else { return nil }
        if cabs[slot].snappedAt != p {
            cabs[slot].snap = try? router.snap(p, within: limit)
            cabs[slot].snappedAt = p
        }
        return cabs[slot].snap
    }
}
