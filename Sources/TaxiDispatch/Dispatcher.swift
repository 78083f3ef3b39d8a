import Essentials
import Fleet
import Foundation
import Geodesy
import RoadGraph
import Zones

/// Dispatch for one city: zone queues of available taxis, zone events, and requests offered
/// to one driver at a time with timeouts, on a `Fleet` it owns.
///
/// The specification's rules, each a `Configuration` value with its default: an offer
/// lapses after 15 s; no cab is asked more than twice per request; no offer is made more
/// than 2 minutes after the request, which then ends as "service cannot be delivered" (an
/// offer already out at that moment keeps its 15 s); only cabs within 30 minutes by road are
/// candidates. A decline or a lapse sends the cab to the bottom of its zone queue. When the
/// pickup's zone has no candidate, its neighbouring zones are searched (switchable).
///
/// Positions and statuses must come through the dispatcher (`report`, `setStatus`) so that
/// the queues follow them; `fleet` is exposed for searches.
///
/// Concurrency: every operation runs under one lock (a decision with 50 ETAs takes tens of
/// microseconds), so many threads may report, request and answer at once; notifications
/// are delivered after the lock is released, on the calling thread. Timers come from the
/// injected `DispatchScheduler`. `Sendable` for that reason: all mutable state is behind
/// the lock, and the router inside it is used only there.
public final class Dispatcher: Sendable {
    /// The rules' numbers.
    public struct Configuration: Sendable {
        /// Seconds a driver has to answer an offer.
        public var offerTimeout: TimeInterval = 15
        /// Seconds a search may last before the request ends unserved.
        public var searchLimit: TimeInterval = 120
        /// How many times one cab may be offered one request.
        public var maxOffersPerCab = 2
        /// The most road seconds from a candidate to the pickup.
        public var maxETASeconds: Double = 1800
        /// The most candidates gathered and given ETAs per decision.
        public var maxCandidates = 50
        /// Search the neighbouring zones when the pickup's has no candidate.
        public var neighbourZones = true
        /// Seconds between searches while a request finds no candidate. A waiting request is
        /// searched again at once when a cab that could serve it joins a queue or is freed of
        /// an offer; the retry is the safety net for what no event announces (a cab driving
        /// into the ETA limit).
        public var retryInterval: TimeInterval = 30
        /// The most metres from a road a pickup or cab is snapped.
        public var maxSnapMetres: Double = 1000
        /// The specification's values.
        public init() {}
    }

    /// The fleet the dispatcher keeps: search it freely; report through the dispatcher.
    public let fleet: Fleet
    /// The zones the queues follow.
    public let zones: ZoneSet
    /// The rules' numbers.
    public let configuration: Configuration
    let policy: any DispatchPolicy
    let hooks: DispatchHooks
    let scheduler: any DispatchScheduler
    let log: (any DecisionLog)?
    let notify: (@Sendable (DispatchNotification) -> Void)?
    let state: Locked<DispatchState>

    /// A dispatcher for a city: its zones, its road network (for ETAs and routes), and the
    /// fleet's configuration. `notify` receives offers for drivers and outcomes for
    /// customers; `log` every decision.
    public init(zones: ZoneSet, network: RoadNetwork, fleetConfiguration: Fleet.Configuration = .init(),
                configuration: Configuration = .init(), policy: any DispatchPolicy = ZoneQueuePolicy(),
                hooks: DispatchHooks = .init(), scheduler: any DispatchScheduler = SystemScheduler(),
                log: (any DecisionLog)? = nil,
                notify: (@Sendable (DispatchNotification) -> Void)? = nil) throws(DispatchError) {
        do { fleet = try Fleet(configuration: fleetConfiguration, clock: scheduler.clock) } catch { throw .fleet(error) }
        self.zones = zones
        self.configuration = configuration
        self.policy = policy
        self.hooks = hooks
        self.scheduler = scheduler
        self.log = log
        self.notify = notify
        state = Locked(DispatchState(zoneCount: zones.zones.count, router: Router(network: network)))
    }

    // MARK: Cabs

