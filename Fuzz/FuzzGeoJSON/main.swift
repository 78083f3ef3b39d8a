import Foundation
import CFuzzerDriver
import GeoJSON

// libFuzzer harness for GeoJSON: parsing a feature collection (any nesting, any numbers,
// any escapes), then walking every position and property and writing the values back out.

func fuzzGeoJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var sink = 0
    if let value = try? JSONParser.parse(bytes) {
        sink &+= value.serialized.utf8.count
    }
    if let collection = try? FeatureCollection(parsing: bytes) {
        for feature in collection.features {
            feature.geometry?.forEachPosition { p in if p.x.isNaN || p.y.isNaN { sink &+= 1 } }
            for (name, value) in feature.properties {
                sink &+= name.utf8.count &+ value.serialized.utf8.count
                _ = feature.property(name)
            }
        }
    }
    return sink == .min ? 1 : 0
}

var argumentCount = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &argumentValues, { data, size in fuzzGeoJSON(data, size) }))
