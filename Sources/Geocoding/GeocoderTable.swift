import Foundation
import Geodesy
import SpatialIndex

/// What a geocoding answer is.
public enum PlaceKind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// A house address.
    case address = 0
    /// A named street.
    case street
    /// A place or point of interest.
    case place
    /// A city or town from the gazetteer.
    case city
    /// The kind's name as outputs print it.
    public var description: String { ["address", "street", "place", "city"][Int(rawValue)] }

    /// Order among answers of equal score: an address, a street, then a city before a place
    /// of the same name ("Helsinki" the city, not the station).
    var tieRank: Int {
        switch self {
        case .address: 0
        case .street: 1
        case .city: 2
        case .place: 3
        }
    }
}

/// The geocoding lookup tables: named entries (streets, places, gazetteer cities) behind a
/// token index, addresses grouped by street, and street geometry.
///
/// `Sendable`: immutable arrays once built or loaded; both searches need no scratch space,
/// so any number of threads may share one table.
public struct GeocoderTable: Sendable {
    // Named entries.
    package internal(set) var entryLabel: [String] = []
    package internal(set) var entryKind: [UInt8] = []
    package internal(set) var entryLat: [Double] = []
    package internal(set) var entryLon: [Double] = []
    /// The token ids of each entry's name: entryTokens[entryTokenStart[e] ..< entryTokenStart[e + 1]].
    var entryTokenStart: [UInt32] = [0]
    var entryTokens: [UInt32] = []
    /// The street behind a street entry, or `none`.
    package internal(set) var entryStreet: [UInt32] = []

    // Streets: their addresses (sorted by number) and their lines.
    var streetAddressStart: [UInt32] = [0]
    package internal(set) var streetLineStart: [UInt32] = [0]
    package internal(set) var streetEntry: [UInt32] = []

    // Addresses.
    package internal(set) var addressNumber: [String] = []
    /// The number as tagged, normalised ("14-20", "12a"): a query typed the same way
    /// ranks this address above others sharing its `addressNumber` ("14").
    var addressForm: [String] = []
    var addressNumeric: [Int32] = []
    package internal(set) var addressLat: [Double] = []
    package internal(set) var addressLon: [Double] = []
    var addressLabel: [String] = []
    package internal(set) var addressStreet: [UInt32] = []

    // Street geometry: line l runs through points lineStart[l] ..< lineStart[l + 1].
    package internal(set) var lineStart: [UInt32] = [0]
    package internal(set) var pointLatE7: [Int32] = []
    package internal(set) var pointLonE7: [Int32] = []
    package internal(set) var lineStreet: [UInt32] = []

    // The token dictionary, sorted by UTF-8 bytes, and each token's entries.
    var tokens: [String] = []
    var tokenEntryStart: [UInt32] = [0]
    var tokenEntries: [UInt32] = []
    /// For one-typo matching: the hash of every one-letter deletion of every token of five
    /// letters or more, with the token, sorted by hash.
    var deletionHash: [UInt64] = []
    var deletionToken: [UInt32] = []

    // Spatial indexes: built with the table, stored in its file.
    var addressTree = PointTree()
    var cityTree = PointTree()
    var streets = SegmentGrid()
    package internal(set) var cityEntries: [UInt32] = []

    static let none = UInt32.max

    /// Entries (streets, places, cities), addresses and tokens.
    public var entryCount: Int { entryLabel.count }
    /// The number of house addresses.
    public var addressCount: Int { addressLabel.count }
    /// The number of distinct words in the dictionary.
    public var tokenCount: Int { tokens.count }

    /// Builds the spatial indexes from the arrays.
    mutating func prepare() {
        addressTree = PointTree(addressLat.indices.map { Coordinate(unchecked: addressLat[$0], addressLon[$0]) })
        cityEntries = cityEntryIDs
        cityTree = PointTree(cityCoordinates)
        streets = SegmentGrid(SegmentTree(latE7: pointLatE7, lonE7: pointLonE7, lineStart: lineStart))
    }

    /// The gazetteer cities among the entries, in entry order: the points of `cityTree`.
    var cityEntryIDs: [UInt32] {
        entryKind.indices.filter { entryKind[$0] == PlaceKind.city.rawValue }.map { UInt32($0) }
    }

    /// The id of a token, if the dictionary has it.
    func tokenID(_ t: String) -> Int? {
        let i = lowerBound(t)
        return i < tokens.count && tokens[i] == t ? i : nil
    }

    /// The first token not ordered before `t` (UTF-8 byte order).
    func lowerBound(_ t: String) -> Int {
        var lo = 0, hi = tokens.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if tokens[mid].utf8.lexicographicallyPrecedes(t.utf8) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// FNV-1a over UTF-8 bytes, for the deletion index.
    static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }
}

