import Foundation
import Testing
import Workloads
import Geodesy
import OSM
import TestSupport
@testable import Geocoding
import BinaryFile

/// One table for the suite: Monaco and Helsinki (OSM) and the GeoNames gazetteer.
let sharedTable: GeocoderTable? = {
    guard SharedData.isAvailable else { return nil }
    var b = GeocoderBuilder()
    do {
        try b.addOSM(path: SharedData.path("monaco/monaco.osm.pbf"))
        try b.addOSM(path: SharedData.path("helsinki/helsinki.osm.pbf"))
        try b.addGazetteer(path: SharedData.path("gazetteer/cities1000.csv"))
    } catch {
        Issue.record("building the table failed: \(error)")
        return nil
    }
    return b.build()
}()

/// An object carrying an address in an OSM extract, read here apart from the builder: a
/// node, or a way with its outline.
struct AddressObject {
    var number: String, street: String
    /// The node, or the way's nodes (closed: first = last).
    var outline: [Coordinate]
    var isArea: Bool { outline.count >= 4 && outline.first == outline.last }

    /// The area centroid of a closed way, as the area-weighted mean of the centroids of the
    /// triangles (p0, pi, pi+1) (not the builder's shoelace); else the mean of the nodes.
    var centroid: Coordinate {
        let p = isArea ? Array(outline.dropLast()) : outline
        let mean = Coordinate(unchecked: p.map(\.latitude).reduce(0, +) / Double(p.count), p.map(\.longitude).reduce(0, +) / Double(p.count))
        guard isArea else { return mean }
        let v = p.map { local($0) }
        var area = 0.0, x = 0.0, y = 0.0
        for i in 1..<(v.count - 1) {
            let a = (v[i].x * v[i + 1].y - v[i + 1].x * v[i].y) / 2   // the triangle (0, i, i+1); p0 is the origin
            area += a; x += a * (v[i].x + v[i + 1].x) / 3; y += a * (v[i].y + v[i + 1].y) / 3
        }
        guard abs(area) > 0.01 else { return mean }
        return coordinate(x / area, y / area)
    }

    /// Metres from `c` to the object: 0 inside an area, else to its nearest edge or node.
    func metres(to c: Coordinate) -> Double {
        let v = outline.map { local($0) }, q = local(c)
        if isArea {
            var inside = false
            for (a, b) in zip(v, v.dropFirst()) where (a.y > q.y) != (b.y > q.y) {
                if a.x + (q.y - a.y) / (b.y - a.y) * (b.x - a.x) > q.x { inside.toggle() }
            }
            if inside { return 0 }
        }
        guard v.count > 1 else { return hypot(v[0].x - q.x, v[0].y - q.y) }
        return zip(v, v.dropFirst()).map { a, b in
            let dx = b.x - a.x, dy = b.y - a.y, l = dx * dx + dy * dy
            let t = l == 0 ? 0 : max(0, min(1, ((q.x - a.x) * dx + (q.y - a.y) * dy) / l))
            return hypot(a.x + t * dx - q.x, a.y + t * dy - q.y)
        }.min()!
    }

    /// Metres east and north of the first node (an equirectangular frame: buildings are small).
    private func local(_ c: Coordinate) -> (x: Double, y: Double) {
        let o = outline[0]
        return ((c.longitude - o.longitude) * cos(o.latitude * .pi / 180) * 111_195, (c.latitude - o.latitude) * 111_195)
    }
    private func coordinate(_ x: Double, _ y: Double) -> Coordinate {
        let o = outline[0]
        return Coordinate(unchecked: o.latitude + y / 111_195, o.longitude + x / 111_195 / cos(o.latitude * .pi / 180))
    }
}

/// The objects carrying an address in an extract, one per number of a "12;14" list.
func osmAddresses(_ relative: String) throws -> [AddressObject] {
    var nodes: [Int64: Coordinate] = [:], out: [AddressObject] = [], ways: [OSMWay] = []
    try PBFReader(path: SharedData.path(relative)).forEachBlock { b in
        for n in b.nodes {
            nodes[n.id] = Coordinate(unchecked: n.latitude, n.longitude)
            if let h = n.tags["addr:housenumber"], let s = n.tags["addr:street"] { out.append(AddressObject(number: h, street: s, outline: [nodes[n.id]!])) }
        }
        ways += b.ways.filter { $0.tags["addr:housenumber"] != nil && $0.tags["addr:street"] != nil }
    }
    for w in ways {
        let outline = w.nodes.compactMap { nodes[$0] }
        guard !outline.isEmpty else { continue }
        out.append(AddressObject(number: w.tags["addr:housenumber"]!, street: w.tags["addr:street"]!, outline: outline))
    }
    return out.flatMap { a in
        a.number.split(separator: ";").map { AddressObject(number: String($0).trimmingCharacters(in: .whitespaces), street: a.street, outline: a.outline) }
    }
}

