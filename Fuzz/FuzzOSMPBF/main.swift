import Foundation
import CFuzzerDriver
import Geocoding
import OSM
import RoadGraph

// libFuzzer harness for OpenStreetMap PBF: the reader over every block and entity, then,
// for inputs small enough to import quickly, the graph import and the geocoder build that
// consume it. A bad file must be an error, never a trap.

let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("wayfare-fuzz-\(getpid()).osm.pbf").path

func fuzzPBF(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    guard FileManager.default.createFile(atPath: scratch, contents: Data(bytes: data, count: size)) else { return 0 }
    // Removed after each input: libFuzzer ends the process in ways no cleanup at exit sees.
    defer { unlink(scratch) }
    var entities = 0
    if let reader = try? PBFReader(path: scratch) {
        try? reader.forEachBlock { block in entities += block.nodes.count + block.ways.count + block.relations.count }
    }
    if size <= 256 * 1024 {
        _ = try? RoadNetwork.importOSM(path: scratch)
        var builder = GeocoderBuilder()
        if (try? builder.addOSM(path: scratch)) != nil { _ = builder.build() }
    }
    return entities < 0 ? 1 : 0
}

var argumentCount = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &argumentValues, { data, size in fuzzPBF(data, size) }))
