import Foundation
import Geodesy
import Services
import Storage
import TestSupport
import Testing

@Suite("Favourites, stored: 20 at most, named, none within 150 m of another")
struct FavouritesTests {
    // Along the meridian at Monaco a degree of latitude is about 111,108 m (WGS84), so
    // 0.00134° ≈ 148.9 m and 0.00137° ≈ 152.2 m: each side of 150 m by a metre or more.
    let home = Coordinate(unchecked: 43.7384, 7.4246)
    func north(_ degrees: Double, of c: Coordinate) -> Coordinate { Coordinate(unchecked: c.latitude + degrees, c.longitude) }

    @Test("the 150 m rule, names, the limit of 20, removal", arguments: Engine.allCases)
    func rules(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let p = try await h.passenger(1).id
        let favourites = PassengerFavourites(store: h.store)
        try await favourites.add(name: "Home", at: home, for: p)
        await #expect(throws: ServiceError.invalid(field: "location", reason: "the Location already exists with the name \"Home\"")) {
            try await favourites.add(name: "Gym", at: north(0.00134, of: home), for: p)
        }
        try await favourites.add(name: "Gym", at: north(0.00137, of: home), for: p)
        await #expect(throws: ServiceError.invalid(field: "name", reason: "a favourite named \"Home\" already exists")) {
            try await favourites.add(name: "HOME", at: north(0.05, of: home), for: p)
        }
        for bad in ["", "   ", String(repeating: "x", count: 65), "tab\there", "nul\u{0}"] {
            await #expect(throws: ServiceError.self, "\(bad.debugDescription)") {
                try await favourites.add(name: bad, at: north(0.2, of: home), for: p)
            }
        }
        for i in 3...20 { try await favourites.add(name: "Place \(i)", at: north(0.01 * Double(i), of: home), for: p) }
        await #expect(throws: ServiceError.invalid(field: "favourites", reason: "at most 20 favourite locations can be stored")) {
            try await favourites.add(name: "One too many", at: north(0.5, of: home), for: p)
        }
        #expect(try await favourites.places(of: p).map(\.name).prefix(3) == ["Home", "Gym", "Place 3"])
        #expect(try await favourites.favourite(near: north(-0.001, of: home), for: p)?.name == "Home")
        try await favourites.remove(named: "gym", for: p)
        await #expect(throws: ServiceError.notFound("favourite \"gym\"")) { try await favourites.remove(named: "gym", for: p) }
        try await favourites.add(name: "Office", at: north(0.5, of: home), for: p)
        #expect(try await favourites.places(of: p).count == 20)
        await #expect(throws: ServiceError.notFound("passenger 777777")) {
            try await favourites.add(name: "Nowhere", at: home, for: 777_777)
        }
        // Stored to the centimetre.
        let stored = try #require(try await favourites.places(of: p).first)
        #expect(abs(stored.location.latitude - home.latitude) < 1e-7 && abs(stored.location.longitude - home.longitude) < 1e-7)
    }

    @Test("25 phones adding at once store exactly 20", arguments: Engine.allCases)
    func concurrentAdds(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let p = try await h.passenger(2).id
        let favourites = PassengerFavourites(store: h.store)
        let home = self.home
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<25 {
                group.addTask {
                    (try? await favourites.add(name: "Spot \(i)", at: Coordinate(unchecked: home.latitude + 0.01 * Double(i), home.longitude), for: p)) != nil
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(results == 20)
        #expect(try await favourites.places(of: p).count == 20)
    }
}
