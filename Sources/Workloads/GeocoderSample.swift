import Geodesy
import Geocoding

/// One sampled forward query: the text a passenger typed and, for some, their position.
public struct SampledQuery: Sendable, Equatable {
    /// The text typed.
    public var text: String
    /// The focus point, when the query has one.
    public var near: Coordinate?
}

extension GeocoderTable {
    /// Seeded forward queries drawn from the table itself, shaped like a booking app's
    /// traffic: addresses as "number street" or "street number", street names, places and
    /// cities; three in five typed in full, one in five cut short as by type-ahead (at least
    /// three letters of the last word), one in five with a typo (one letter changed in a
    /// word of five letters or more). Half carry a focus within 5 km of the answer.
    ///
    /// The same table and seed give the same queries, so other systems can be measured on
    /// the same work (`wayfare geocoder sample`).
    public func sampleQueries(_ count: Int, seed: UInt64) -> [SampledQuery] {
        var rng = SeededRandom(seed: seed)
        let cities = cityEntries.map { Int($0) }
        let named = entryKind.indices.filter { entryKind[$0] != PlaceKind.city.rawValue }
        guard !cities.isEmpty || !named.isEmpty || addressCount > 0 else { return [] }
        var out: [SampledQuery] = []
        out.reserveCapacity(count)
        while out.count < count {
            let roll = Int.random(in: 0..<100, using: &rng)
            var text: String, at: Coordinate
            if roll < 40 && addressCount > 0 {
                let a = Int.random(in: 0..<addressCount, using: &rng)
                let street = entryLabel[Int(streetEntry[Int(addressStreet[a])])]
                text = Bool.random(using: &rng) ? "\(addressNumber[a]) \(street)" : "\(street) \(addressNumber[a])"
                at = Coordinate(unchecked: addressLat[a], addressLon[a])
            } else if roll < 85 && !named.isEmpty {
                let e = named.randomElement(using: &rng)!
                text = Self.name(entryLabel[e]); at = Coordinate(unchecked: entryLat[e], entryLon[e])
            } else if !cities.isEmpty {
                let e = cities.randomElement(using: &rng)!
                text = Self.name(entryLabel[e]); at = Coordinate(unchecked: entryLat[e], entryLon[e])
            } else { continue }
            let variant = Int.random(in: 0..<5, using: &rng)
            if variant == 3 { text = Self.typeAhead(text, using: &rng) }
            if variant == 4 { text = Self.typo(text, using: &rng) }
            let near = Bool.random(using: &rng)
                ? at.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0..<5_000, using: &rng))
                : nil
            out.append(SampledQuery(text: text, near: near))
        }
        return out
    }

    /// Seeded reverse points where passengers stand: within `metres` (uniform over the disc)
    /// of a point of a named street or an address, or, in a table with neither, of a
    /// gazetteer place (then within `placeMetres`).
    public func samplePoints(_ count: Int, seed: UInt64, metres: Double = 50, placeMetres: Double = 20_000) -> [Coordinate] {
        var rng = SeededRandom(seed: seed)
        let streetPoints = pointLatE7.count, total = streetPoints + addressCount
        let anchors = total > 0 ? total : entryCount
        guard anchors > 0 else { return [] }
        return (0..<count).map { _ in
            let k = Int.random(in: 0..<anchors, using: &rng)
            let anchor: Coordinate, spread: Double
            if total == 0 {
                anchor = Coordinate(unchecked: entryLat[k], entryLon[k]); spread = placeMetres
            } else if k < streetPoints {
                anchor = Coordinate(unchecked: Double(pointLatE7[k]) * 1e-7, Double(pointLonE7[k]) * 1e-7); spread = metres
            } else {
                anchor = Coordinate(unchecked: addressLat[k - streetPoints], addressLon[k - streetPoints]); spread = metres
            }
            // The square root makes the points uniform over the disc, not bunched at its centre.
            return anchor.destination(bearing: Double.random(in: 0..<360, using: &rng),
                                      distance: spread * Double.random(in: 0...1, using: &rng).squareRoot())
        }
    }

    /// The name part of a label ("Springfield, Illinois, US" → "Springfield").
    static func name(_ label: String) -> String {
        String(label.prefix { $0 != "," })
    }

    /// The text cut inside its last word, keeping at least three of its letters.
    static func typeAhead(_ text: String, using rng: inout SeededRandom) -> String {
        var words = text.split(separator: " ").map(String.init)
        guard let last = words.last, last.count > 3 else { return text }
        words[words.count - 1] = String(last.prefix(Int.random(in: 3..<last.count, using: &rng)))
        return words.joined(separator: " ")
    }

    /// The text with one letter of one long word (five letters or more) changed.
    static func typo(_ text: String, using rng: inout SeededRandom) -> String {
        var words = text.split(separator: " ").map(String.init)
        let long = words.indices.filter { words[$0].count >= 5 && words[$0].allSatisfy(\.isLetter) }
        guard let w = long.randomElement(using: &rng) else { return text }
        var letters = Array(words[w])
        let i = Int.random(in: 1..<letters.count, using: &rng)  // the first letter is rarely mistyped
        let replacement: Character = letters[i] == "x" ? "q" : "x"
        letters[i] = replacement
        words[w] = String(letters)
        return words.joined(separator: " ")
    }
}
