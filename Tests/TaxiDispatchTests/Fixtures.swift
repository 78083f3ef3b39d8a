import Foundation
import Essentials
import Fleet
import Geodesy
import RoadGraph
import TaxiDispatch
import TestSupport
import ZoneImport
import Zones

let epoch = Date(timeIntervalSince1970: 1_790_000_000)

/// A dispatcher on Monaco with a virtual clock, an in-memory log and the notifications kept.
final class Harness: Sendable {
    let scheduler = VirtualScheduler(start: epoch)
    let log = InMemoryDecisionLog()
    let notes = NotificationBox()
    let dispatcher: Dispatcher

    init(configuration: Dispatcher.Configuration = .init(), policy: any DispatchPolicy = ZoneQueuePolicy(),
         hooks: DispatchHooks = .init()) throws {
        let (zones, graph) = (Monaco.zones, Monaco.network)
        let box = notes
        dispatcher = try Dispatcher(zones: zones, network: graph, configuration: configuration, policy: policy, hooks: hooks,
                                    scheduler: scheduler, log: log, notify: { box.add($0) })
    }

    var now: Date { scheduler.now() }

    /// Registers cabs as available at the given positions, reported now, in order (so they
    /// join their zone queues in this order).
    func cabs(_ places: [(String, Coordinate)], type: CabType = .sedan, seats: Int = 4) throws {
        try dispatcher.register(places.map { CabProfile(id: $0.0, type: type, seats: seats) })
        for (id, p) in places {
            try dispatcher.report(cab: id, position: p, at: now)
            try dispatcher.setStatus(of: id, to: .available)
        }
    }

    /// The offers made so far, in order.
    var offers: [Offer] { notes.all.compactMap { if case let .offer(o) = $0 { o } else { nil } } }
    var lastOffer: Offer? { offers.last }
}

/// Notifications collected from any thread.
/// `Sendable`: its one field is behind `Locked`.
final class NotificationBox: Sendable {
    private let items = Locked<[DispatchNotification]>([])
    func add(_ n: DispatchNotification) { items.withLock { $0.append(n) } }
    var all: [DispatchNotification] { items.withLock { $0 } }
}
