import Fares
import Fleet
import Foundation
import Testing
import TestSupport

@Suite struct TollListTests {
    let list = try! TollList(currency: "INR", tolls: [
        .init(name: "La Turbie", ways: [10, 11, 12], prices: ["Sedan": 30_000, "Hatchback": 25_000], defaultPrice: 20_000),
        .init(name: "Bridge", ways: [20], prices: ["Sedan": 5_000]),
    ])

    @Test func eachTollIsPaidOnceAtItsPriceForTheCabType() throws {
        let sedan = try list.charge(for: [10, 11, 99, 12, 20], type: .sedan)
        #expect(sedan.total == 35_000 && sedan.lines.map(\.name) == ["La Turbie", "Bridge"] && sedan.unpriced == [99])
        #expect(try list.charge(for: [11], type: .tataNano).total == 20_000)  // the default price
        #expect(try list.charge(for: [], type: .sedan).total == 0)
        #expect(throws: FareError.noRate(serviceArea: "toll Bridge", cabType: "Hatchback")) { try list.charge(for: [20], type: .hatchback) }
        #expect(throws: FareError.self) { try TollList(currency: "INR", tolls: [.init(name: "a", ways: [1], prices: [:]), .init(name: "b", ways: [1], prices: [:])]) }
    }

    @Test func badTollFilesNameTheField() throws {
        let folder = TemporaryFolder()
        let good = folder.write("tolls.json", #"{"currency":"INR","tolls":[{"name":"La Turbie","ways":[101431177,101431181],"prices":{"Sedan":30000},"default":25000}]}"#)
        let loaded = try TollList.load(path: good)
        #expect(loaded.tolls.first?.ways == [101431177, 101431181] && loaded.tolls.first?.defaultPrice == 25000)
        let cases: [(String, String)] = [
            (#"{"tolls":[]}"#, "currency"),
            (#"{"currency":"INR"}"#, "tolls"),
            (#"{"currency":"INR","tolls":[{"ways":[1],"prices":{}}]}"#, "tolls[0].name"),
            (#"{"currency":"INR","tolls":[{"name":"x","ways":[],"prices":{}}]}"#, "tolls[0].ways"),
            (#"{"currency":"INR","tolls":[{"name":"x","ways":[-1],"prices":{}}]}"#, "tolls[0].ways[0]"),
            (#"{"currency":"INR","tolls":[{"name":"x","ways":[1],"prices":{"Sedan":1.5}}]}"#, "tolls[0].prices.Sedan"),
            (#"{"currency":"INR","tolls":[{"name":"x","ways":[1],"prices":{"Sedan":1e300}}]}"#, "tolls[0].prices.Sedan"),
            (#"{"currency":"INR","tolls":[{"name":"x","ways":[1],"prices":{}},{"name":"y","ways":[1],"prices":{}}]}"#, "tolls[1].ways"),
            ("not json", "bad.json: line 1"),
        ]
        for (text, field) in cases {
            let path = folder.write("bad.json", text)
            #expect { try TollList.load(path: path) } throws: { ($0 as? FareError)?.description.contains(field) == true }
        }
        #expect(throws: FareError.badChart(place: folder.path("none.json"), reason: "no such file")) { try TollList.load(path: folder.path("none.json")) }
    }
}
