import Foundation
import Testing
import Geodesy
import TestSupport
@testable import RoadGraph
import BinaryFile

/// A handmade crossing: West, East, North and South Streets meet at node 1, and Corner
/// Street links the ends of the east and north arms diagonally (shorter than a U-turn). No left turn from West into North; from South,
/// only straight on into North.
func crossingXML(restrictions: Bool) -> String {
    let relations = restrictions ? """
      <relation id="201"><member type="way" ref="101" role="from"/><member type="node" ref="1" role="via"/><member type="way" ref="103" role="to"/>
        <tag k="type" v="restriction"/><tag k="restriction" v="no_left_turn"/></relation>
      <relation id="202"><member type="way" ref="104" role="from"/><member type="node" ref="1" role="via"/><member type="way" ref="103" role="to"/>
        <tag k="type" v="restriction"/><tag k="restriction" v="only_straight_on"/></relation>
    """ : ""
    return """
    <?xml version="1.0" encoding="UTF-8"?>
    <osm version="0.6" generator="handmade">
      <node id="1" lat="60.000" lon="25.000"/>
      <node id="2" lat="60.000" lon="24.998"/>
      <node id="3" lat="60.000" lon="25.002"/>
      <node id="4" lat="60.001" lon="25.000"/>
      <node id="5" lat="59.999" lon="25.000"/>
      <node id="6" lat="60.0005" lon="25.001"/>
      <node id="7" lat="59.9995" lon="24.999"/>
      <way id="101"><nd ref="2"/><nd ref="1"/><tag k="highway" v="residential"/><tag k="name" v="West Street"/></way>
      <way id="102"><nd ref="1"/><nd ref="3"/><tag k="highway" v="residential"/><tag k="name" v="East Street"/></way>
      <way id="103"><nd ref="1"/><nd ref="4"/><tag k="highway" v="residential"/><tag k="name" v="North Street"/></way>
      <way id="104"><nd ref="5"/><nd ref="1"/><tag k="highway" v="residential"/><tag k="name" v="South Street"/></way>
      <way id="105"><nd ref="3"/><nd ref="6"/><nd ref="4"/><tag k="highway" v="residential"/><tag k="name" v="Corner Street"/></way>
      <way id="106"><nd ref="2"/><nd ref="7"/><nd ref="5"/><tag k="highway" v="service"/><tag k="access" v="private"/><tag k="name" v="Private Lane"/></way>
      <way id="107"><nd ref="6"/><nd ref="3"/><tag k="highway" v="footway"/></way>
    \(relations)
    </osm>
    """
}

@Suite struct TurnRestrictionTests {
    let west = Coordinate(unchecked: 60.0, 24.9985), east = Coordinate(unchecked: 60.0, 25.0015)
    let north = Coordinate(unchecked: 60.0008, 25.0), south = Coordinate(unchecked: 59.9992, 25.0)

    func router(restrictions: Bool) throws -> (Router, BuildReport) {
        let folder = TemporaryFolder()
        let (g, report) = try RoadNetwork.importOSM(path: folder.write("crossing.osm", crossingXML(restrictions: restrictions)))
        return (Router(network: g), report)
    }

    @Test func noLeftTurnSendsTheRouteRoundTheCorner() throws {
        let (free, _) = try router(restrictions: false)
        let (restricted, report) = try router(restrictions: true)
        #expect(report.restrictionsApplied == 2 && report.restrictionsSkipped == 0)
        for algorithm in RoutingAlgorithm.allCases {
            let direct = try free.route(from: west, to: north, algorithm: algorithm)
            #expect(direct.streets == ["West Street", "North Street"])
            let detour = try restricted.route(from: west, to: north, algorithm: algorithm)
            #expect(detour.streets == ["West Street", "East Street", "Corner Street", "North Street"], "\(algorithm)")
            #expect(detour.cost > direct.cost)
            // Straight on from West is still allowed.
            #expect(try restricted.route(from: west, to: east, algorithm: algorithm).streets == ["West Street", "East Street"])
        }
    }

    @Test func onlyStraightOnForbidsEveryOtherTurn() throws {
        let (restricted, _) = try router(restrictions: true)
        for algorithm in RoutingAlgorithm.allCases {
            #expect(try restricted.route(from: south, to: north, algorithm: algorithm).streets == ["South Street", "North Street"])
            let r = try restricted.route(from: south, to: east, algorithm: algorithm)
            #expect(r.streets == ["South Street", "North Street", "Corner Street", "East Street"], "\(algorithm)")
            #expect(!r.streets.contains("Private Lane"))
        }
    }