    /// Registers cabs (all or none), unattended and unplaced until they report.
    public func register(_ cabs: [CabProfile]) throws(DispatchError) {
        for c in cabs where c.seats < 1 { throw .invalidCab("cab \"\(c.id)\": seats must be at least 1") }
        try run { s, _ throws(DispatchError) in
            let handles: [CabHandle]
            do throws(FleetError) { handles = try fleet.register(cabs.map { Cab(id: $0.id, type: $0.type) }) } catch { throw .fleet(error) }
            for (c, h) in zip(cabs, handles) {
                s.slotOfID[c.id] = s.cabs.count
                s.slotOfHandle[h] = s.cabs.count
                s.cabs.append(DispatchState.CabRecord(profile: c, handle: h))
            }
        }
    }

    /// Takes a cab out of service for good (its driver changed cab): it leaves its queue and
    /// the fleet, and its reports are refused as an unknown cab's. The id may be registered
    /// again later.
    /// - Throws: `invalidCab` while the cab has an offer outstanding (answer it first), an
    ///   unknown cab's error when it is not registered.
    public func retire(cab id: String) throws(DispatchError) {
        try run { s, _ throws(DispatchError) in
            guard let slot = s.slotOfID[id] else { throw .fleet(.unknownCab(id)) }
            guard s.cabs[slot].offer == nil else { throw .invalidCab("cab \"\(id)\" has an offer outstanding") }
            if s.cabs[slot].queued { s.unlink(slot) }
            s.cabs[slot].status = .unattended
            do throws(FleetError) { try fleet.unregister(id) } catch { throw .fleet(error) }
            s.slotOfID[id] = nil
            s.slotOfHandle[s.cabs[slot].handle] = nil
        }
    }

    /// A position report: moves the cab in the fleet, in the queues, and emits its zone
    /// event if it changed zone. Reports older than the cab's last are ignored (counted by
    /// the fleet).
    @discardableResult
    public func report(cab id: String, position: Coordinate, at time: Date) throws(DispatchError) -> ReportOutcome {
        try run { s, effects throws(DispatchError) in
            guard let slot = s.slotOfID[id] else { throw .fleet(.unknownCab(id)) }
            let outcome: ReportOutcome
            do throws(FleetError) { outcome = try fleet.report(s.cabs[slot].handle, position: position, at: time) } catch { throw .fleet(error) }
            guard outcome == .applied else { return outcome }
            s.cabs[slot].position = position
            s.cabs[slot].lastReport = time
            let zone = Int32(zones.zoneIndex(longitude: position.longitude, latitude: position.latitude))
            let before = s.cabs[slot].zone
            if zone != before {
                s.cabs[slot].zone = zone
                let kind: ZoneEvent.Kind = before < 0 ? .entered(zone: Int(zone))
                    : zone < 0 ? .exited(zone: Int(before)) : .crossed(from: Int(before), to: Int(zone))
                s.cabs[slot].eventSequence += 1
                let event = ZoneEvent(cab: id, sequence: s.cabs[slot].eventSequence, kind: kind, time: time)
                for sub in s.subscriptions { sub.publish(event) }
            }
            // Due a microsecond after the last fresh instant: a cab is fresh while its report is
            // at most `staleAfter` old (the fleet's rule), so it leaves just after.
            s.staleHeap.push(time.addingTimeInterval(fleet.configuration.staleAfter + 1e-6), slot: slot, report: time)
            if s.staleHeap.count > 2 * max(s.cabs.count, 1024) {
                let cabs = s.cabs
                s.staleHeap.compact { cabs[$0.slot].lastReport == $0.report }
            }
            let now = scheduler.clock.now()
            placeInQueue(&s, slot, now: now, movedZone: zone != before)
            serveWaiting(&s, now: now, effects: &effects)
            scheduleWake(&s, effects: &effects)
            return outcome
        }
    }

    /// A driver's status: available drivers join their zone's queue at the bottom; busy or
    /// unattended ones leave it.
    public func setStatus(of id: String, to status: CabStatus) throws(DispatchError) {
        try run { s, effects throws(DispatchError) in
            guard let slot = s.slotOfID[id] else { throw .fleet(.unknownCab(id)) }
            do throws(FleetError) { try fleet.setStatus(of: id, to: status) } catch { throw .fleet(error) }
            s.cabs[slot].status = status
            let now = scheduler.clock.now()
            placeInQueue(&s, slot, now: now, movedZone: false)
            serveWaiting(&s, now: now, effects: &effects)
            scheduleWake(&s, effects: &effects)
        }
    }

