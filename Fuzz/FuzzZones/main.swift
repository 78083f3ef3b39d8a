import Foundation
import BinaryFile
import CFuzzerDriver
import Geodesy
import Zones

// libFuzzer harness for the zone file. The input is a payload; it is wrapped in a valid
// container (so the checksum never stops a mutant) and loaded. An accepted file must
// answer every query without trapping: its answers may be wrong, since the file lies.

func fuzzZoneFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let payload = Array(UnsafeBufferPointer(start: data, count: size))
    guard let set = try? ZoneFile.decode(ZoneFile.container.wrap(payload), path: "fuzz.wfz") else { return 0 }
    let b = set.bounds
    var points = [Coordinate(unchecked: 43.7393, 7.4277), Coordinate(unchecked: 90, 180), Coordinate(unchecked: -90, -180)]
    for i in 0...4 {
        for j in 0...4 {
            let lat = b.south + (b.north - b.south) * Double(i) / 4, lon = b.west + (b.east - b.west) * Double(j) / 4
            if lat.isFinite, lon.isFinite { points.append(Coordinate(unchecked: lat, lon)) }
        }
    }
    var sink = 0
    for p in points {
        sink &+= set.zone(containing: p)?.index ?? -1
        sink &+= (try? set.serviceArea(containing: p))?.index ?? -1
        if set.isServed(p) { sink &+= 1 }
        for zone in set.zones where set.covers(p, zone: zone) { sink &+= zone.index }
    }
    var out: [Int32] = []
    set.zoneIndices(longitudes: points.map(\.longitude), latitudes: points.map(\.latitude), into: &out)
    for zone in set.zones {
        sink &+= set.neighbours(of: zone).count &+ set.polygons(of: zone).count
        _ = set.bounds(of: zone)
        _ = try? set.zone(id: zone.id)
    }
    for area in set.serviceAreas { sink &+= set.polygons(ofServiceArea: area).count }
    return sink == .min ? 1 : 0
}

var argumentCount = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &argumentValues, { data, size in fuzzZoneFile(data, size) }))
