import Foundation
import Testing
import TestSupport
@testable import Zones
@testable import RoadGraph

/// Each crash that issue 16 lists, as the command line meets it: a crafted file with a
/// valid checksum, or ordinary input that used to trap. Every case must end in a one-line
/// error and a nonzero exit, or in a correct answer, never in a signal.
@Suite(.serialized) struct CrashRegressionCLITests {
    let folder = TemporaryFolder()

    func expectOneLineError(_ r: CommandResult, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == 1, "exit \(r.status) (a signal is 128+): \(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.contains(message), "\(r.stderr)", sourceLocation: sourceLocation)
        // Progress lines may precede it; the error itself is one line.
        #expect(r.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }.count == 1, sourceLocation: sourceLocation)
    }

    func monacoZones() throws -> ZoneSet {
        let out = folder.path("monaco.wfz")
        let r = try runWayfare(["zones", "import", "Data/monaco/wards.geojson", "--service-area", "Data/monaco/communes.geojson", "--out", out])
        #expect(r.status == 0, "\(r.stderr)")
        return try ZoneFile.read(path: out)
    }

    func rebuilt(_ s: ZoneSet, adjacency: [[Int]]? = nil, zoneLayer: PolygonLayer? = nil) -> ZoneSet {
        ZoneSet(zones: s.zones, zoneLayer: zoneLayer ?? s.zoneLayer, serviceAreas: s.serviceAreas, areaLayer: s.areaLayer,
                adjacency: adjacency ?? s.adjacency, zoneCover: s.zoneCover, areaCover: s.areaCover)
    }

    func locate(_ set: ZoneSet, _ name: String) throws -> CommandResult {
        let path = folder.write(name, bytes: ZoneFile.encode(set))  // a valid checksum over a crafted payload
        return try runWayfare(["zones", "locate", path, "43.7393,7.4277"])
    }

