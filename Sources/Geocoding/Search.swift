import Foundation
import Geodesy
import SpatialIndex

/// How exactly a forward answer matches the typed house number.
public enum AddressPrecision: String, Sendable {
    /// The number is in the table.
    case exact
    /// Placed between the nearest known numbers on the same street.
    case interpolated
    /// The number is unknown; the answer is the street itself.
    case street
}

/// One forward geocoding answer.
public struct GeocodeCandidate: Sendable, Equatable {
    /// The answer as a passenger reads it ("12 Boulevard des Moulins, 98000 Monaco").
    public var label: String
    /// Where it is.
    public var coordinate: Coordinate
    /// An address, a street, a place or a city.
    public var kind: PlaceKind
    /// 0…1: how well the text matches (exact words beat prefixes beat typos; a name fully
    /// covered by the query beats a longer one).
    public var score: Double
    /// For a query with a house number: how the number was placed.
    public var precision: AddressPrecision?
}

/// One reverse geocoding answer.
public struct ReverseAnswer: Sendable, Equatable {
    /// The answer as a passenger reads it ("12 Boulevard des Moulins, 98000 Monaco").
    public var label: String
    /// Where it is.
    public var coordinate: Coordinate
    /// An address, a street, a place or a city.
    public var kind: PlaceKind
    /// Metres from the query: great-circle for an address or a place; for a street, in the
    /// plane tangent at the query (within 0.01 % of great-circle within the 1 km cutoff).
    public var metres: Double
}

extension GeocoderTable {
    /// Queries longer than this are refused rather than searched.
    public static let maxQueryLength = 256