    /// The ids of the cabs in a zone's queue, head first.
    public func queue(ofZone zone: Int) -> [String] {
        state.withLock { s in
            guard zone >= 0, zone < s.queues.count else { return [] }
            var out: [String] = []
            var k = s.queues[zone].head
            while k >= 0 { out.append(s.cabs[Int(k)].profile.id); k = s.cabs[Int(k)].next }
            return out
        }
    }

    /// A new subscription to every cab's zone events, from now on, buffering up to
    /// `capacity` deliveries.
    public func zoneEvents(capacity: Int = 65_536) -> ZoneEventSubscription {
        let sub = ZoneEventSubscription(capacity: capacity)
        state.withLock { $0.subscriptions.append(sub) }
        return sub
    }

    // MARK: Requests

    /// Opens a request and makes its first offer (or waits for a candidate). Refused when
    /// the pickup is outside every service area or far from roads, or the customer has
    /// another open request.
    public func request(_ request: RideRequest) throws(DispatchError) -> RequestID {
        guard request.seats >= 1 else { throw .invalidSeats(request.seats) }
        guard zones.isServed(request.pickup) else { throw .outOfServiceArea(request.pickup) }
        return try run { s, effects throws(DispatchError) in
            if let open = s.openByCustomer[request.customer] { throw .customerHasOpenRequest(customer: request.customer, open) }
            let snap: Snap
            do throws(RouteError) { snap = try s.router.snap(request.pickup, within: configuration.maxSnapMetres) } catch { throw .noRoadNearby(request.pickup) }
            let now = scheduler.clock.now()
            s.nextRequest += 1
            let id = RequestID(value: s.nextRequest)
            let zone = zones.zoneIndex(longitude: request.pickup.longitude, latitude: request.pickup.latitude)
            var params = SelectionParameters(maxETASeconds: configuration.maxETASeconds, maxCandidates: configuration.maxCandidates,
                                             neighbourZones: configuration.neighbourZones,
                                             types: request.type.map { [$0] }, minimumSeats: request.seats)
            hooks.adjustSelection?(request, &params)
            s.requests[id] = DispatchState.RequestRecord(request: request, snap: snap, zone: zone, parameters: params,
                                                         opened: now, deadline: now.addingTimeInterval(configuration.searchLimit))
            s.openByCustomer[request.customer] = id
            // Degrees to 7 decimals (about a centimetre), as every Wayfare output writes them.
            record(id, now, .requested(customer: request.customer, latitude: Coordinate.sevenDecimals(request.pickup.latitude),
                                           longitude: Coordinate.sevenDecimals(request.pickup.longitude), zone: zone, type: request.type?.name, seats: request.seats))
            s.deadlines.push(now.addingTimeInterval(configuration.searchLimit), .searchLimit(id))
            advance(&s, id, now: now, effects: &effects)
            scheduleWake(&s, effects: &effects)
            return id
        }
    }

    /// A driver's answer to an offer. Accepting gives the request this cab (busy from now);
    /// declining sends the cab to the bottom of its queue and the request to the next
    /// candidate. An answer after the offer lapsed is `offerNotOutstanding`.
    public func answer(_ offer: UInt64, accept: Bool) throws(DispatchError) {
        try run { s, effects throws(DispatchError) in
            let now = scheduler.clock.now()
            expireDue(&s, now: now, effects: &effects)
            guard let o = s.offers.removeValue(forKey: offer), let slot = s.slotOfID[o.cab] else { throw .offerNotOutstanding(offer) }
            s.cabs[slot].offer = nil
            s.requests[o.request]?.offer = nil
            if accept {
                record(o.request, now, .accepted(cab: o.cab))
                assign(&s, o, slot: slot, now: now, effects: &effects)
            } else {
                refused(&s, o, slot: slot, now: now, effects: &effects, as: .declined(cab: o.cab))
            }
            serveWaiting(&s, now: now, effects: &effects)
            scheduleWake(&s, effects: &effects)
        }
    }

    /// Cancels an open request; its outstanding offer is withdrawn.
    public func cancel(_ id: RequestID) throws(DispatchError) {
        try run { s, effects throws(DispatchError) in
            guard let r = s.requests[id] else { throw .unknownRequest(id) }
            guard r.ended == nil else { throw .requestEnded(id) }
            end(&s, id, .cancelled, now: scheduler.clock.now(), effects: &effects)
        }
    }