/// A house number as tagged, compared loosely: case, spaces and dash kinds ignored.
func taggedForm(_ number: String) -> String {
    number.lowercased().filter { !$0.isWhitespace }.replacingOccurrences(of: "–", with: "-")
}

/// Strips accents the way a passenger without them types.
func plain(_ s: String) -> String { s.folding(options: [.diacriticInsensitive], locale: nil) }

@Suite struct GeocoderRealDataTests {
    /// Every address is found by its own text, number first or last, without accents. The
    /// top answer lies within 30 m of an object carrying that address for at least 99 %,
    /// measured two ways: within 30 m of the object itself (inside its outline counts as 0 m)
    /// among objects sharing the number's key (so "14-20" carries "14"); and within 30 m of
    /// the area centroid of an object tagged as the query types the number (a range, a
    /// suffix).
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage), arguments: ["monaco/monaco.osm.pbf", "helsinki/helsinki.osm.pbf"])
    func everyAddressIsFoundByItsText(_ extract: String) throws {
        let t = try #require(sharedTable)
        let addresses = try osmAddresses(extract)
        #expect(addresses.count > 50)
        var topNear = 0, topNearCentroid = 0, total = 0
        var misses: [String] = []
        for a in addresses {
            let key = GeocoderBuilder.houseNumberKey(a.number), street = Normalizer.tokens(a.street)
            // The objects that carry this address (several entrances may).
            let sameStreet = addresses.filter { Normalizer.tokens($0.street) == street }
            let carriers = sameStreet.filter { GeocoderBuilder.houseNumberKey($0.number) == key }
            let asTagged = sameStreet.filter { taggedForm($0.number) == taggedForm(a.number) }.map(\.centroid)
            // A malformed number ("11 B 9", or a street in the number) is still counted in the
            // recall, but only well-formed ones must always be found.
            let wellFormed = a.number.range(of: #"^\d+ ?[A-Za-z]{0,3}( ?[-–] ?\d+ ?[A-Za-z]?)?$"#, options: .regularExpression) != nil
            for query in ["\(a.number) \(plain(a.street))", "\(plain(a.street)) \(a.number)"] {
                total += 1
                let found = try t.geocode(query, limit: 10)
                let hit = found.contains { c in c.kind == .address && carriers.contains { $0.metres(to: c.coordinate) <= 30 } }
                if wellFormed { #expect(hit, "\(query) → \(found.prefix(3).map(\.label))") }
                if let top = found.first, carriers.contains(where: { $0.metres(to: top.coordinate) <= 30 }) { topNear += 1 }
                else if misses.count < 10 {
                    let d = found.first.map { top in carriers.map { $0.metres(to: top.coordinate) }.min() ?? -1 } ?? -1
                    misses.append("object: \(query) → \(found.first?.label ?? "nothing") (\(Int(d)) m)")
                }
                if let top = found.first, asTagged.contains(where: { $0.distance(to: top.coordinate) <= 30 }) { topNearCentroid += 1 }
                else if misses.count < 10 {
                    let d = found.first.map { top in asTagged.map { $0.distance(to: top.coordinate) }.min() ?? -1 } ?? -1
                    misses.append("\(query) → \(found.first?.label ?? "nothing") (\(Int(d)) m)")
                }
            }
        }
        let recall = Double(topNear) / Double(total), centroidRecall = Double(topNearCentroid) / Double(total)
        print("\(extract): \(addresses.count) addresses, \(total) queries; top answer within 30 m of an object with that number: "
              + "\(String(format: "%.2f", recall * 100)) %; of the centroid of an object tagged as typed: \(String(format: "%.2f", centroidRecall * 100)) %")
        print("  first misses: \(misses.joined(separator: "; "))")
        #expect(recall >= 0.99)
        #expect(centroidRecall >= 0.99)
    }

    /// The reverse lookup of each address point gives that address or another at the same point.
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func reverseOfEachAddressIsThatAddress() throws {
        let t = try #require(sharedTable)
        for i in 0..<t.addressCount {
            let p = Coordinate(unchecked: t.addressLat[i], t.addressLon[i])
            let r = try #require(t.reverse(p))
            #expect(r.kind == .address && (r.label == t.addressLabel[i] || r.metres < 0.01), "\(t.addressLabel[i]) → \(r.label)")
        }
    }

    /// The street grid against a scan of every segment, on Monaco's and Helsinki's streets,
    /// and the same answers from the table after a trip through its file.
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func reverseStreetsMatchAScanOfEverySegmentAndSurviveTheFile() throws {
        let t = try #require(sharedTable)
        let back = try GeocoderFile.decode(GeocoderFile.encode(t), path: "shared")
        let tree = t.streets.tree
        var streets = 0
        for p in t.samplePoints(600, seed: 9) {
            let r = try #require(t.reverse(p))
            #expect(back.reverse(p) == r)
            guard r.kind != .address else { continue }
            let cosφ = cos(p.latitude * .pi / 180)
            let truth = (0..<tree.segmentPoint.count).map { tree.project(p, onSegment: $0, cosφ: cosφ).metres }.min()!
            if truth <= 1_000 {
                #expect(r.kind == .street && r.metres == truth, "\(p): \(r.metres) vs \(truth)")
                streets += 1
            } else {
                #expect(r.kind == .city)
            }
        }
        #expect(streets > 100)
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func typosAbbreviationsAccentsAndPrefixesFindTheStreet() throws {
        let t = try #require(sharedTable)
        let cases: [(String, String)] = [
            ("mannerheimintei", "Mannerheimintie"),      // swapped letters
            ("mannerhiemintie", "Mannerheimintie"),
            ("mannerheimintiee", "Mannerheimintie"),     // an extra letter
            ("Bd des Moulins", "Boulevard des Moulins"), // abbreviation
            ("bld des moulins", "Boulevard des Moulins"),
            ("Av. de la Costa", "Avenue de la Costa"),
            ("rond point sainte devote", "Rond-Point Sainte-Dévote"),  // no accents, no hyphens
            ("Boulevard des Moul", "Boulevard des Moulins"),           // type-ahead
            ("Aleksanterink.", "Aleksanterinkatu"),                    // Finnish -k.
            ("kaivok", "Kaivokatu"),
            ("Boxlevard des Moulins", "Boulevard des Moulins"),        // a typo in the street type,
            ("Axenue de la Costa", "Avenue de la Costa"),              // which tables hold abbreviated
        ]
        for (query, street) in cases {
            let found = try t.geocode(query, limit: 5)
            #expect(found.contains { $0.kind == .street && $0.label == street }, "\(query) → \(found.map(\.label))")
            #expect(found.first?.label == street, "\(query) → \(found.map(\.label))")
        }
        // Typing more letters keeps the right street on top.
        for prefix in ["manne", "mannerh", "mannerheimint"] {
            #expect(try t.geocode(prefix, limit: 3).contains { $0.label == "Mannerheimintie" }, "\(prefix)")
        }
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func gazetteerPlacesAndTheFocusPoint() throws {
        let t = try #require(sharedTable)
        #expect(try t.geocode("Helsinki").first?.label == "Helsinki, Uusimaa, FI")
        let illinois = try t.geocode("Springfield", near: Coordinate(unchecked: 39.8, -89.65)).first
        #expect(illinois?.label == "Springfield, Illinois, US")
        let massachusetts = try t.geocode("Springfield", near: Coordinate(unchecked: 42.1, -72.6)).first
        #expect(massachusetts?.label == "Springfield, Massachusetts, US")
        #expect(try t.geocode("Casino de Monte-Carlo").first?.kind == .place)
        // Reverse far from any street: the nearest gazetteer place, as the globe measures it.
        let paris = try #require(t.reverse(Coordinate(unchecked: 48.85, 2.35)))
        #expect(paris.kind == .city && paris.label.hasPrefix("Paris,"))
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func badQueriesAreClearErrors() throws {
        let t = try #require(sharedTable)
        func message(_ q: String) -> String {
            do { _ = try t.geocode(q); return "no error" } catch { return error.description }
        }
        #expect(message("") == "empty query")
        #expect(message("  ,;  ") == "empty query")
        #expect(message(String(repeating: "a", count: 10_000)).hasPrefix("query too long"))
        #expect(message("rue\u{0}grimaldi") == "query contains control characters")
        #expect(message("12") == "a house number alone is not an address (add the street)")
    }
}

@Suite struct GazetteerInputTests {
    @Test func badRowsAreErrorsNamingTheLine() throws {
        let folder = TemporaryFolder()
        func message(_ text: String) -> String {
            var b = GeocoderBuilder()
            do { try b.addGazetteer(path: folder.write("g.csv", text)); return "no error" } catch { return error.description }
        }
        let header = "lat,lon,name,admin1,admin2,cc\n"
        #expect(message(header + "60.1,24.9,Helsinki,Uusimaa,,FI\nnorth,24.9,X,,,FI\n").hasSuffix("g.csv: line 3: lat \"north\" is not a finite number"))
        #expect(message(header + "95,24.9,X,,,FI\n").hasSuffix("g.csv: line 2: impossible coordinate 95.0,24.9"))
        #expect(message("lat,lon,name\n1,2,x\n").contains("the header has no column \"admin1\""))
        var b = GeocoderBuilder()
        let bad = folder.write("bytes.csv", bytes: Array(header.utf8) + [0x36, 0x30, 0x2C, 0x32, 0x2C, 0xFF, 0xFE, 0x2C, 0x2C, 0x2C, 0x46, 0x49, 0x0A])
        do { try b.addGazetteer(path: bad); Issue.record("invalid UTF-8 accepted") } catch {
            #expect(error.description.hasSuffix("bytes.csv: line 2: invalid UTF-8"))
        }
        // A row without a name is skipped and counted, not fatal (GeoNames has one).
        var c = GeocoderBuilder()
        try c.addGazetteer(path: folder.write("u.csv", header + "51.8,58.2,,Bashkortostan,,RU\n60.1,24.9,Helsinki,Uusimaa,,FI\n"))
        #expect(c.unnamedGazetteerRows == 1 && c.build().entryCount == 1)
    }
}

@Suite struct GeocoderFileTests {
    func smallTable() throws -> GeocoderTable {
        var b = GeocoderBuilder()
        b.addStreet(name: "Boulevard des Moulins", line: [(437_400_000, 74_250_000), (437_410_000, 74_260_000)])
        b.addAddress(number: "12", street: "Boulevard des Moulins", postcode: "98000", city: "Monaco", at: Coordinate(unchecked: 43.7405, 7.4255))
        b.addPlace(name: "Casino de Monte-Carlo", kind: .place, at: Coordinate(unchecked: 43.7392, 7.4285))
        return b.build()
    }

    @Test func roundTripAndRefusals() throws {
        let t = try smallTable()
        let bytes = GeocoderFile.encode(t)
        let back = try GeocoderFile.decode(bytes, path: "t")
        #expect(try back.geocode("12 bd des moulins").first?.label == "12 Boulevard des Moulins, 98000 Monaco")
        #expect(try back.geocode("casino").first?.kind == .place)
        func message(_ b: [UInt8]) -> String {
            do { _ = try GeocoderFile.decode(b, path: "t"); return "no error" } catch { return error.description }
        }
        var other = bytes
        other[8] = 7
        #expect(message(other) == "t: geocoder table format version 7; this Wayfare reads version \(GeocoderFile.version)")
        var flipped = bytes
        flipped[bytes.count - 3] ^= 1
        #expect(message(flipped) == "t: geocoder table is corrupt (checksum mismatch)")
        // Re-checksummed garbage is refused or searches without crashing.
        var rng = SeededRandom(seed: 5)
        for _ in 0..<200 {
            var b = bytes
            b[Int.random(in: 32..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            let sum = BinaryFile.checksum(Array(b[32...]))
            withUnsafeBytes(of: sum.littleEndian) { for j in 0..<8 { b[24 + j] = $0[j] } }
            guard let u = try? GeocoderFile.decode(b, path: "x") else { continue }
            _ = try? u.geocode("12 boulevard des moulins")
            _ = u.reverse(Coordinate(unchecked: 43.7405, 7.4255))
        }
    }
}
