import Testing
import Geodesy
import TestSupport
import Geocoding

/// The public search API at its edges, on the Monaco extract that ships in `Data/`.
@Suite struct GeocoderAPIEdgeTests {
    static let monaco: GeocoderTable? = {
        var b = GeocoderBuilder()
        do { try b.addOSM(path: SharedData.projectRoot.appendingPathComponent("Data/monaco/monaco.osm.pbf").path) } catch {
            Issue.record("\(error)"); return nil
        }
        return b.build()
    }()

    @Test func anyLimitIsAnAnswerNotATrap() throws {
        let t = try #require(Self.monaco)
        let all = try t.geocode("Boulevard", limit: .max)   // reserving .max + 1 used to trap
        #expect(all.count > 5)
        #expect(try t.geocode("Boulevard", limit: 3).map(\.label) == all.prefix(3).map(\.label))
        #expect(try t.geocode("Boulevard", limit: 0).isEmpty)
        #expect(try t.geocode("Boulevard", limit: .min).isEmpty)
    }
}
