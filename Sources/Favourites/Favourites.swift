import Foundation
import Geodesy

/// A passenger's saved place.
public struct Favourite: Hashable, Sendable {
    /// The name the passenger gave the place.
    public let name: String
    /// Where the place is.
    public let location: Coordinate
}

/// Why a favourite was refused; the texts follow the specification.
public enum FavouriteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Within 150 m of a saved favourite: "the same place".
    case locationExists(name: String)
    /// A saved place already has this name (compared without case or accents).
    case duplicateName(String)
    /// The passenger already has the maximum number of places.
    case limitReached(Int)
    /// The name is empty or only spaces.
    case emptyName

    /// The reason in the specification's words.
    public var description: String {
        switch self {
        case let .locationExists(name): "the Location already exists with the name \"\(name)\""
        case let .duplicateName(name): "a favourite named \"\(name)\" already exists"
        case let .limitReached(n): "at most \(n) favourite locations can be stored"
        case .emptyName: "each location needs a name"
        }
    }
}

/// One passenger's favourite places: at most 20, each named, no two within 150 m.
///
/// Distances are ellipsoidal (WGS84, Vincenty's formula in `Geodesy`, which the tests hold
/// to PROJ's `geod_inverse` within a millimetre): the 150 m rule decides a dispute, so it
/// uses the exact distance; a haversine pre-check (which is within 0.5 %) skips the exact
/// one for places clearly farther. No C library: the services that keep favourites do not
/// link PROJ. The boundary is inclusive: 150.000 m is the same
/// place. Names are compared without case or accents ("Cafe" = "café").
///
/// A value type of at most 20 entries, so millions of passengers cost memory in proportion
/// and each check is at most 20 cheap comparisons.
public struct FavouritePlaces: Hashable, Sendable {
    /// The specification's limits.
    public static let maximumCount = 20
    /// Two places closer than this many metres (geodesic) are the same place.
    public static let sameplaceMetres = 150.0

    /// The saved places, in the order they were saved.
    public private(set) var places: [Favourite] = []
    /// No saved places.
    public init() {}

    /// Saves a place, or refuses it with the reason.
    public mutating func add(name: String, at location: Coordinate) throws(FavouriteError) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .emptyName }
        if let existing = favourite(near: location) { throw .locationExists(name: existing.name) }
        let key = Self.key(trimmed)
        if let same = places.first(where: { Self.key($0.name) == key }) { throw .duplicateName(same.name) }
        guard places.count < Self.maximumCount else { throw .limitReached(Self.maximumCount) }
        places.append(Favourite(name: trimmed, location: location))
    }

    /// Removes the favourite with this name (case- and accent-insensitive); true if found.
    @discardableResult
    public mutating func remove(named name: String) -> Bool {
        let key = Self.key(name)
        guard let i = places.firstIndex(where: { Self.key($0.name) == key }) else { return false }
        places.remove(at: i)
        return true
    }

    /// The favourite within 150 m of `point` (the nearest, if several), or nil.
    public func favourite(near point: Coordinate) -> Favourite? {
        var best: (Favourite, Double)?
        for f in places {
            // Haversine is within 0.5 % of the geodesic: beyond 151 m it cannot be ≤ 150 m.
            guard f.location.distance(to: point) <= Self.sameplaceMetres * 1.006 else { continue }
            // Within 151 m nothing is nearly antipodal: Vincenty converges.
            guard let d = WGS84.distance(from: f.location, to: point) else { continue }
            if d <= Self.sameplaceMetres, best.map({ d < $0.1 }) ?? true { best = (f, d) }
        }
        return best?.0
    }

    /// The comparison key of a name: case and diacritics folded, spaces collapsed.
    static func key(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