    @Test func privateAndFootwaysAreNotDriven() throws {
        let (r, _) = try router(restrictions: false)
        // West to South: the private lane would be the short way.
        let route = try r.route(from: west, to: south)
        #expect(route.streets == ["West Street", "South Street"])
        #expect(r.network.names.contains("Private Lane") == false)
    }
}

@Suite struct CSVGraphTests {
    func write(_ folder: TemporaryFolder, nodes: String, edges: String) -> (String, String) {
        (folder.write("nodes.csv", nodes), folder.write("edges.csv", edges))
    }

    static let nodes = "id,lat,lon,extra\na,60.0,25.0,x\nb,60.0,25.002,x\nc,59.999,25.001,x\nd,60.0,25.004,x\n"

    @Test func fastestAndShortestDiffer() throws {
        let folder = TemporaryFolder()
        let (n, e) = write(folder, nodes: Self.nodes, edges: """
            from,to,length_m,time_s,name
            a,b,100,10,x
            b,d,100,10,x
            a,c,50,30,x
            c,d,50,30,x
            d,a,400,40,x
            """)
        let (g, report) = try RoadNetwork.importCSV(nodes: n, edges: e)
        #expect(report.nodes == 4 && report.edges == 5)
        let router = Router(network: g)
        let a = g.coordinate(ofNode: 0), d = g.coordinate(ofNode: 3)
        for algorithm in RoutingAlgorithm.allCases {
            let fast = try router.route(from: a, to: d, metric: .time, algorithm: algorithm)
            #expect(fast.durationSeconds == 20 && fast.distanceMetres == 200)
            let short = try router.route(from: a, to: d, metric: .distance, algorithm: algorithm)
            #expect(short.durationSeconds == 60 && short.distanceMetres == 100)
            #expect(short.geometry.count == 3)
        }
    }

    /// Opposite rows share a piece only when drawn along the same points; among parallel
    /// rows waiting for their opposite, the earliest drawn alike is taken.
    @Test func parallelRowsPairWithTheEarliestDrawnAlike() {
        var d = NetworkDraft()
        let a = d.addNode(latE7: 480_000_000, lonE7: 20_000_000), b = d.addNode(latE7: 480_010_000, lonE7: 20_000_000)
        let bentLat: [Int32] = [480_000_000, 480_005_000, 480_010_000], bentLon: [Int32] = [20_000_000, 20_001_000, 20_000_000]
        func straight(_ t: UInt32, _ h: UInt32) { d.addStraightEdge(tail: t, head: h, lengthMetres: 111, timeSeconds: 9) }
        straight(a, b)                                                                   // piece 0
        d.addEdge(tail: a, head: b, lat: bentLat, lon: bentLon, lengthMetres: 120, timeSeconds: 10)  // piece 1
        straight(a, b)                                                                   // piece 2
        d.addEdge(tail: b, head: a, lat: bentLat.reversed(), lon: bentLon.reversed(), lengthMetres: 120, timeSeconds: 10)
        straight(b, a); straight(b, a)
        straight(b, a)                                                                   // piece 3: none left
        straight(a, b)                                                                   // shares piece 3
        let r = RoadNetwork.reversedBit
        #expect(d.edges.map(\.piece) == [0, 1, 2, 1 | r, 0 | r, 2 | r, 3, 3 | r])
        #expect(d.unpaired.isEmpty && d.unpairedMore.isEmpty)
    }

    @Test func badRowsAreErrorsNamingTheLine() throws {
        let folder = TemporaryFolder()
        func error(_ nodes: String, _ edges: String) -> String {
            let (n, e) = write(folder, nodes: nodes, edges: edges)
            do { _ = try RoadNetwork.importCSV(nodes: n, edges: e); return "no error" } catch { return error.description }
        }
        let good = "from,to,length_m,time_s\na,b,1,1\nb,a,1,1\n"
        #expect(error(Self.nodes, "from,to,length_m,time_s\na,b,1,1\nb,zz,1,1\n").hasSuffix("edges.csv: line 3: to is an unknown node \"zz\""))
        #expect(error(Self.nodes, "from,to,length_m,time_s\na,b,-1,1\n").hasSuffix("edges.csv: line 2: length_m -1.0 is not between 0 and 10,000,000"))
        #expect(error(Self.nodes, "from,to,length_m,time_s\na,b,1,nan\n").hasSuffix("edges.csv: line 2: time_s \"nan\" is not a finite number"))
        #expect(error(Self.nodes, "from,to,length_m,time_s\na,b,1,inf\n").contains("line 2: time_s"))
        #expect(error(Self.nodes + "b,1,1,x\n", good).hasSuffix("nodes.csv: line 6: duplicate node id \"b\""))
        #expect(error("id,lat,lon\na,95,0\n", good).hasSuffix("nodes.csv: line 2: impossible coordinate 95.0,0.0"))
        #expect(error(Self.nodes, "from,to,length\na,b,1\n").contains("edges.csv: line 1: the header has no column \"length_m\""))
    }
}

