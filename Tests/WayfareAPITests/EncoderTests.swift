import Essentials
import Foundation
import GeoJSON
import Geodesy
import Testing
@testable import WayfareAPI

/// The streaming encoder against Foundation's `JSONEncoder`, an encoder written apart from
/// it: the same values must read back as the same JSON, once Foundation's two differences
/// are allowed for (it leaves an absent optional out where ours writes `null`, and it does
/// not keep the fields' order).
@Suite("WayfareAPI: the streaming encoder agrees with Foundation's")
struct StreamingEncoderTests {
    /// Objects' members sorted by name and `null` members dropped.
    static func normal(_ v: JSONValue) -> JSONValue {
        switch v {
        case let .object(m): .object(m.filter { $0.1 != .null }.map { ($0.0, normal($0.1)) }.sorted { $0.0 < $1.0 })
        case let .array(a): .array(a.map(normal))
        default: v
        }
    }

    static func foundation<T: Encodable>(_ value: T) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, e in
            var c = e.singleValueContainer()
            try c.encode(ISO8601.string(date))
        }
        return try JSONParser.parse(Array(try encoder.encode(value)))
    }

    func agree<T: Encodable>(_ value: T, _ label: String) throws {
        let ours = WireEncoder.bytes(value)
        let parsed = try JSONParser.parse(ours)
        #expect(Self.normal(parsed) == Self.normal(try Self.foundation(value)), "\(label): \(String(decoding: ours, as: UTF8.self).prefix(400))")
    }

    /// A type that uses every container shape by hand, with the nesting Codable allows.
    struct Shapes: Encodable {
        var name: String
        var flags: [Bool?]
        var small: (Int8, UInt16, Int32, UInt32, UInt, Float)
        var grid: [[Int64]]
        var when: Date?

        enum Keys: String, CodingKey { case name, inner, list, small, when, last }
        enum InnerKeys: String, CodingKey { case grid, deeper }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(name, forKey: .name)
            var inner = c.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
            try inner.encode(grid, forKey: .grid)
            var deeper = inner.nestedUnkeyedContainer(forKey: .deeper)
            for f in flags { if let f { try deeper.encode(f) } else { try deeper.encodeNil() } }
            var nested = deeper.nestedContainer(keyedBy: InnerKeys.self)
            try nested.encode([Int64]([1, 2]), forKey: .grid)
            // Back at the outer object: the nested containers above must close first.
            var list = c.nestedUnkeyedContainer(forKey: .list)
            try list.encode(small.0); try list.encode(small.1); try list.encode(small.2); try list.encode(small.3); try list.encode(small.4)
            try list.encode(small.5)
            try c.encodeIfPresent(when, forKey: .when)
            try c.encode(name.count, forKey: .last)
        }
    }

    @Test("the API's answers and a hand-made type read back the same, over random values")
    func agreesWithFoundation() throws {
        var rng = SeededRandom(seed: 7)
        func uniform(_ r: ClosedRange<Double>) -> Double { r.lowerBound + Double(rng.next() >> 11) / Double(1 << 53) * (r.upperBound - r.lowerBound) }
        let awkward = ["", "plain", "quote \" and \\ backslash", "tab\tnew\nline\r", "\u{1}\u{1f}\u{7f}", "é 東京 🚕", "</script>"]
        for round in 0..<200 {
            let points = (0..<Int(rng.next() % 40)).map { _ in Coordinate(unchecked: uniform(-90...90), uniform(-180...180)) }
            let name = awkward[round % awkward.count]
            try agree(RouteAnswer(distanceM: uniform(0...1e6), durationS: Double(round), streets: [name, "Rue Grimaldi"], tollWays: [Int64(round), -1, Int64.max],
                                  geometry: LineString(points)), "route \(round)")
            try agree(RouteAnswer(distanceM: 1, durationS: 2, streets: [], tollWays: [], geometry: nil, polyline6: Polyline.encode(points, precision: 6)), "polyline \(round)")
            try agree(CabList(cabs: [CabAnswer(id: round % 2 == 0 ? nil : name, type: "Sedan", status: nil,
                                               position: LatLon(lat: uniform(-90...90), lon: uniform(-180...180)), distanceM: uniform(0...5000))]), "cabs \(round)")
            try agree(ETAList(etas: [.init(id: name, etaS: nil, distanceM: 3.5), .init(id: "b", etaS: 1e-7, distanceM: nil)]), "etas \(round)")
            try agree(Readiness(city: name, owner: round % 3 == 0 ? nil : true, ownerURL: nil, leaseToken: Int64(round) - 100), "ready \(round)")
            try agree(ErrorAnswer(code: "invalid", message: name, field: round % 2 == 0 ? nil : "cabs[3].id"), "error \(round)")
            try agree(Shapes(name: name, flags: [true, nil, false], small: (-128, 65535, Int32.min, UInt32.max, UInt(round), 0.25),
                             grid: [[], [Int64.min, 0, Int64.max]], when: round % 2 == 0 ? nil : Date(timeIntervalSince1970: Double(round) * 1e5 + 0.125)),
                      "shapes \(round)")
        }
    }

    @Test("a line's coordinates are written to 7 decimals, as its own encode(to:) rounds them; a point as given")
    func sevenDecimals() {
        let text = WireEncoder.string(LineString([Coordinate(unchecked: 43.739312345678, 7.42771), Coordinate(unchecked: -0.00000004, -179.99999996)]))
        #expect(text == #"{"type":"LineString","coordinates":[[7.42771,43.7393123],[-180,0]]}"#)
        #expect(WireEncoder.string(LatLon(lat: 43.73931235, lon: -7.000000049)) == #"{"lat":43.73931235,"lon":-7.000000049}"#, "points as given")
    }

    @Test("a line reads back from its GeoJSON form; a short position, a latitude out of range or another type is refused")
    func lineReadsBack() throws {
        let line = LineString([Coordinate(unchecked: 43.7393123, 7.42771), Coordinate(unchecked: 43.7, 7.4)])
        #expect(try WireDecoder.answers.decode(LineString.self, from: WireEncoder.bytes(line)) == line)
        for bad in [#"{"type":"LineString","coordinates":[[7.4]]}"#, #"{"type":"LineString","coordinates":[[7.4,95]]}"#,
                    #"{"type":"Point","coordinates":[[7.4,43.7]]}"#, #"{"type":"LineString","coordinates":[7.4,43.7]}"#] {
            #expect(throws: (any Error).self, "\(bad)") { try WireDecoder.answers.decode(LineString.self, from: Array(bad.utf8)) }
        }
    }

    @Test("a value that writes nothing is null; a container used after it closed fails the whole value, never a wrong document")
    func misuse() {
        struct Silent: Encodable { func encode(to encoder: any Encoder) throws {} }
        struct Stale: Encodable {
            enum K: String, CodingKey { case a, b }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: K.self)
                var first = c.nestedUnkeyedContainer(forKey: .a)
                _ = c.nestedUnkeyedContainer(forKey: .b)
                try first.encode(1)  // `a` was closed when `b` opened
            }
        }
        #expect(WireEncoder.string(["x": Silent()]) == #"{"x":null}"#)
        #expect(WireEncoder.string(Stale()) == "null")
    }
}