    /// Where a request stands.
    public func status(of id: RequestID) throws(DispatchError) -> RequestStatus {
        let found: RequestStatus? = state.withLock { s in
            guard let r = s.requests[id] else { return nil }
            if let ended = r.ended { return ended }
            return .searching(offer: r.offer.flatMap { s.offers[$0] })
        }
        guard let found else { throw .unknownRequest(id) }
        return found
    }

    /// Runs what fell due by now: lapsed offers, ended searches, retries, stale cabs. The
    /// scheduler calls it; calling it more often is harmless.
    public func fire() {
        run { s, effects in
            let now = scheduler.clock.now()
            s.wakeScheduled = nil
            expireDue(&s, now: now, effects: &effects)
            serveWaiting(&s, now: now, effects: &effects)
            scheduleWake(&s, effects: &effects)
        }
    }

    // MARK: Internals

    /// Runs `body` under the lock, then delivers its notifications and wake-ups.
    func run<R, E: Error>(_ body: (inout DispatchState, inout Effects) throws(E) -> R) throws(E) -> R {
        var effects = Effects()
        let result: Result<R, E> = state.withLock { s in
            do throws(E) { return .success(try body(&s, &effects)) } catch { return .failure(error) }
        }
        if let wake = effects.wake {
            scheduler.wake(at: wake) { [weak self] in self?.fire() }
        }
        if let notify { for n in effects.notifications { notify(n) } }
        return try result.get()
    }

    struct Effects {
        var notifications: [DispatchNotification] = []
        var wake: Date?
    }

    func record(_ id: RequestID, _ now: Date, _ kind: DecisionRecord.Kind) {
        log?.append(DecisionRecord(time: now, request: id.value, kind: kind))
    }

    /// Asks the scheduler to wake the dispatcher at the earliest deadline, unless a wake at
    /// or before it is already pending.
    func scheduleWake(_ s: inout DispatchState, effects: inout Effects) {
        let next = [s.deadlines.first?.date, s.staleHeap.first?.date].compactMap { $0 }.min()
        guard let next else { return }
        if let pending = s.wakeScheduled, pending <= next { return }
        s.wakeScheduled = next
        effects.wake = next
    }

    /// Handles every deadline and staleness due at `now`.
    func expireDue(_ s: inout DispatchState, now: Date, effects: inout Effects) {
        while let top = s.staleHeap.first, top.date <= now {
            s.staleHeap.pop()
            let slot = top.slot
            // Only the entry of the cab's latest report counts; older ones are leftovers.
            guard s.cabs[slot].lastReport == top.report else { continue }
            placeInQueue(&s, slot, now: now, movedZone: false)
        }
        while let top = s.deadlines.first, top.date <= now {
            s.deadlines.pop()
            switch top.what {
            case let .offerLapse(offerID):
                guard let o = s.offers.removeValue(forKey: offerID), let slot = s.slotOfID[o.cab] else { continue }
                s.cabs[slot].offer = nil
                s.requests[o.request]?.offer = nil
                effects.notifications.append(.offerWithdrawn(o))
                refused(&s, o, slot: slot, now: now, effects: &effects, as: .timedOut(cab: o.cab))
            case let .searchLimit(id):
                // No new offer after the limit; an offer already out keeps its own 15 s (its
                // answer or lapse ends the request), so a cab found at 1:55 is not withdrawn
                // from a driver who is accepting.
                guard let r = s.requests[id], r.ended == nil, r.offer == nil else { continue }
                end(&s, id, .notServed(r.offersMade == 0 ? .noTaxiAvailable : .noTaxiAccepted), now: now, effects: &effects)
            case let .retry(id):
                guard let r = s.requests[id], r.ended == nil, r.offer == nil, r.retryPending else { continue }
                s.requests[id]?.retryPending = false
                s.waiting.remove(id)
                advance(&s, id, now: now, effects: &effects)
            }
        }
    }

