import CoreMetrics
import Essentials
import Fleet
import Foundation
import Hummingbird
import Prometheus
import Services
import Storage

/// The server's metrics, served at `/metrics` in Prometheus's text format: requests and
/// their latency per route, dispatch outcomes, the fleet on shift, and the store's latency.
///
/// The metrics are recorded through swift-metrics with a factory of this server's own
/// Prometheus registry rather than the process-wide `MetricsSystem`: two servers in one
/// process (the tests, the demo) keep separate counts, and nothing global is bootstrapped
/// behind a library user's back.
///
/// `Sendable`: the registry and factory are `Sendable`; the last dispatch counts seen and the
/// request series' handles sit behind locks.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let factory: PrometheusMetricsFactory
    let seen = Locked(DispatchOutcomeCounts())

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Requests take from tens of microseconds to seconds (a login hashes for one).
        factory.defaultDurationHistogramBuckets = [.microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
                                                   .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                                                   .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
                                                   .milliseconds(2500), .seconds(5), .seconds(10)]
        self.factory = factory
    }

    /// A request series: its route pattern, method and status.
    struct Series: Hashable {
        let route: String, method: String, status: Int
    }

    /// Each series' counter and timer, made once: making them through the factory on every
    /// request hashed the label and dimensions and allocated their arrays each time. Bounded:
    /// routes are patterns (never paths with ids), and methods and statuses are few.
    let series = Locked([Series: (CoreMetrics.Counter, CoreMetrics.Timer)]())

    /// One request answered.
    func request(route: String, method: String, status: Int, duration: Duration) {
        let key = Series(route: route, method: method, status: status)
        let (counter, timer) = series.withLock { table in
            if let made = table[key] { return made }
            let made = (CoreMetrics.Counter(label: "wayfare_http_requests_total",
                                            dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory),
                        CoreMetrics.Timer(label: "wayfare_http_request_duration_seconds", dimensions: [("route", route), ("method", method)],
                                          factory: factory))
            table[key] = made
            return made
        }
        counter.increment()
        timer.recordNanoseconds(Self.nanoseconds(duration))
    }

    /// One store transaction.
    func store(_ kind: String, duration: Duration) {
        CoreMetrics.Timer(label: "wayfare_store_transaction_duration_seconds", dimensions: [("kind", kind)], factory: factory)
            .recordNanoseconds(Self.nanoseconds(duration))
    }

    /// The text of `/metrics`, with the gauges read now.
    func exposition(fleet: Fleet, outcomes: DispatchOutcomeCounts) -> String {
        var byStatus = Dictionary(uniqueKeysWithValues: CabStatus.allCases.map { ("\($0)", 0) })
        for cab in fleet.allCabs() { byStatus["\(cab.status)", default: 0] += 1 }
        for (status, count) in byStatus {
            CoreMetrics.Gauge(label: "wayfare_fleet_cabs", dimensions: [("status", status)], factory: factory).record(count)
        }
        // Counters only go up: add what happened since the last scrape.
        let (allocated, notServed) = seen.withLock { last -> (Int, Int) in
            defer { last = outcomes }
            return (outcomes.allocated - last.allocated, outcomes.notServed - last.notServed)
        }
        CoreMetrics.Counter(label: "wayfare_dispatch_outcomes_total", dimensions: [("outcome", "allocated")], factory: factory)
            .increment(by: max(0, allocated))
        CoreMetrics.Counter(label: "wayfare_dispatch_outcomes_total", dimensions: [("outcome", "not_served")], factory: factory)
            .increment(by: max(0, notServed))
        return registry.emitToString()
    }

    static func nanoseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000
    }
}

/// A store that times every transaction into the server's metrics and otherwise passes
/// each call through unchanged.
struct MeasuredStore: SQLStore {
    let base: any SQLStore
    let metrics: ServerMetrics

    var dialect: SQLDialect { base.dialect }

    func blockingWrite<T>(locking turns: [String], isolation: WriteIsolation, _ body: (any SQLConnection) throws -> T) throws -> T {
        let start = ContinuousClock.now
        defer { metrics.store("write", duration: ContinuousClock.now - start) }
        return try base.blockingWrite(locking: turns, isolation: isolation, body)
    }

    func blockingRead<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        let start = ContinuousClock.now
        defer { metrics.store("read", duration: ContinuousClock.now - start) }
        return try base.blockingRead(body)
    }

    func close() { base.close() }
}
