import Foundation
import Geodesy
import OSM
import Testing
import TestSupport
@testable import RoadGraph

/// Toll ways are kept in the graph and listed on the routes that drive them.
@Suite struct TollTests {
    /// A toll motorway (201) from A to B beside a slow free road (202, through C); way 203
    /// is tagged toll but free for cars.
    func network(carsFreeOn203: Bool = true) throws -> RoadNetwork {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <osm version="0.6" generator="handmade">
          <node id="1" lat="43.700" lon="7.400"/>
          <node id="2" lat="43.700" lon="7.430"/>
          <node id="3" lat="43.705" lon="7.415"/>
          <node id="4" lat="43.700" lon="7.440"/>
          <way id="201"><nd ref="1"/><nd ref="2"/><tag k="highway" v="motorway"/><tag k="oneway" v="no"/><tag k="toll" v="yes"/><tag k="name" v="A8"/></way>
          <way id="202"><nd ref="1"/><nd ref="3"/><nd ref="2"/><tag k="highway" v="residential"/><tag k="name" v="Old Road"/></way>
          <way id="203"><nd ref="2"/><nd ref="4"/><tag k="highway" v="primary"/><tag k="toll" v="yes"/><tag k="toll:motorcar" v="\(carsFreeOn203 ? "no" : "yes")"/></way>
        </osm>
        """
        let folder = TemporaryFolder()
        return try RoadNetwork.importOSM(path: folder.write("toll.osm", xml)).0
    }

    let a = Coordinate(unchecked: 43.700, 7.401), b = Coordinate(unchecked: 43.700, 7.429), d = Coordinate(unchecked: 43.700, 7.439)
    /// On way 203, past the motorway's end.
    let c = Coordinate(unchecked: 43.700, 7.432)

    @Test func routesListTheTollWaysTheyDrive() throws {
        let g = try network()
        #expect(g.tollPieceCount == 1)
        for algorithm in RoutingAlgorithm.allCases {
            let r = try Router(network: g).route(from: a, to: b, algorithm: algorithm)
            #expect(r.streets == ["A8"] && r.tollWays == [201], "\(algorithm)")
            // Beyond the motorway: 203 is free for a car (toll:motorcar=no), so only 201 is paid.
            #expect(try Router(network: g).route(from: a, to: d, algorithm: algorithm).tollWays == [201])
            #expect(try Router(network: g).route(from: c, to: d, algorithm: algorithm).tollWays == [])
        }
        let paid = try network(carsFreeOn203: false)
        #expect(try Router(network: paid).route(from: a, to: d).tollWays == [201, 203])
    }

    @Test func theGraphFileKeepsTollWays() throws {
        let g = try network(carsFreeOn203: false)
        let back = try GraphFile.decode(GraphFile.encode(g), path: "memory")
        #expect(back.tollPieces == g.tollPieces && back.tollWayIDs == [201, 203])
        #expect(try Router(network: back).route(from: a, to: d).tollWays == [201, 203])
    }

    /// On Monaco's extract: every toll way the graph keeps or a route reports is tagged
    /// toll=yes in the file as the OSM reader gives it. (The A8 "La Provençale", the
    /// extract's toll motorway, is cut off from Monaco's streets by the extract's edge, so
    /// the kept graph has few or no toll pieces; the handmade network above checks pricing.)
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func monacoTollWaysAreTheTaggedOnes() throws {
        let path = SharedData.path("monaco/monaco.osm.pbf")
        var tagged = Set<Int64>()
        try PBFReader(path: path).forEachBlock(.ways) { block in
            for w in block.ways where (w.tags["toll:motorcar"] ?? w.tags["toll"]) == "yes" && w.tags["highway"] != nil { tagged.insert(w.id) }
        }
        #expect(tagged.count > 10)
        let g = try RoadNetwork.importOSM(path: path).0
        #expect(Set(g.tollWayIDs).isSubset(of: tagged))
        let router = Router(network: g)
        for (p, q) in g.randomPairs(300, seed: 11) {
            let r = try router.route(from: p, to: q)
            #expect(Set(r.tollWays).isSubset(of: tagged))
        }
    }
}
