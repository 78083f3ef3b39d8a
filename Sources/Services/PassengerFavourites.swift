import Favourites
import Geodesy
import Storage

/// Passengers' favourite places, stored (000: at most 20, each named, none within 150 m of
/// another), with the rules of `Favourites.FavouritePlaces`.
///
/// Each change loads the passenger's places, applies the rule in memory and writes the
/// change in the same transaction, so two phones adding places at once cannot together break
/// the limit or the 150 m rule. Positions are stored in 10⁻⁷ degrees (about 1 cm), as
/// integers like everything else in the store.
///
/// `Sendable`: one immutable `Sendable` property.
public struct PassengerFavourites: Sendable {
    let store: any SQLStore

    /// The favourites of the passengers in `store` (migrated to ``ServiceSchema``).
    public init(store: any SQLStore) { self.store = store }

    /// The longest name of a place.
    public static let maximumNameLength = 64

    /// The places of `passenger`, in the order they were saved.
    public func places(of passenger: Int64) async throws(ServiceError) -> [Favourite] {
        try await serviceCall {
            try await store.read { c in try Self.load(c, passenger).places }
        }
    }

    /// Saves a place for `passenger`.
    /// - Throws: ``ServiceError/invalid(field:reason:)`` naming `name` (empty, too long,
    ///   control characters, already used) or `location` (within 150 m of a saved place:
    ///   "the Location already exists with the name …"), or `favourites` when 20 are saved;
    ///   ``ServiceError/notFound(_:)`` for an unknown passenger.
    public func add(name: String, at location: Coordinate, for passenger: Int64) async throws(ServiceError) {
        let name = try Validate.text(name, field: "name", maximum: Self.maximumNameLength)
        try await serviceCall {
            try await store.write { c in
                try Users.require(c, passenger, role: .passenger)
                var places = try Self.load(c, passenger)
                do {
                    try places.add(name: name, at: location)
                } catch let error as FavouriteError {
                    switch error {
                    case .locationExists: throw ServiceError.invalid(field: "location", reason: error.description)
                    case .emptyName, .duplicateName: throw ServiceError.invalid(field: "name", reason: error.description)
                    case .limitReached: throw ServiceError.invalid(field: "favourites", reason: error.description)
                    }
                }
                try FavouriteStatements(c).insert(name: name, at: location, for: passenger)
            }
        }
    }

    /// Removes the place named `name` (compared without case or accents).
    /// - Throws: ``ServiceError/notFound(_:)`` when there is none.
    public func remove(named name: String, for passenger: Int64) async throws(ServiceError) {
        let name = try Validate.text(name, field: "name", maximum: Self.maximumNameLength)
        try await serviceCall {
            try await store.write { c in
                var places = try Self.load(c, passenger)
                let before = places.places
                guard places.remove(named: name), let gone = before.first(where: { !places.places.contains($0) }) else {
                    throw ServiceError.notFound("favourite \"\(name)\"")
                }
                try FavouriteStatements(c).delete(named: gone.name, for: passenger)
            }
        }
    }

    /// The saved place within 150 m of `point`, if any: the name to show for a pickup.
    public func favourite(near point: Coordinate, for passenger: Int64) async throws(ServiceError) -> Favourite? {
        try await serviceCall {
            try await store.read { c in try Self.load(c, passenger).favourite(near: point) }
        }
    }

    static func load(_ c: any SQLConnection, _ passenger: Int64) throws -> FavouritePlaces {
        var places = FavouritePlaces()
        for record in try FavouriteStatements(c).places(of: passenger) {
            let coordinate = try Coordinate(latitude: Double(record.latE7) / 1e7, longitude: Double(record.lonE7) / 1e7)
            // Stored places passed the rules when saved; a failure here means the rules
            // were tightened since, and the place is still shown.
            try? places.add(name: record.name, at: coordinate)
        }
        return places
    }

}
