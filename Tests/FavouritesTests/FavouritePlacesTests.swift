@testable import Favourites
import Foundation
import Geodesy
import Projection
import Testing

@Suite struct FavouritePlacesTests {
    let home = Coordinate(unchecked: 43.7384, 7.4246)

    @Test func refusesAPlaceWithin150MetresNamingTheFavourite() throws {
        var places = FavouritePlaces()
        try places.add(name: "Home", at: home)
        let near = home.destination(bearing: 45, distance: 140)
        #expect(throws: FavouriteError.locationExists(name: "Home")) { var p = places; try p.add(name: "Bakery", at: near) }
        #expect(FavouriteError.locationExists(name: "Home").description == "the Location already exists with the name \"Home\"")
        try places.add(name: "Office", at: home.destination(bearing: 45, distance: 400))
        #expect(places.favourite(near: near)?.name == "Home")
        #expect(places.favourite(near: home.destination(bearing: 200, distance: 1_000)) == nil)
    }

    @Test func theBoundaryIsInclusiveAndGeodesic() throws {
        var places = FavouritePlaces()
        try places.add(name: "Home", at: home)
        // Find points at exactly 150 m and just beyond by the ellipsoidal distance.
        for bearing in stride(from: 0.0, to: 360, by: 30) {
            var lo = 140.0, hi = 160.0
            for _ in 0..<60 {
                let mid = (lo + hi) / 2
                if places.favourite(near: home.destination(bearing: bearing, distance: mid)) != nil { lo = mid } else { hi = mid }
            }
            // The switch happens where the ellipsoidal distance crosses 150 m, measured by
            // PROJ's geodesic (Karney's algorithm), not by the code under test (Vincenty's).
            let inside = home.destination(bearing: bearing, distance: lo), outside = home.destination(bearing: bearing, distance: hi)
            let d = Geodesic.wgs84.distance(from: home, to: inside)
            let beyond = Geodesic.wgs84.distance(from: home, to: outside)
            #expect(d <= 150 + 1e-6 && d > 149.999 && beyond > 150 - 1e-6, "bearing \(bearing): \(d), \(beyond)")
        }
    }

    @Test func namesAreUniqueWithoutCaseOrAccents() throws {
        var places = FavouritePlaces()
        try places.add(name: "Café de Paris", at: home)
        #expect(throws: FavouriteError.duplicateName("Café de Paris")) {
            var p = places
            try p.add(name: "  cafe  DE paris ", at: home.destination(bearing: 0, distance: 5_000))
        }
        #expect(throws: FavouriteError.emptyName) { var p = places; try p.add(name: "  ", at: home.destination(bearing: 0, distance: 9_000)) }
        let removed = places.remove(named: "CAFE DE PARIS")
        #expect(removed)
        #expect(places.places.isEmpty)
    }

    @Test func twentyIsTheLimit() throws {
        var places = FavouritePlaces()
        for i in 0..<20 { try places.add(name: "Place \(i)", at: home.destination(bearing: 0, distance: Double(i) * 200)) }
        #expect(throws: FavouriteError.limitReached(20)) {
            var p = places
            try p.add(name: "One too many", at: home.destination(bearing: 180, distance: 5_000))
        }
        // Irrespective of city: the limit counts places everywhere.
        #expect(places.places.count == 20)
    }
}
