import Foundation
import Testing
import OSM
import TestSupport

/// Totals over a file, compared with pyosmium's (libosmium, an independent reader): the
/// expected figures below were produced by `scripts`-free pyosmium 4 on the same files.
struct Tally: Equatable {
    var nodes = 0, ways = 0, relations = 0, nodeTags = 0, wayRefs = 0, members = 0, highways = 0, restrictions = 0
    var latitudeSum = 0.0

    mutating func add(_ b: OSMBlock) {
        nodes += b.nodes.count; ways += b.ways.count; relations += b.relations.count
        for n in b.nodes { nodeTags += n.tags.count; latitudeSum += n.latitude }
        for w in b.ways { wayRefs += w.nodes.count; if w.tags["highway"] != nil { highways += 1 } }
        for r in b.relations { members += r.members.count; if r.tags["type"] == "restriction" { restrictions += 1 } }
    }
}

@Suite struct PBFReaderTests {
    func tally(_ path: String) throws -> (Tally, OSMWay?) {
        var t = Tally(), first: OSMWay?
        try PBFReader(path: path).forEachBlock { block in
            t.add(block)
            if first == nil { first = block.ways.first }
        }
        return (t, first)
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func monacoMatchesLibosmium() throws {
        let (t, first) = try tally(SharedData.path("monaco/monaco.osm.pbf"))
        #expect(t.nodes == 180_118 && t.ways == 27_377 && t.relations == 212)
        #expect(t.nodeTags == 5_896 && t.wayRefs == 238_855 && t.members == 2_008)
        #expect(t.highways == 2_927 && t.restrictions == 27)
        #expect(abs(t.latitudeSum - 7_879_419.1534) < 0.01)
        #expect(first?.id == 4_097_656)
        #expect(first?.nodes.prefix(5) == [21_912_089, 1_079_750_744, 2_104_793_864, 1_110_560_507, 21_912_093])
        #expect(first?.tags["name"] == "Avenue Princesse Alice" && first?.tags["oneway"] == "yes")
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func helsinkiMatchesLibosmium() throws {
        let (t, first) = try tally(SharedData.path("helsinki/helsinki.osm.pbf"))
        #expect(t.nodes == 24_260 && t.ways == 5_130 && t.relations == 620)
        #expect(t.nodeTags == 28_367 && t.wayRefs == 38_026 && t.members == 84_049)
        #expect(t.highways == 2_650 && t.restrictions == 45)
        #expect(abs(t.latitudeSum - 1_459_744.82) < 0.01)
        #expect(first?.tags["name:sv"] == "Skillnadsgatan" && first?.tags["maxspeed"] == "30")
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func onlyTheKindsAskedForAreDecoded() throws {
        var nodes = 0, ways = 0
        try PBFReader(path: SharedData.path("monaco/monaco.osm.pbf")).forEachBlock([.ways]) { block in
            nodes += block.nodes.count; ways += block.ways.count
        }
        #expect(nodes == 0 && ways == 27_377)
    }

    func error(reading bytes: [UInt8]) -> String? {
        let folder = TemporaryFolder()
        let path = folder.write("bad.osm.pbf", bytes: bytes)
        do { try PBFReader(path: path).forEachBlock { _ in }; return nil } catch { return "\(error)" }
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func truncatedAndCorruptFilesAreClearErrors() throws {
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SharedData.path("monaco/monaco.osm.pbf"))))
        let truncated = try #require(error(reading: Array(good.prefix(good.count / 2))))
        #expect(truncated.contains("bad.osm.pbf") && truncated.contains("truncated"))
        // Flip bytes in the middle of the second blob's compressed data.
        var corrupt = good
        for i in 400_000..<400_064 { corrupt[i] ^= 0x5A }
        let message = try #require(error(reading: corrupt))
        #expect(message.contains("bad.osm.pbf") && message.contains("block"))
        #expect(!message.contains("\n"))
    }

    @Test func foreignFilesAreClearErrors() throws {
        let text = try #require(error(reading: Array("{\"type\": \"FeatureCollection\"}".utf8)))
        #expect(text.contains("not a PBF BlobHeader"))
        #expect(try #require(error(reading: [])).contains("no OSMHeader"))
        #expect(try #require(error(reading: [0, 0, 0, 5, 0x0A, 0x09])).contains("truncated"))
    }
}

@Suite struct OSMXMLReaderTests {
    static let sample = """
    <?xml version="1.0" encoding="UTF-8"?>
    <osm version="0.6" generator="hand">
      <node id="1" lat="43.7300" lon="7.4200"/>
      <node id="2" lat="43.7310" lon="7.4210"><tag k="highway" v="traffic_signals"/></node>
      <way id="10"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/><tag k="name" v="Rue A"/></way>
      <relation id="100">
        <member type="way" ref="10" role="from"/><member type="node" ref="2" role="via"/>
        <tag k="type" v="restriction"/><tag k="restriction" v="no_left_turn"/>
      </relation>
    </osm>
    """

    @Test func readsNodesWaysAndRelations() throws {
        let block = try OSMXMLReader.read(data: Data(Self.sample.utf8), name: "sample.osm")
        #expect(block.nodes.map(\.id) == [1, 2])
        #expect(block.nodes[1].tags["highway"] == "traffic_signals")
        #expect(block.ways.first?.nodes == [1, 2] && block.ways.first?.tags["name"] == "Rue A")
        #expect(block.relations.first?.members == [OSMMember(type: .way, ref: 10, role: "from"), OSMMember(type: .node, ref: 2, role: "via")])
    }

    @Test func foreignAndBrokenXMLAreClearErrors() {
        #expect(throws: OSMError.self) { try OSMXMLReader.read(data: Data("<gpx><trk/></gpx>".utf8), name: "track.gpx") }
        do { _ = try OSMXMLReader.read(data: Data("<gpx><trk/></gpx>".utf8), name: "track.gpx") } catch {
            #expect("\(error)".contains("track.gpx") && "\(error)".contains("not <osm>"))
        }
        do { _ = try OSMXMLReader.read(data: Data("<osm><node id=\"1\" lat=\"95\" lon=\"0\"/></osm>".utf8), name: "x.osm") } catch {
            #expect("\(error)".contains("x.osm: line 1") && "\(error)".contains("impossible lat/lon"))
        }
        do { _ = try OSMXMLReader.read(data: Data("<osm><node id=\"1\"".utf8), name: "cut.osm") } catch {
            #expect("\(error)".contains("cut.osm: line"))
        }
    }
}