    /// Ranked candidates for a typed query: by text score, then by distance to `focus`
    /// (the passenger's position) when given; `accept` can restrict results to a service
    /// area. The last word may be a prefix (type-ahead); words of five letters or more
    /// may carry one typo.
    public func geocode(_ query: String, near focus: Coordinate? = nil, limit: Int = 5,
                        accept: ((Coordinate) -> Bool)? = nil) throws(GeocoderError) -> [GeocodeCandidate] {
        guard query.utf8.count <= Self.maxQueryLength else {
            throw GeocoderError("query too long (\(query.utf8.count) bytes; at most \(Self.maxQueryLength))")
        }
        guard !query.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw GeocoderError("query contains control characters")
        }
        let (number, words, form) = Normalizer.splitHouseNumber(Normalizer.tokens(query))
        guard !words.isEmpty else {
            throw GeocoderError(number == nil ? "empty query" : "a house number alone is not an address (add the street)")
        }
        // Each word's matching tokens: exact (quality 1), prefix of the last word (0.9, a
        // range of the sorted dictionary, so no set is built however short the prefix), or
        // one typo away (0.8).
        var matches: [WordMatch] = []
        for (i, w) in words.enumerated() {
            var m = WordMatch(exact: tokenID(w).map { UInt32($0) })
            if i == words.count - 1 {
                // A short prefix stops after a few hundred tokens: the passenger is still typing.
                let k = lowerBound(w), end = prefixEnd(w, from: k)
                m.prefix = k..<min(end, k + (w.count < 3 ? 200 : 5_000))
            }
            if m.isEmpty && w.utf8.count >= 5 { m.typos = typoMatches(w) }
            // A word that matches nothing ("krs", "floor") is left out, at a cost in score.
            if !m.isEmpty { matches.append(m) }
        }
        guard !matches.isEmpty else { return [] }
        let wordShare = Double(matches.count) / Double(words.count)
        // Drive the search with the word whose tokens have the fewest entries; when no entry
        // matches every word (a word like "floor" that matches something else), the next
        // rarest words drive too, up to three.
        let matchedTokens = matches.map(\.tokens)
        let postings = matchedTokens.map { $0.reduce(0) { $0 + Int(tokenEntryStart[$1 + 1] - tokenEntryStart[$1]) } }
        let drivers = matches.indices.sorted { postings[$0] < postings[$1] }
        var seen = Set<UInt32>()
        var best = TopCandidates(limit: max(0, limit))
        var complete = false
        for driver in drivers.prefix(3) where !complete {
            for tok in matchedTokens[driver] {
                for k in Int(tokenEntryStart[tok])..<Int(tokenEntryStart[tok + 1]) {
                    let e = tokenEntries[k]
                    guard seen.insert(e).inserted, let (text, all) = textScore(entry: Int(e), matches) else { continue }
                    complete = complete || all
                    // An entry whose text cannot reach the worst kept answer is not placed.
                    guard !best.isFull || text * wordShare * 100 >= best.worstScore - 0.5 else { continue }
                    for c in candidates(entry: Int(e), text: text * wordShare, number: number, form: form) {
                        if let accept, !accept(c.coordinate) { continue }
                        best.offer(c, distance: focus.map { c.coordinate.distance(to: $0) } ?? 0)
                    }
                }
            }
        }
        return best.ranked
    }

    /// The first token after `k` that does not start with `w` (binary search: the tokens
    /// that start with `w` follow `lowerBound(w)` contiguously).
    func prefixEnd(_ w: String, from k: Int) -> Int {
        var lo = k, hi = tokens.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if tokens[mid].utf8.starts(with: w.utf8) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Tokens one edit away from `w`, via the deletion index, verified; and the canonical
    /// token of a street type one edit away from its long spelling ("axenue" → "av"), which
    /// the index cannot hold since tables store only the canonical form.
    func typoMatches(_ w: String) -> [UInt32] {
        var found: [UInt32] = []
        let bytes = Array(w.utf8)
        func add(_ t: UInt32) { if !found.contains(t) { found.append(t) } }
        func consider(_ hash: UInt64) {
            var lo = 0, hi = deletionHash.count
            while lo < hi { let mid = (lo + hi) >> 1; if deletionHash[mid] < hash { lo = mid + 1 } else { hi = mid } }
            while lo < deletionHash.count && deletionHash[lo] == hash {
                let t = deletionToken[lo]
                if Normalizer.withinOneEdit(bytes, Array(tokens[Int(t)].utf8)) { add(t) }
                lo += 1
            }
        }
        consider(Self.hash(bytes))  // a letter missing from the query, or a substitution's partner
        for k in bytes.indices {
            var d = bytes
            d.remove(at: k)
            consider(Self.hash(d))  // a substitution or an extra letter
            if let id = tokenID(String(decoding: d, as: UTF8.self)) { add(UInt32(id)) }
        }
        for (long, short) in Normalizer.canonical where long.utf8.count >= 5 && Normalizer.withinOneEdit(bytes, Array(long.utf8)) {
            if let id = tokenID(short) { add(UInt32(id)) }
        }
        return found
    }

    /// How well entry e's name matches the words (a word it lacks counts 0), and whether it
    /// matches them all.
    func textScore(entry e: Int, _ matches: [WordMatch]) -> (Double, Bool)? {
        let range = Int(entryTokenStart[e])..<Int(entryTokenStart[e + 1])
        var total = 0.0, matched = 0
        var used: UInt64 = 0  // entry tokens already taken by a word (names have few tokens)
        for m in matches {
            var best = 0.0, at = -1
            for k in range where k - range.lowerBound >= 64 || used & (1 << (k - range.lowerBound)) == 0 {
                let q = m.quality(entryTokens[k])
                if q > best { best = q; at = k }
            }
            guard at >= 0 else { continue }
            if at - range.lowerBound < 64 { used |= 1 << (at - range.lowerBound) }
            total += best; matched += 1
        }
        guard matched > 0 else { return nil }
        let quality = total / Double(matches.count)
        let coverage = Double(matched) / Double(max(1, range.count))
        return (0.7 * quality + 0.3 * coverage, matched == matches.count)
    }

    /// The answers an entry gives a query: itself, or for a street and a house number, the
    /// address (exact or interpolated) or the street as a fallback. Among addresses with
    /// the query's number, those tagged exactly as typed (`form`: a range "14-20", a suffix)
    /// come first when there are any.
    func candidates(entry e: Int, text: Double, number: String?, form: String? = nil) -> [GeocodeCandidate] {
        let kind = PlaceKind(rawValue: entryKind[e]) ?? .place  // checked on load; a fallback, not a trap
        let here = Coordinate(unchecked: entryLat[e], entryLon[e])
        guard let number else { return [GeocodeCandidate(label: entryLabel[e], coordinate: here, kind: kind, score: text, precision: nil)] }
        let s = entryStreet[e]
        guard s != Self.none else {
            // A number with a place's name: the place, ranked below real addresses.
            return [GeocodeCandidate(label: entryLabel[e], coordinate: here, kind: kind, score: text * 0.7, precision: nil)]
        }
        let key = GeocoderBuilder.houseNumberKey(number)
        let range = Int(streetAddressStart[Int(s)])..<Int(streetAddressStart[Int(s) + 1])
        let exact = range.filter { addressNumber[$0] == key }
        if !exact.isEmpty {
            // Why a small penalty and not a filter: "14 Mannerheimintie" must still find the
            // object tagged "14-20" when no "14" exists, but below "14" when both do.
            let asTyped = exact.contains { addressForm[$0] == form }
            return exact.map { a in
                GeocodeCandidate(label: addressLabel[a], coordinate: Coordinate(unchecked: addressLat[a], addressLon[a]), kind: .address,
                                 score: asTyped && addressForm[a] != form ? text * 0.99 : text, precision: .exact)
            }
        }
        if let n = Normalizer.numericPart(number), let point = interpolate(Int32(n), in: range) {
            return [GeocodeCandidate(label: "\(number) \(entryLabel[e])", coordinate: point, kind: .address,
                                     score: text * 0.95, precision: .interpolated)]
        }
        return [GeocodeCandidate(label: entryLabel[e], coordinate: here, kind: .street, score: text * 0.8, precision: .street)]
    }

    /// A point for number n between the nearest known numbers of the same parity on either
    /// side (house numbers usually alternate sides of the street by parity).
    func interpolate(_ n: Int32, in range: Range<Int>) -> Coordinate? {
        let same = range.filter { addressNumeric[$0] >= 0 && addressNumeric[$0] % 2 == n % 2 }
        guard let below = same.last(where: { addressNumeric[$0] < n }), let above = same.first(where: { addressNumeric[$0] > n }) else { return nil }
        let (a, b) = (addressNumeric[below], addressNumeric[above])
        let f = Double(n - a) / Double(b - a)
        return Coordinate(unchecked: addressLat[below] + f * (addressLat[above] - addressLat[below]),
                          addressLon[below] + f * (addressLon[above] - addressLon[below]))
    }

    /// The address nearest to `point` within `addressCutoff` metres; else the nearest named
    /// street within `streetCutoff` (with the nearest point on it); else the nearest
    /// gazetteer place, however far. Nil only for an empty table.
    public func reverse(_ point: Coordinate, addressCutoff: Double = 50, streetCutoff: Double = 1_000) -> ReverseAnswer? {
        if let (i, metres) = addressTree.nearest(to: point, within: addressCutoff) {
            return ReverseAnswer(label: addressLabel[i], coordinate: Coordinate(unchecked: addressLat[i], addressLon[i]),
                                 kind: .address, metres: metres)
        }
        if let hit = streets.nearest(to: point, within: streetCutoff) {
            let on = streets.tree.point(onSegment: hit.segment, at: hit.fraction)
            let e = Int(streetEntry[Int(lineStreet[Int(streets.tree.segmentLine[hit.segment])])])
            // The tree's planar metres: within 0.01 % of the great circle over a kilometre, and
            // a haversine would add a tenth to the query.
            return ReverseAnswer(label: entryLabel[e], coordinate: on, kind: .street, metres: hit.metres)
        }
        if let (i, metres) = cityTree.nearest(to: point) {
            let e = Int(cityEntries[i])
            return ReverseAnswer(label: entryLabel[e], coordinate: Coordinate(unchecked: entryLat[e], entryLon[e]), kind: .city, metres: metres)
        }
        return nil
    }
}