    @Test func craftedZoneFilesAreRefusedOnLoad() throws {
        let set = try monacoZones()
        var adjacency = set.adjacency
        adjacency[3].append(set.zones.count + 5)
        expectOneLineError(try locate(rebuilt(set, adjacency: adjacency), "adjacency.wfz"), "adjacency.wfz: zone file is corrupt")

        for (name, change) in [("nan-band", { (l: inout PolygonLayer) in l.bandInvHeight[3] = .nan }),
                               ("zero-band", { (l: inout PolygonLayer) in l.bandInvHeight[3] = 0 }),
                               ("inf-miny", { (l: inout PolygonLayer) in l.bandMinY[3] = -.infinity }),
                               ("no-bands", { (l: inout PolygonLayer) in
                                   // feature 3 keeps no band: its share goes to feature 4
                                   l.bandFeatureStart[4] = l.bandFeatureStart[3] })] as [(String, (inout PolygonLayer) -> Void)] {
            var layer = set.zoneLayer
            change(&layer)
            expectOneLineError(try locate(rebuilt(set, zoneLayer: layer), "\(name).wfz"), "\(name).wfz: zone file is corrupt")
        }
        // The untouched set, written the same way, still answers.
        let ok = try locate(set, "intact.wfz")
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("Monte-Carlo"))
    }

    @Test func tooManyZonesIsAnErrorBeforeAnyGeometryWork() throws {
        // ZoneSet.maximumCount + 1 tiny squares.
        let n = ZoneSet.maximumCount + 1
        var text = #"{"type":"FeatureCollection","features":["#
        for i in 0..<n {
            let x = Double(i % 200) * 0.001, y = Double(i / 200) * 0.001
            if i > 0 { text += "," }
            text += #"{"type":"Feature","properties":{"id":"z\#(i)"},"geometry":{"type":"Polygon","coordinates":[[[\#(x),\#(y)],[\#(x + 0.0009),\#(y)],[\#(x + 0.0009),\#(y + 0.0009)],[\#(x),\#(y + 0.0009)],[\#(x),\#(y)]]]}}"#
        }
        text += "]}"
        let path = folder.write("many.geojson", text)
        let r = try runWayfare(["zones", "import", path, "--out", folder.path("many.wfz")])
        expectOneLineError(r, "many.geojson: \(n) zones; a zone file holds at most \(ZoneSet.maximumCount)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("many.wfz")))
    }

    func monacoGraph() throws -> (path: String, network: RoadNetwork) {
        let path = folder.path("monaco.wfg")
        let r = try runWayfare(["graph", "import", "Data/monaco/monaco.osm.pbf", "--out", path])
        #expect(r.status == 0, "\(r.stderr)")
        return (path, try GraphFile.read(path: path))
    }

    @Test func aShortcutChainThatUnpacksExponentiallyIsRefused() throws {
        var (_, g) = try monacoGraph()
        // 40 shortcuts, each made of the previous one twice: 2^40 edges if unpacked.
        var h = g.hierarchies[0]
        let m = h.originalEdgeCount, base = UInt32(m + h.shortcutFirst.count)
        h.shortcutFirst.append(0); h.shortcutSecond.append(0)
        for k in 1..<40 { h.shortcutFirst.append(base + UInt32(k - 1)); h.shortcutSecond.append(base + UInt32(k - 1)) }
        g.hierarchies[0] = h
        let crafted = folder.write("chain.wfg", bytes: GraphFile.encode(g))
        let r = try runWayfare(["route", crafted, "--from", "43.7393,7.4277", "--to", "43.7314,7.4197"])
        expectOneLineError(r, "chain.wfg: graph file is corrupt")
    }

    @Test func mutatedGraphPayloadsNeverTrapTheCommands() throws {
        // Edge times and lengths at the extremes feed the A* scale and the ETA sums; every
        // command must answer or refuse, never trap.
        var (_, g) = try monacoGraph()
        for e in g.timeMs.indices where e % 7 == 0 { g.timeMs[e] = .max }
        for e in g.lengthDm.indices where e % 11 == 0 { g.lengthDm[e] = e % 2 == 0 ? 0 : .max }
        let crafted = folder.write("extreme.wfg", bytes: GraphFile.encode(g))
        for algorithm in ["astar", "dijkstra", "hierarchy"] {
            for metric in ["time", "distance"] {
                let r = try runWayfare(["route", crafted, "--from", "43.7393,7.4277", "--to", "43.7314,7.4197",
                                        "--algorithm", algorithm, "--metric", metric])
                #expect(r.status == 0 || r.status == 1, "\(algorithm) \(metric): exit \(r.status) \(r.stderr)")
            }
        }
        let eta = try runWayfare(["eta", crafted, "--to", "43.7314,7.4197", "--cabs", "Data/monaco/cabs.csv"])
        #expect(eta.status == 0 || eta.status == 1, "eta: exit \(eta.status) \(eta.stderr)")
    }

    @Test func aTinyPostedSpeedFallsBackToTheClassDefault() throws {
        // Two junctions 2 km apart on a two-way residential street posted at 0.001 km/h:
        // 2 km at 0.0008 km/h is 9e9 ms, beyond a 32-bit cost.
        let osm = folder.write("slow.osm", """
            <osm version="0.6">
              <node id="1" lat="43.7300" lon="7.4000"/>
              <node id="2" lat="43.7480" lon="7.4000"/>
              <node id="3" lat="43.7480" lon="7.4100"/>
              <way id="10"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/><tag k="maxspeed" v="0.001"/></way>
              <way id="11"><nd ref="2"/><nd ref="3"/><tag k="highway" v="residential"/></way>
            </osm>
            """)
        let out = folder.path("slow.wfg")
        let r = try runWayfare(["graph", "import", osm, "--out", out])
        #expect(r.status == 0, "exit \(r.status): \(r.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(summary["implausible_speeds"] as? Int == 1)
        let route = try runWayfare(["route", out, "--from", "43.7300,7.4000", "--to", "43.7480,7.4000"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(route.stdout.utf8)) as? [String: Any])
        // 2,001.5 m at the residential default of 25 km/h is 288 s.
        let seconds = try #require(json["duration_s"] as? Double)
        #expect(abs(seconds - 2001.5 / (25 / 3.6)) < 3, "\(seconds)")
    }
}
