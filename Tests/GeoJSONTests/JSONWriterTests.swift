import Foundation
import GeoJSON
import Testing

/// The byte writer against independent spellings: C's `printf` for fixed decimals, Swift's
/// `Double(String)` for the shortest form, and the strict parser for strings.
@Suite("GeoJSON: the JSON writer")
struct JSONWriterTests {
    static func written(_ body: (inout JSONWriter) -> Void) -> String {
        var w = JSONWriter()
        body(&w)
        return w.text
    }

    @Test("fixed decimals agree with printf's %.7f, trailing zeros left out")
    func fixedDecimals() {
        var state: UInt64 = 42
        func next() -> Double {  // a linear congruential draw in [-180, 180]
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53) * 360 - 180
        }
        var differ = 0
        let count = 20_000
        for i in 0..<count {
            let x = i < 6 ? [0, -0.0, 180, -180, 1e-8, -5e-8][i] : next()
            let ours = Self.written { $0.fixed(x, decimals: 7) }
            var reference = String(format: "%.7f", x)
            while reference.hasSuffix("0") { reference.removeLast() }
            if reference.hasSuffix(".") { reference.removeLast() }
            if reference == "-0" { reference = "0" }
            #expect(!ours.contains(".") || ours.split(separator: ".")[1].count <= 7 && !ours.hasSuffix("0"), "\(ours)")
            if ours != reference {
                differ += 1  // a tie broken the other way after the multiplication by 1e7
                #expect(abs((Double(ours) ?? .nan) - x) <= 0.5000001e-7, "\(x): \(ours) vs \(reference)")
            }
        }
        #expect(differ < count / 1000, "\(differ) of \(count) differ from printf")
        #expect(Self.written { $0.fixed(12.5, decimals: 0) } == "13" && Self.written { $0.fixed(0.05, decimals: 1) } == "0.1")
        #expect(Self.written { $0.fixed(.nan, decimals: 7) } == "null" && Self.written { $0.fixed(1e300, decimals: 7) } == "1e+300")
    }

    @Test("numbers read back as themselves; whole ones have no fraction; integers at their limits")
    func numbers() {
        for x in [0.1, -2.5, 1e-300, 123_456_789.125, 1e15, 1e16, -0.0, Double.ulpOfOne, 5e-324] {
            let text = Self.written { $0.number(x) }
            #expect(Double(text) == x, "\(x): \(text)")
        }
        #expect(Self.written { $0.number(42) } == "42" && Self.written { $0.number(-3) } == "-3" && Self.written { $0.number(.infinity) } == "null")
        #expect(Self.written { $0.integer(.min) } == "-9223372036854775808" && Self.written { $0.integer(.max) } == "9223372036854775807")
        #expect(Self.written { $0.unsigned(.max) } == "18446744073709551615" && Self.written { $0.unsigned(0) } == "0")
    }

    @Test("strings read back through the strict parser, every control character escaped")
    func strings() throws {
        let samples = ["", "a", "\"", "\\", "\u{0}\u{1}\u{1f}", "tab\there", "line\nbreak\r", "é東京🚕", "\u{7f}\u{2028}", String(repeating: "x\"", count: 300)]
        for s in samples {
            let text = Self.written { $0.string(s) }
            #expect(!text.utf8.contains { $0 < 0x20 }, "\(text)")
            #expect(try JSONParser.parse(Array(text.utf8)) == .string(s))
        }
        let value = JSONValue.object([("a", .array([.null, .bool(true), .number(1.5), .string("é")])), ("b", .object([]))])
        #expect(value.serialized == #"{"a":[null,true,1.5,"é"],"b":{}}"#)
        #expect(try JSONParser.parse(Array(value.serialized.utf8)) == value)
    }
}
