import Fleet
import Foundation
import Geodesy
import Services
import Storage
import TestSupport
import Testing

/// Great-circle metres by the haversine formula, written here so that the search is not
/// checked with its own distance.
func haversineMetres(_ a: Coordinate, _ b: Coordinate) -> Double {
    let r = 6_371_008.8, rad = Double.pi / 180
    let dLat = (b.latitude - a.latitude) * rad, dLon = (b.longitude - a.longitude) * rad
    let h = pow(sin(dLat / 2), 2) + cos(a.latitude * rad) * cos(b.latitude * rad) * pow(sin(dLon / 2), 2)
    return 2 * r * asin(min(1, sqrt(h)))
}

@Suite("Ride requests (002): post, search, accept, confirm, complete, pay; offline replay and conflicts")
struct RideRequestsTests {
    func rig(_ engine: Engine) async throws -> (Harness, RideRequests, String)? {
        guard let h = try Harness(engine) else { return nil }
        return (h, RideRequests(store: h.store, city: Monaco.city(), clock: h.clock), try await h.adminSession())
    }

    @Test("the whole life of a request, with replays from an offline phone and clear conflicts", arguments: Engine.allCases)
    func lifecycle(engine: Engine) async throws {
        guard let (h, rides, admin) = try await rig(engine) else { return }
        let rider = try await h.passenger(1).id
        _ = try await h.wallet.refill(passenger: rider, amount: 100_000, paymentToken: "tok_visa", key: .random())
        let d1 = try await h.driver(1, adminSession: admin).id, d2 = try await h.driver(2, adminSession: admin).id
        let fare = try rides.suggestedFare(from: Monaco.casino, to: Monaco.palace)
        #expect(fare > 5000)
        let draft = RideRequestDraft(rider: rider, clientID: "phone-1", source: Monaco.casino, destination: Monaco.palace,
                                     sourceAddress: "Place du Casino", destinationAddress: "Place du Palais", description: "two bags", fare: fare)
        // Refusals name the field and store nothing.
        var same = draft; same.destination = Monaco.casino
        var free = draft; free.fare = 0
        var away = draft; away.source = Monaco.nice
        var control = draft; control.description = "bags\u{0}"
        var badID = draft; badID.clientID = "phone 1; DROP TABLE ride_requests"
        for (bad, field) in [(same, "destination"), (free, "fare"), (away, "source"), (control, "description"), (badID, "clientID")] {
            await #expect { _ = try await rides.post(bad) } throws: { ($0 as? ServiceError).map { if case .invalid(field, _) = $0 { true } else { false } } == true }
        }
        let posted = try await rides.post(draft)
        #expect(posted.status == .open && posted.fare == fare && posted.metres > 500)
        // The phone was offline and sends its queue again: the same request.
        #expect(try await rides.post(draft).id == posted.id)
        var changed = draft; changed.fare += 1
        await #expect(throws: ServiceError.idempotencyKeyReused("phone-1")) { _ = try await rides.post(changed) }
        // Two drivers accept; one sends its acceptance twice.
        _ = try await rides.accept(posted.id, driver: d1, clientID: "d1-a")
        _ = try await rides.accept(posted.id, driver: d1, clientID: "d1-a")
        let accepted = try await rides.accept(posted.id, driver: d2, clientID: "d2-a")
        #expect(accepted.status == .accepted && accepted.acceptedBy.sorted() == [d1, d2].sorted())
        await #expect(throws: ServiceError.invalid(field: "driver", reason: "driver \(rider) did not accept ride request \(posted.id)")) {
            _ = try await rides.confirm(posted.id, rider: rider, driver: rider)
        }
        let confirmed = try await rides.confirm(posted.id, rider: rider, driver: d2)
        #expect(confirmed.status == .confirmed && confirmed.driver == d2)
        await #expect(throws: ServiceError.conflict("ride request \(posted.id) is already confirmed with another driver")) {
            _ = try await rides.accept(posted.id, driver: d1, clientID: "d1-b")
        }
        await #expect(throws: ServiceError.notFound("ride request \(posted.id)")) { _ = try await rides.complete(posted.id, driver: d1) }
        await #expect(throws: ServiceError.conflict("ride request \(posted.id) is already confirmed")) {
            _ = try await rides.pay(posted.id, rider: rider, key: .random())
        }
        #expect(try await rides.complete(posted.id, driver: d2).status == .completed)
        let key = IdempotencyKey.random()
        let paid = try await rides.pay(posted.id, rider: rider, key: key)
        #expect(paid.method == "wallet" && paid.walletPaid == fare && paid.commission == (fare * 20 + 50) / 100)
        #expect(try await rides.pay(posted.id, rider: rider, key: key) == paid)
        #expect(try await h.wallet.balance(of: rider).available == 100_000 - fare)
        #expect(try await rides.request(posted.id).status == .paid)
        // A request cancelled while a driver's phone was offline: its acceptance is answered clearly.
        var second = draft; second.clientID = "phone-2"
        let other = try await rides.post(second)
        #expect(try await rides.cancel(other.id, rider: rider).status == .cancelled)
        await #expect(throws: ServiceError.conflict("ride request \(other.id) was cancelled")) {
            _ = try await rides.accept(other.id, driver: d1, clientID: "d1-c")
        }
        try h.expectSoundLedger()
    }

    @Test("the search finds what a brute-force scan finds, nearest first, with price and per-km filters", arguments: Engine.allCases)
    func searchAgainstBruteForce(engine: Engine) async throws {
        guard let (h, rides, _) = try await rig(engine) else { return }
        let rider = try await h.passenger(2).id
        var rng = SeededRandom(seed: 99)
        func random(in box: (Double, Double, Double, Double)) -> Coordinate {
            Coordinate(unchecked: box.0 + (box.1 - box.0) * Double.random(in: 0..<1, using: &rng), box.2 + (box.3 - box.2) * Double.random(in: 0..<1, using: &rng))
        }
        let monaco = (43.7270, 43.7480, 7.4090, 7.4390)
        var posted: [RideRequestRecord] = []
        var k = 0
        while posted.count < 150 {
            k += 1
            let a = random(in: monaco), b = random(in: monaco)
            let words = ["bags", "pet", "wheelchair", "child seat", "quiet"]
            let draft = RideRequestDraft(rider: rider, clientID: "c\(k)", source: a, destination: b,
                                         sourceAddress: "Rue \(k % 7 == 0 ? "Grimaldi" : "Princesse Caroline")",
                                         destinationAddress: "Avenue d'Ostende", description: words[k % words.count],
                                         fare: Int64(1000 + rng.next() % 20_000))
            if let r = try? await rides.post(draft) { posted.append(r) }
        }
        for s in 0..<25 {
            let near = random(in: monaco), within = [200.0, 500, 1000, 3000][s % 4]
            var search = RideSearch(near: near, withinMetres: within, limit: 200)
            if s % 3 == 1 { search.minimumFare = 5_000; search.maximumFare = 15_000 }
            if s % 5 == 2 { search.minimumPerKilometre = 3_000 }
            if s % 7 == 3 { search.keyword = "WHEELCHAIR" }
            let found = try await rides.search(search)
            // Brute force: every posted request, the haversine distance, the same filters.
            let expected = posted.filter { r in
                haversineMetres(near, r.source) <= within
                    && search.minimumFare.map { r.fare >= $0 } ?? true && search.maximumFare.map { r.fare <= $0 } ?? true
                    && search.minimumPerKilometre.map { r.fare * 1000 / max(r.metres, 1) >= $0 } ?? true
                    && search.keyword.map { _ in r.description == "wheelchair" } ?? true
            }
            // Requests within a metre of the edge may fall either way between the two formulas.
            let edge = { (r: RideRequestRecord) in abs(haversineMetres(near, r.source) - within) < 1 }
            #expect(Set(found.map(\.request.id).filter { id in !edge(posted.first { $0.id == id }!) })
                    == Set(expected.filter { !edge($0) }.map(\.id)), "search \(s)")
            let distances = found.map { $0.metres! }
            #expect(distances == distances.sorted(), "nearest first")
        }
        // Address words, case and accents ignored.
        let grimaldi = try await rides.search(RideSearch(address: "grimaldi", limit: 200))
        #expect(!grimaldi.isEmpty && grimaldi.allSatisfy { $0.request.sourceAddress == "Rue Grimaldi" })
        #expect(grimaldi.count == posted.filter { $0.sourceAddress == "Rue Grimaldi" }.count)
        await #expect(throws: ServiceError.invalid(field: "withinMetres", reason: "must be more than 0 and at most 50000")) {
            _ = try await rides.search(RideSearch(near: Monaco.casino, withinMetres: 1e9))
        }
    }
}