@Suite struct BadGraphInputTests {
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func brokenPBFFilesAreClearErrors() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SharedData.path("monaco/monaco.osm.pbf"))))
        let folder = TemporaryFolder()
        func error(_ b: [UInt8]) -> String {
            do { _ = try RoadNetwork.importOSM(path: folder.write("x.osm.pbf", bytes: b)); return "no error" } catch { return error.description }
        }
        #expect(error(Array(bytes.prefix(bytes.count / 2))).contains("x.osm.pbf"))
        var corrupt = bytes
        for k in stride(from: 200_000, to: 200_400, by: 1) { corrupt[k] ^= 0x5A }
        let message = error(corrupt)
        #expect(message.contains("x.osm.pbf") && message.contains("block"), "\(message)")
        #expect(!message.contains("\n"))
    }

    @Test func xmlThatIsNotOSMIsAClearError() throws {
        let folder = TemporaryFolder()
        let path = folder.write("page.osm", "<html><body>not a map</body></html>")
        #expect(throws: GraphError.self) { try RoadNetwork.importOSM(path: path) }
        do { _ = try RoadNetwork.importOSM(path: path) } catch { #expect(error.description.contains("page.osm")) }
        let empty = folder.write("empty.osm", "<osm version=\"0.6\"></osm>")
        do { _ = try RoadNetwork.importOSM(path: empty); Issue.record("an empty extract imported") } catch {
            #expect(error.description.contains("no road a car may drive"))
        }
    }

    @Test func graphFilesFromElsewhereAreRefused() throws {
        let folder = TemporaryFolder()
        let (g, _) = try RoadNetwork.importOSM(path: folder.write("crossing.osm", crossingXML(restrictions: true)))
        let bytes = GraphFile.encode(g)
        func error(_ b: [UInt8]) -> String {
            do { _ = try GraphFile.decode(b, path: "g.wfg"); return "no error" } catch { return error.description }
        }
        #expect(error(bytes) == "no error")
        var other = bytes
        other[8] = 99
        #expect(error(other) == "g.wfg: graph file format version 99; this Wayfare reads version \(GraphFile.version)")
        #expect(error(Array(bytes.prefix(100))).hasPrefix("g.wfg: truncated or extended graph file"))
        #expect(error(Array(bytes.prefix(10))) == "g.wfg: truncated graph file (10 bytes)")
        #expect(error(Array("{\"type\":\"FeatureCollection\",\"features\":[]}".utf8)) == "g.wfg: not a Wayfare graph file (bad magic number)")
        var flipped = bytes
        flipped[bytes.count / 2] ^= 1
        #expect(error(flipped) == "g.wfg: graph file is corrupt (checksum mismatch)")
        #expect(throws: GraphError.self) { try GraphFile.read(path: folder.path("missing.wfg")) }
    }

    /// A payload changed and re-checksummed must still be refused or load into a network
    /// that routes without crashing.
    @Test func reChecksummedGarbageNeverCrashes() throws {
        let folder = TemporaryFolder()
        let (g, _) = try RoadNetwork.importOSM(path: folder.write("crossing.osm", crossingXML(restrictions: true)))
        let bytes = GraphFile.encode(g)
        var rng = SeededRandom(seed: 3)
        for _ in 0..<300 {
            var b = bytes
            let k = Int.random(in: 32..<b.count, using: &rng)
            b[k] = UInt8.random(in: 0...255, using: &rng)
            let sum = BinaryFile.checksum(Array(b[32...]))
            withUnsafeBytes(of: sum.littleEndian) { for j in 0..<8 { b[24 + j] = $0[j] } }
            guard let h = try? GraphFile.decode(b, path: "x") else { continue }
            let r = Router(network: h)
            _ = try? r.route(from: Coordinate(unchecked: 60, 24.9985), to: Coordinate(unchecked: 60.0008, 25))
        }
    }
}