    /// A decline or a lapse (already taken off the books): logged, the cab to the bottom of
    /// its queue (or where the hook says), the request to its next candidate, and the cab
    /// offered to the requests waiting for one.
    func refused(_ s: inout DispatchState, _ o: Offer, slot: Int, now: Date, effects: inout Effects, as kind: DecisionRecord.Kind) {
        record(o.request, now, kind)
        let placement = hooks.placementAfterDecline?(s.cabs[slot].profile.id, Int(s.cabs[slot].zone)) ?? .bottom
        if placement == .bottom, s.cabs[slot].queued {
            s.unlink(slot)
            s.append(slot, zone: Int(s.cabs[slot].zone))
        }
        advance(&s, o.request, now: now, effects: &effects)
        s.freedCabs.append(slot)
    }

    /// Puts the cab where the rules say: in the queue of its zone when available, fresh and
    /// in a zone (at the tail when it enters or changes zone), in none otherwise.
    func placeInQueue(_ s: inout DispatchState, _ slot: Int, now: Date, movedZone: Bool) {
        let c = s.cabs[slot]
        let fresh = c.lastReport.map { $0 >= now.addingTimeInterval(-fleet.configuration.staleAfter) } ?? false
        let belongs = c.status == .available && fresh && c.zone >= 0
        if c.queued && (!belongs || movedZone) { s.unlink(slot) }
        if belongs && !s.cabs[slot].queued {
            s.append(slot, zone: Int(c.zone))
            s.freedCabs.append(slot)
        }
    }

    /// Cabs joined a queue or were freed of an offer: each request waiting for a candidate
    /// that one of them could serve (in its zone, or next to it when neighbours are
    /// searched, and eligible) tries again now, oldest first, instead of at its next retry.
    func serveWaiting(_ s: inout DispatchState, now: Date, effects: inout Effects) {
        guard !s.freedCabs.isEmpty else { return }
        let freed = s.freedCabs
        s.freedCabs.removeAll(keepingCapacity: true)
        guard !s.waiting.isEmpty else { return }
        for id in s.waiting.sorted() {
            guard let r = s.requests[id], r.ended == nil, r.offer == nil, r.zone >= 0 else { continue }
            let useful = freed.contains { slot in
                let z = Int(s.cabs[slot].zone)
                return (z == r.zone || (r.parameters.neighbourZones && zones.adjacency[r.zone].contains(z)))
                    && eligible(s, slot, for: r, staleBefore: now.addingTimeInterval(-fleet.configuration.staleAfter))
            }
            guard useful else { continue }
            s.requests[id]?.retryPending = false
            s.waiting.remove(id)
            advance(&s, id, now: now, effects: &effects)
        }
    }

    /// Whether the cab may be offered the request now. Reads the record's fields in place
    /// (copying a record would retain its strings): this runs for every cab a search walks.
    func eligible(_ s: DispatchState, _ slot: Int, for r: DispatchState.RequestRecord, staleBefore cutoff: Date) -> Bool {
        guard s.cabs[slot].queued, s.cabs[slot].offer == nil, s.cabs[slot].profile.seats >= r.parameters.minimumSeats,
              let last = s.cabs[slot].lastReport, last >= cutoff else { return false }
        if !r.asked.isEmpty, (r.asked[slot] ?? 0) >= configuration.maxOffersPerCab { return false }
        if let types = r.parameters.types, !types.contains(s.cabs[slot].profile.type) { return false }
        return true
    }