/// Collects geocoding material and turns it into a `GeocoderTable`.
public struct GeocoderBuilder {
    struct Street { var name: String; var key: String; var lines: [[(Int32, Int32)]]; var minLat, maxLat, minLon, maxLon: Double }
    struct Address { var number: String; var street: String; var postcode: String?; var city: String?; var lat, lon: Double }
    struct Named { var name: String; var kind: PlaceKind; var lat, lon: Double; var label: String }

    var streets: [Street] = []
    var streetsByKey: [String: [Int]] = [:]
    var addresses: [Address] = []
    var named: [Named] = []
    /// Gazetteer rows skipped for having no name.
    public internal(set) var unnamedGazetteerRows = 0

    /// An empty builder.
    public init() {}

    /// The key streets are grouped and matched by: their tokens, joined.
    static func key(_ name: String) -> String { Normalizer.tokens(name).joined(separator: " ") }

    /// Adds a named street line (a `highway` way's geometry). Lines of the same name within
    /// 500 m of each other are one street.
    mutating func addStreet(name: String, line: [(Int32, Int32)]) {
        guard line.count >= 2 else { return }
        let key = Self.key(name)
        guard !key.isEmpty else { return }
        let lats = line.map { Double($0.0) * 1e-7 }, lons = line.map { Double($0.1) * 1e-7 }
        let (a, b, c, d) = (lats.min()!, lats.max()!, lons.min()!, lons.max()!)
        let margin = 0.005  // about 500 m
        if let near = streetsByKey[key]?.first(where: { i in
            let s = streets[i]
            return a <= s.maxLat + margin && b >= s.minLat - margin && c <= s.maxLon + margin * 2 && d >= s.minLon - margin * 2
        }) {
            streets[near].lines.append(line)
            streets[near].minLat = min(streets[near].minLat, a); streets[near].maxLat = max(streets[near].maxLat, b)
            streets[near].minLon = min(streets[near].minLon, c); streets[near].maxLon = max(streets[near].maxLon, d)
            return
        }
        streetsByKey[key, default: []].append(streets.count)
        streets.append(Street(name: name, key: key, lines: [line], minLat: a, maxLat: b, minLon: c, maxLon: d))
    }

    mutating func addAddress(number: String, street: String, postcode: String?, city: String?, at c: Coordinate) {
        addresses.append(Address(number: number, street: street, postcode: postcode, city: city, lat: c.latitude, lon: c.longitude))
    }

    mutating func addPlace(name: String, kind: PlaceKind, at c: Coordinate, label: String? = nil) {
        named.append(Named(name: name, kind: kind, lat: c.latitude, lon: c.longitude, label: label ?? name))
    }

