import Foundation
import ServiceSimulation
import Services
import Storage
import TestSupport
import Testing

/// The city at work through the services: a half hour of Monaco booked and paid on each
/// store. The checks come from outside the simulation's own tally: the bookings table, the
/// ledger's audit and its double-entry identity, and the other store's run of the same seed.
@Suite("ServiceSimulation: a city books and pays through the services")
struct ServiceSimulationTests {
    static func configuration() -> ServiceSimulation.Configuration {
        var c = ServiceSimulation.Configuration()
        c.cabs = 16; c.passengers = 60; c.hours = 0.75; c.bookings = 110; c.seed = 7
        c.laterShare = 0.4; c.cancelShare = 0.3
        return c
    }

    /// Runs the simulation on a fresh store of `engine`; nil when the engine is unavailable.
    static func run(_ engine: Engine) async throws -> (ServiceSimulation.Summary, ScratchStore, CompanyAccounts)? {
        guard let scratch = try ScratchStore.make(engine) else { return nil }
        let backend = try InProcessBackend(city: Monaco.city(), store: scratch.store, start: ServiceSimulation.start)
        let result = try await ServiceSimulation(zones: Monaco.zones, network: Monaco.network, configuration: configuration())
            .run(on: backend)
        return (result.summary, scratch, try await backend.companyAccounts())
    }

    @Test("bookings now and later, cancellations, wallet and cash payments: every count and amount agrees with the store and the ledger",
          arguments: Engine.allCases)
    func cityAtWork(engine: Engine) async throws {
        guard let (s, scratch, company) = try await Self.run(engine) else { return }
        #expect(s.unexpectedErrors.isEmpty, "\(s.unexpectedErrors)")
        #expect(s.bookedNow > 0 && s.bookedLater > 0 && s.completed > 0 && s.cancelled > 0)
        #expect(s.bookedNow + s.bookedLater == s.completed + s.notServed + s.cancelled + s.unfinished)
        #expect(s.walletTrips > 0 && s.cashTrips > 0, "cash passengers and short wallets pay cash")
        #expect(s.walletTrips + s.cashTrips == s.completed)
        #expect(s.fares == s.walletPaid + s.cashPaid + s.awaitingConfirmation)
        #expect(s.cashShare == (Double(s.cashTrips) / Double(s.completed) * 1000).rounded() / 1000)
        // The store's own records.
        let (completed, fares, bookings) = try await scratch.store.read { c in
            (try c.first("SELECT COUNT(*) AS n FROM bookings WHERE state = 'completed'")!.int("n"),
             try c.first("SELECT CAST(COALESCE(SUM(fare), 0) AS BIGINT) AS f FROM bookings WHERE state = 'completed'")!.int64("f"),
             try c.first("SELECT COUNT(*) AS n FROM bookings")!.int("n"))
        }
        #expect(completed == s.completed && fares == s.fares && bookings == s.bookedNow + s.bookedLater)
        // The ledger: sound, the commission in revenue, and every posted amount accounted
        // for on both sides (what the gateway owes went to wallets, revenue and drivers).
        #expect(s.ledgerBalanced && s.revenue == s.commission)
        #expect(company.gatewayOwes == company.owedToPassengers + company.revenue + company.owedToDrivers)
        let audit = try LedgerAudit.run(on: scratch.store)
        #expect(audit.isSound && audit.transfers == s.ledgerTransfers)
    }

    @Test("the same seed makes the same day on SQLite and on PostgreSQL")
    func sameDayOnBothStores() async throws {
        guard postgresURL != nil else {
            print("skipping the comparison: WAYFARE_POSTGRES_URL is not set")
            return
        }
        guard let (a, _, accountsA) = try await Self.run(.sqlite), let (b, _, accountsB) = try await Self.run(.postgres) else { return }
        func outcome(_ s: ServiceSimulation.Summary) -> ServiceSimulation.Summary {
            var s = s
            s.store = ""; s.wallSeconds = 0; s.bookNowMilliseconds = nil
            return s
        }
        #expect(outcome(a) == outcome(b))
        #expect(accountsA == accountsB)
    }
}