    /// Gathers candidates from the given zones' queues and gives them ETAs.
    /// With `nearestOverall`, only the `maxCandidates` nearest of all gathered get ETAs.
    func candidates(_ s: inout DispatchState, _ id: RequestID, zones zoneList: [Int], now: Date,
                    nearestOverall: Bool = false) -> [Candidate] {
        guard let r = s.requests[id] else { return [] }
        let cutoff = now.addingTimeInterval(-fleet.configuration.staleAfter)
        let limit = r.parameters.maxCandidates
        var slots: [Int] = []
        for zone in zoneList where zone >= 0 && zone < s.queues.count {
            if policy.gathering == .nearestFirst, let found = nearestInQueue(&s, zone: zone, for: r, staleBefore: cutoff) {
                slots += found
                continue
            }
            // From the head: the first `limit` eligible (or all, then the nearest `limit`,
            // for a nearest-first policy whose spatial search came back short).
            var k = s.queues[zone].head, zoneSlots: [Int] = []
            while k >= 0 {
                if eligible(s, Int(k), for: r, staleBefore: cutoff) {
                    zoneSlots.append(Int(k))
                    if policy.gathering == .queueOrder && zoneSlots.count == limit { break }
                }
                k = s.cabs[Int(k)].next
            }
            if zoneSlots.count > limit {
                let pickup = r.request.pickup
                zoneSlots = Array(zoneSlots.map { ($0, s.cabs[$0].position!.distance(to: pickup)) }
                    .sorted { ($0.1, s.cabs[$0.0].queueTicket) < ($1.1, s.cabs[$1.0].queueTicket) }.prefix(limit).map(\.0))
            }
            slots += zoneSlots
        }
        if nearestOverall && slots.count > limit {
            let pickup = r.request.pickup
            slots = Array(slots.map { ($0, s.cabs[$0].position!.distance(to: pickup)) }
                .sorted { ($0.1, s.cabs[$0.0].queueTicket) < ($1.1, s.cabs[$1.0].queueTicket) }.prefix(limit).map(\.0))
        }
        var snaps: [Snap?] = []
        snaps.reserveCapacity(slots.count)
        for slot in slots { snaps.append(s.snap(of: slot, within: configuration.maxSnapMetres)) }
        let etas = s.router.etas(to: r.snap, from: snaps, limitSeconds: r.parameters.maxETASeconds)
        var out: [Candidate] = []
        out.reserveCapacity(slots.count)
        for (slot, eta) in zip(slots, etas) {
            guard let eta else { continue }
            let c = s.cabs[slot]
            out.append(Candidate(cab: c.profile.id, type: c.profile.type, seats: c.profile.seats, zone: Int(c.queueZone),
                                 queueOrder: c.queueTicket, straightMetres: c.position!.distance(to: r.request.pickup),
                                 eta: eta, timesAsked: r.asked[slot] ?? 0))
        }
        return out
    }

    /// The `maxCandidates` eligible cabs of a zone's queue nearest the pickup, from the
    /// fleet's R-tree (nearest available cabs, kept when queued in this zone and eligible)
    /// rather than a walk of the whole queue. Nil when the spatial search does not fill the
    /// list (a small fleet, a pickup far from its zone's cabs, or cabs that became available
    /// within the fleet's publish interval and are not searchable yet): then the caller walks
    /// the queue, which is exact. A full list may miss a cab that became available within
    /// the publish interval (50 ms by default).
    func nearestInQueue(_ s: inout DispatchState, zone: Int, for r: DispatchState.RequestRecord, staleBefore cutoff: Date) -> [Int]? {
        let limit = r.parameters.maxCandidates
        guard s.queues[zone].count > limit else { return nil }
        for k in [4 * limit, 16 * limit] {
            // Handles, not records: the queue's own state decides, so no cab record is read.
            fleet.nearest(k, to: r.request.pickup, types: r.parameters.types, using: s.workspace, into: &s.nearby)
            var out: [Int] = []
            for m in s.nearby {
                guard let slot = s.slotOfHandle[m.handle], s.cabs[slot].queued, s.cabs[slot].queueZone == Int32(zone),
                      eligible(s, slot, for: r, staleBefore: cutoff) else { continue }
                out.append(slot)
                if out.count == limit { return out }
            }
            if s.nearby.count < k { return nil }
        }
        return nil
    }

