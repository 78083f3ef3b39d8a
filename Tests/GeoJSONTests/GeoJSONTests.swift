import Testing
@testable import GeoJSON

private func parse(_ s: String) throws -> JSONValue { try JSONParser.parse(Array(s.utf8)) }

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let v = try parse(#"{"a": [1, -2.5e3, true, false, null], "b": "x\u00e9\n\"", "c": {}}"#)
        #expect(v["a"] == .array([.number(1), .number(-2500), .bool(true), .bool(false), .null]))
        #expect(v["b"] == .string("xé\n\""))
        #expect(v["c"] == .object([]))
        #expect(try parse(#""\ud83d\ude95""#) == .string("🚕"))
    }

    @Test func errorsNameTheLineAndColumn() {
        let error = #expect(throws: JSONSyntaxError.self) { try parse("{\n  \"a\": [1, 2,\n  ]\n}") }
        #expect(error?.line == 3)
        #expect(error?.description.hasPrefix("line 3, column 3") == true)
    }

    @Test(arguments: ["", "   ", "{", "[1,]", "{\"a\" 1}", "NaN", "[NaN]", "01", "1.", "\"abc", "[1] x", "tru", "\"\\x\"",
                      "\"\u{01}\"", "{\"a\":1,}", "-", "[\"\\ud800\"]"])
    func refusesMalformedText(_ text: String) {
        #expect(throws: JSONSyntaxError.self) { try parse(text) }
    }

    @Test func refusesDeepNestingWithoutCrashing() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try parse(deep) }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func serialisesBack() throws {
        let text = #"{"a":[1,2.5,"q\"t"],"b":null}"#
        #expect(try parse(text).serialized == text)
    }
}

@Suite struct FeatureCollectionTests {
    static let square = #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}"#

    private func collection(_ geometry: String, crs: String = "") throws(GeoJSONError) -> FeatureCollection {
        try FeatureCollection(parsing: Array(#"{"type":"FeatureCollection",\#(crs)"features":[{"type":"Feature","properties":{"id":7},"geometry":\#(geometry)}]}"#.utf8))
    }

    @Test func readsFeaturesAndTheLegacyCRS() throws {
        let c = try collection(Self.square, crs: #""crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::2263"}},"#)
        #expect(c.crsName == "urn:ogc:def:crs:EPSG::2263")
        #expect(c.features.count == 1)
        #expect(c.features[0].property("id") == .number(7))
        #expect(c.features[0].geometry?.polygons?.first?.first?.count == 5)
    }

    @Test func refusesAnUnclosedRing() {
        #expect(throws: GeoJSONError.feature(index: 0, path: "geometry.coordinates[0]",
                                             reason: "ring is not closed (first and last positions differ)")) {
            try collection(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0.5]]]}"#)
        }
    }

    @Test func refusesStringsForNumbers() {
        #expect(throws: GeoJSONError.feature(index: 0, path: "geometry.coordinates[0][2][1]", reason: #"expected a number, found "1""#)) {
            try collection(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,"1"],[0,1],[0,0]]]}"#)
        }
    }

    @Test func refusesEmptyAndForeignDocuments() {
        #expect(throws: GeoJSONError.noFeatures) { try FeatureCollection(parsing: Array(#"{"type":"FeatureCollection","features":[]}"#.utf8)) }
        #expect(throws: GeoJSONError.self) { try FeatureCollection(parsing: Array(#"{"type":"Feature"}"#.utf8)) }
        #expect(throws: GeoJSONError.self) { try FeatureCollection(parsing: Array("[1,2]".utf8)) }
        #expect(throws: GeoJSONError.self) { try FeatureCollection(parsing: [UInt8]()) }
    }

    @Test func refusesUnknownGeometryTypes() {
        #expect(throws: GeoJSONError.self) { try collection(#"{"type":"Circle","coordinates":[0,0]}"#) }
    }

    @Test func writesGeometryAsGeoJSON() throws {
        let g = GeoJSONGeometry.lineString([Position(x: 7.4, y: 43.7), Position(x: 7.5, y: 43.8)])
        #expect(g.json.serialized == #"{"type":"LineString","coordinates":[[7.4,43.7],[7.5,43.8]]}"#)
    }
}
