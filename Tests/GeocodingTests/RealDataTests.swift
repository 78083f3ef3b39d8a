import Foundation
import Testing
import Geodesy
import OSM
import TestSupport
@testable import Geocoding

/// One table for the suite: Monaco and Helsinki (OSM) and the GeoNames gazetteer.
let sharedTable: GeocoderTable? = {
    guard SharedData.isAvailable else { return nil }
    var b = GeocoderBuilder()
    try? b.addOSM(path: SharedData.path("monaco/monaco.osm.pbf"))
    try? b.addOSM(path: SharedData.path("helsinki/helsinki.osm.pbf"))
    do { try b.addGazetteer(path: SharedData.path("gazetteer/cities1000.csv")) } catch { print("GAZ ERROR", error) }
    return b.build()
}()

@Suite struct GeocoderExplorationTests {
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func explore() throws {
        let t = try #require(sharedTable)
        print("entries \(t.entryCount) addresses \(t.addressCount) tokens \(t.tokenCount)")
        for q in ["12 Boulevard des Moulins", "boulevard des moulins 12", "Casino de Monte-Carlo", "Helsinki", "mannerheimintie", "mannerheimintei", "manner", "Bd des Moulins", "Springfield", "kaivokatu 1", "hameentie"] {
            let r = try t.geocode(q, limit: 3)
            print(q, "→", r.map { "\($0.label) [\($0.kind) \(String(format: "%.2f", $0.score)) \($0.precision?.rawValue ?? "")] \($0.coordinate)" })
        }
        let w = GeocoderWorkspace()
        for p in [Coordinate(unchecked: 43.7393, 7.4277), Coordinate(unchecked: 60.1699, 24.9384), Coordinate(unchecked: 48.85, 2.35)] {
            print(p, "→", t.reverse(p, using: w) as Any)
        }
    }
}

@Suite struct GeocoderDebugTests {
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func debugSpringfield() throws {
        let t = try #require(sharedTable)
        let ids = t.entryLabel.indices.filter { t.entryLabel[$0].hasPrefix("Springfield,") }
        print("springfield entries", ids.count, ids.prefix(3).map { Array(t.entryTokens[Int(t.entryTokenStart[$0])..<Int(t.entryTokenStart[$0 + 1])]) })
        let tok = t.tokenID("springfield")!
        print("postings", t.tokenEntryStart[tok + 1] - t.tokenEntryStart[tok], "token", tok)
        print(try t.geocode("Springfield", limit: 30).count)
    }
}