    /// Offers the request to its next candidate, or waits for one.
    func advance(_ s: inout DispatchState, _ id: RequestID, now: Date, effects: inout Effects) {
        guard let r = s.requests[id], r.ended == nil, r.offer == nil else { return }
        if now >= r.deadline {
            end(&s, id, .notServed(r.offersMade == 0 ? .noTaxiAvailable : .noTaxiAccepted), now: now, effects: &effects)
            return
        }
        // A pickup inside a service area but outside every taxi zone has no queue of its
        // own: every zone's queue is searched (nearest first), so it is still served.
        var list = r.zone >= 0 ? candidates(&s, id, zones: [r.zone], now: now)
            : candidates(&s, id, zones: Array(s.queues.indices), now: now, nearestOverall: true)
        policy.rank(&list, for: r.request)
        if list.isEmpty && r.parameters.neighbourZones && r.zone >= 0 {
            // Neighbouring zones, nearest first by ETA: a zone's best candidate sets its order.
            list = candidates(&s, id, zones: zones.adjacency[r.zone], now: now)
            policy.rank(&list, for: r.request)
            let bestOfZone = Dictionary(list.map { ($0.zone, $0.eta.seconds) }, uniquingKeysWith: min)
            list = list.enumerated().sorted { a, b in
                (bestOfZone[a.element.zone]!, a.element.zone, a.offset) < (bestOfZone[b.element.zone]!, b.element.zone, b.offset)
            }.map(\.element)
        }
        var choice: Int? = list.isEmpty ? nil : 0
        if !list.isEmpty, let hook = hooks.reservation {
            switch hook(r.request, list) {
            case .proceed: break
            case let .offer(i): choice = list.indices.contains(i) ? i : 0
            case .hold: choice = nil
            }
        }
        // Logged before every offer, and while a request waits only when the list changed,
        // so that its retries do not repeat the same (usually empty) list.
        let names = list.map(\.cab)
        if choice != nil || s.requests[id]!.loggedCandidates != names {
            s.requests[id]!.loggedCandidates = names
            record(id, now, .candidates(cabs: names, etaSeconds: list.map(\.eta.seconds)))
        }
        guard let choice else {
            if !r.retryPending {
                s.requests[id]?.retryPending = true
                s.waiting.insert(id)
                s.deadlines.push(min(r.deadline, now.addingTimeInterval(configuration.retryInterval)), .retry(id))
            }
            return
        }
        let c = list[choice], slot = s.slotOfID[c.cab]!
        s.nextOffer += 1
        let offer = Offer(id: s.nextOffer, request: id, customer: r.request.customer, pickup: r.request.pickup, cab: c.cab, etaSeconds: c.eta.seconds,
                          expires: now.addingTimeInterval(configuration.offerTimeout))
        s.offers[offer.id] = offer
        s.cabs[slot].offer = offer.id
        s.requests[id]!.offer = offer.id
        s.requests[id]!.asked[slot, default: 0] += 1
        s.requests[id]!.offersMade += 1
        s.requests[id]!.etaOfOffer = c.eta
        record(id, now, .offered(cab: c.cab, etaSeconds: c.eta.seconds, attempt: s.requests[id]!.asked[slot]!))
        s.deadlines.push(offer.expires, .offerLapse(offer.id))
        effects.notifications.append(.offer(offer))
    }

    /// Gives the request the cab that accepted: busy, out of its queue, with its route.
    func assign(_ s: inout DispatchState, _ o: Offer, slot: Int, now: Date, effects: inout Effects) {
        guard let r = s.requests[o.request] else { return }
        try? fleet.setStatus(of: o.cab, to: .busy)
        s.cabs[slot].status = .busy
        placeInQueue(&s, slot, now: now, movedZone: false)
        let eta = r.etaOfOffer ?? ETA(seconds: o.etaSeconds, metres: 0)
        let route = s.snap(of: slot, within: configuration.maxSnapMetres).flatMap { try? s.router.route(from: $0, to: r.snap) }
        end(&s, o.request, .assigned(Assignment(cab: o.cab, eta: eta, route: route)), now: now, effects: &effects)
    }

    /// Ends a request: withdraws its offer, frees the customer, logs and notifies.
    func end(_ s: inout DispatchState, _ id: RequestID, _ status: RequestStatus, now: Date, effects: inout Effects) {
        guard let r = s.requests[id], r.ended == nil else { return }
        if let offerID = r.offer, let o = s.offers.removeValue(forKey: offerID) {
            if let slot = s.slotOfID[o.cab] { s.cabs[slot].offer = nil; s.freedCabs.append(slot) }
            effects.notifications.append(.offerWithdrawn(o))
        }
        s.requests[id]!.offer = nil
        s.requests[id]!.ended = status
        s.waiting.remove(id)
        s.openByCustomer[r.request.customer] = nil
        switch status {
        case let .assigned(a): record(id, now, .assigned(cab: a.cab, etaSeconds: a.eta.seconds))
        case let .notServed(reason): record(id, now, .notServed(reason: reason))
        case .cancelled: record(id, now, .cancelled)
        case .searching: break
        }
        effects.notifications.append(.requestEnded(id, customer: r.request.customer, status))
    }
}