/// The tokens one typed word matches, by quality: exact 1, prefix 0.9, one typo 0.8.
struct WordMatch {
    var exact: UInt32?
    /// Token ids that start with the word (the last word only); includes `exact`.
    var prefix: Range<Int> = 0..<0
    var typos: [UInt32] = []

    var isEmpty: Bool { exact == nil && prefix.isEmpty && typos.isEmpty }

    @inline(__always) func quality(_ t: UInt32) -> Double {
        if t == exact { return 1 }
        if prefix.contains(Int(t)) { return 0.9 }
        return typos.contains(t) ? 0.8 : 0
    }

    /// Every matched token id, each once.
    var tokens: [Int] {
        var out = prefix.isEmpty ? [] : Array(prefix)
        if let exact, !prefix.contains(Int(exact)) { out.append(Int(exact)) }
        out += typos.map(Int.init).filter { !prefix.contains($0) && $0 != exact.map(Int.init) }
        return out
    }
}

/// The best few answers seen so far, in rank order: text score (to the hundredth), then
/// nearness to the focus, then kind and label. Keeping only `limit` of them costs a few
/// comparisons per answer, where sorting every answer to a short prefix cost milliseconds.
struct TopCandidates {
    let limit: Int
    private var kept: [(candidate: GeocodeCandidate, distance: Double)] = []

    init(limit: Int) { self.limit = max(0, limit); kept.reserveCapacity(min(self.limit, 64) + 1) }  // limit may be .max

    var isFull: Bool { kept.count >= limit }
    /// The last kept answer's score, in hundredths.
    var worstScore: Double { kept.last.map { ($0.candidate.score * 100).rounded() } ?? 0 }

    static func precedes(_ a: (candidate: GeocodeCandidate, distance: Double), _ b: (candidate: GeocodeCandidate, distance: Double)) -> Bool {
        let sa = (a.candidate.score * 100).rounded(), sb = (b.candidate.score * 100).rounded()
        if sa != sb { return sa > sb }
        if a.distance != b.distance { return a.distance < b.distance }
        if a.candidate.kind != b.candidate.kind { return a.candidate.kind.tieRank < b.candidate.kind.tieRank }
        return a.candidate.label < b.candidate.label
    }

    mutating func offer(_ c: GeocodeCandidate, distance: Double) {
        let item = (candidate: c, distance: distance)
        guard limit > 0, !isFull || Self.precedes(item, kept[kept.count - 1]) else { return }
        var i = kept.count
        while i > 0 && Self.precedes(item, kept[i - 1]) { i -= 1 }
        kept.insert(item, at: i)
        if kept.count > limit { kept.removeLast() }
    }

    var ranked: [GeocodeCandidate] { kept.map(\.candidate) }
}