    /// The finished table.
    public func build() -> GeocoderTable {
        var t = GeocoderTable()
        var streets = self.streets, byKey = streetsByKey
        // Each address joins the nearest street of its name within 2 km, or a street of its
        // own (addresses whose street is not in the road data).
        var streetOf = [Int](repeating: 0, count: addresses.count)
        for (i, a) in addresses.enumerated() {
            let key = Self.key(a.street)
            let here = Coordinate(unchecked: a.lat, a.lon)
            let best = (byKey[key] ?? []).min { x, y in
                centre(streets[x]).distance(to: here) < centre(streets[y]).distance(to: here)
            }
            if let best, centre(streets[best]).distance(to: here) < 2_000 + extent(streets[best]) { streetOf[i] = best; continue }
            byKey[key, default: []].append(streets.count)
            streetOf[i] = streets.count
            streets.append(Street(name: a.street, key: key, lines: [], minLat: a.lat, maxLat: a.lat, minLon: a.lon, maxLon: a.lon))
        }
        var tokenIndex: [String: UInt32] = [:], tokenList: [String] = []
        func tokenIDs(_ name: String) -> [UInt32] {
            Normalizer.tokens(name).map { tok in
                if let k = tokenIndex[tok] { return k }
                tokenIndex[tok] = UInt32(tokenList.count); tokenList.append(tok)
                return UInt32(tokenList.count - 1)
            }
        }
        func addEntry(_ label: String, _ name: String, _ kind: PlaceKind, _ lat: Double, _ lon: Double, street: UInt32) {
            t.entryLabel.append(label); t.entryKind.append(kind.rawValue); t.entryLat.append(lat); t.entryLon.append(lon)
            t.entryTokens += tokenIDs(name); t.entryTokenStart.append(UInt32(t.entryTokens.count)); t.entryStreet.append(street)
        }
        // Streets: entries, lines, and their addresses sorted by number.
        var byStreet = [[Int]](repeating: [], count: streets.count)
        for (i, s) in streetOf.enumerated() { byStreet[s].append(i) }
        for (s, street) in streets.enumerated() {
            let c = street.lines.isEmpty ? centre(street) : Coordinate(unchecked: Double(street.lines[0][street.lines[0].count / 2].0) * 1e-7,
                                                                       Double(street.lines[0][street.lines[0].count / 2].1) * 1e-7)
            t.streetEntry.append(UInt32(t.entryLabel.count))
            addEntry(street.name, street.name, .street, c.latitude, c.longitude, street: UInt32(s))
            for line in street.lines {
                for (la, lo) in line { t.pointLatE7.append(la); t.pointLonE7.append(lo) }
                t.lineStart.append(UInt32(t.pointLatE7.count)); t.lineStreet.append(UInt32(s))
            }
            t.streetLineStart.append(UInt32(t.lineStreet.count))
            let sorted = byStreet[s].sorted {
                (Normalizer.numericPart(addresses[$0].number) ?? 0, addresses[$0].number) < (Normalizer.numericPart(addresses[$1].number) ?? 0, addresses[$1].number)
            }
            for i in sorted {
                let a = addresses[i]
                var label = "\(a.number) \(a.street)"
                let place = [a.postcode, a.city].compactMap { $0 }.joined(separator: " ")
                if !place.isEmpty { label += ", " + place }
                t.addressNumber.append(Self.houseNumberKey(a.number)); t.addressForm.append(Self.houseNumberForm(a.number))
                t.addressNumeric.append(Int32(Normalizer.numericPart(a.number) ?? -1))
                t.addressLat.append(a.lat); t.addressLon.append(a.lon); t.addressLabel.append(label); t.addressStreet.append(UInt32(s))
            }
            t.streetAddressStart.append(UInt32(t.addressLabel.count))
        }
        for n in named { addEntry(n.label, n.name, n.kind, n.lat, n.lon, street: GeocoderTable.none) }

        // Sort the dictionary and remap the entries' token ids.
        let order = tokenList.indices.sorted { tokenList[$0].utf8.lexicographicallyPrecedes(tokenList[$1].utf8) }
        var newID = [UInt32](repeating: 0, count: tokenList.count)
        for (new, old) in order.enumerated() { newID[old] = UInt32(new) }
        t.tokens = order.map { tokenList[$0] }
        t.entryTokens = t.entryTokens.map { newID[Int($0)] }
        var postings = [[UInt32]](repeating: [], count: t.tokens.count)
        for e in 0..<t.entryLabel.count {
            for k in Int(t.entryTokenStart[e])..<Int(t.entryTokenStart[e + 1]) where postings[Int(t.entryTokens[k])].last != UInt32(e) {
                postings[Int(t.entryTokens[k])].append(UInt32(e))
            }
        }
        for p in postings { t.tokenEntries += p; t.tokenEntryStart.append(UInt32(t.tokenEntries.count)) }
        var deletions: [(UInt64, UInt32)] = []
        for (id, tok) in t.tokens.enumerated() {
            let bytes = Array(tok.utf8)
            guard bytes.count >= 5 else { continue }
            for k in bytes.indices {
                var d = bytes
                d.remove(at: k)
                deletions.append((GeocoderTable.hash(d), UInt32(id)))
            }
        }
        deletions.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        t.deletionHash = deletions.map(\.0); t.deletionToken = deletions.map(\.1)
        t.prepare()
        return t
    }

    /// A house number as the index stores it: read as a query reads it ("12 Bis" → "12bis",
    /// "14-20" → "14").
    static func houseNumberKey(_ number: String) -> String {
        Normalizer.splitHouseNumber(Normalizer.tokens(number)).number ?? Normalizer.fold(number).filter { $0.isLetter || $0.isNumber }
    }

    /// A house number as tagged, read as a query reads it ("14 - 20" → "14-20"), with any
    /// words that follow it ("33, pohjakerros" → "33-pohjakerros"), so that only a tag
    /// typed exactly is preferred.
    static func houseNumberForm(_ number: String) -> String {
        let split = Normalizer.splitHouseNumber(Normalizer.tokens(number))
        guard let form = split.form else { return houseNumberKey(number) }
        return ([form] + split.rest).joined(separator: "-")
    }

    func centre(_ s: Street) -> Coordinate { Coordinate(unchecked: (s.minLat + s.maxLat) / 2, (s.minLon + s.maxLon) / 2) }
    func extent(_ s: Street) -> Double {
        Coordinate(unchecked: s.minLat, s.minLon).distance(to: Coordinate(unchecked: s.maxLat, s.maxLon)) / 2
    }
}

extension GeocoderTable {
    /// The gazetteer places' coordinates, in the order `reverse` indexes them (for baselines
    /// and oracles that need the raw points).
    public var cityCoordinates: [Coordinate] {
        cityEntries.map { Coordinate(unchecked: entryLat[Int($0)], entryLon[Int($0)]) }
    }
}
