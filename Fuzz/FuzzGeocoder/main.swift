import Foundation
import BinaryFile
import CFuzzerDriver
import Geodesy
import Geocoding

// libFuzzer harness for the geocoder table. The input is a payload, wrapped in a valid
// container and loaded; an accepted table must answer forward and reverse geocoding
// without trapping.

func fuzzGeocoderTable(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let payload = Array(UnsafeBufferPointer(start: data, count: size))
    guard let t = try? GeocoderFile.decode(GeocoderFile.container.wrap(payload), path: "fuzz.wfgc") else { return 0 }
    let near = Coordinate(unchecked: 43.7393, 7.4277)
    var sink = 0
    for q in ["Boulevard des Moulins", "12 bd des moulins", "casino", "boulvard", "7 rue", "monaco 98000"] {
        sink &+= ((try? t.geocode(q)) ?? []).count
        sink &+= ((try? t.geocode(q, near: near, limit: 50)) ?? []).count
    }
    for p in [near, Coordinate(unchecked: 43.7314, 7.4197), Coordinate(unchecked: 0, 0)] + t.cityCoordinates.prefix(3) {
        if let r = t.reverse(p) { sink &+= r.label.utf8.count }
    }
    return sink == .min ? 1 : 0
}

var argumentCount = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &argumentValues, { data, size in fuzzGeocoderTable(data, size) }))
