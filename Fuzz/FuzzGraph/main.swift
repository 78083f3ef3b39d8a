import Foundation
import BinaryFile
import CFuzzerDriver
import Geodesy
import RoadGraph

// libFuzzer harness for the graph file. The input is a payload, wrapped in a valid
// container and loaded; an accepted graph must answer every routing query (all three
// algorithms, both metrics, geometry, snapping, ETAs) without trapping.

func fuzzGraphFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let payload = Array(UnsafeBufferPointer(start: data, count: size))
    guard let g = try? GraphFile.decode(GraphFile.container.wrap(payload), path: "fuzz.wfg") else { return 0 }
    let router = Router(network: g)
    var places = [(43.7393, 7.4277), (43.7314, 7.4197), (43.7480, 7.4370)].map { Coordinate(unchecked: $0.0, $0.1) }
    // Two of the graph's own nodes, so that a small graph far from Monaco is routed too.
    if g.nodeCount > 0 { places += [g.coordinate(ofNode: 0), g.coordinate(ofNode: g.nodeCount - 1)] }
    var sink = 0
    for (a, b) in zip(places, places.dropFirst()) {
        for metric in Metric.allCases {
            for algorithm in RoutingAlgorithm.allCases {
                if let r = try? router.route(from: a, to: b, metric: metric, algorithm: algorithm) {
                    sink &+= r.geometry.count &+ r.streets.count
                }
            }
        }
    }
    sink &+= ((try? router.etas(to: places[0], from: places)) ?? []).count
    return sink == .min ? 1 : 0
}

var argumentCount = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &argumentValues, { data, size in fuzzGraphFile(data, size) }))
