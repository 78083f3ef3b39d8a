import CSVFile
import CFuzzerDriver
import Foundation
import RoadGraph

// libFuzzer harness for CSV: the table reader with every field read as text and as a
// number, then the graph import from CSV, whose input is split at the first blank line
// into the nodes file and the edges file.

let nodesPath = FileManager.default.temporaryDirectory.appendingPathComponent("wayfare-fuzz-\(getpid())-nodes.csv").path
let edgesPath = FileManager.default.temporaryDirectory.appendingPathComponent("wayfare-fuzz-\(getpid())-edges.csv").path

func fuzzCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var sink = 0
    if let table = try? CSVTable(bytes: bytes, path: "fuzz.csv", required: []) {
        for row in table.rows {
            for column in table.header.indices {
                if let x = try? table.number(row, column) { sink &+= x.isNaN ? 1 : 0 }
            }
            sink &+= row.fields.count
        }
        _ = try? table.column("id")
        _ = table.optionalColumn("lat")
    }
    // The nodes, a blank line, the edges.
    let blank: [UInt8] = [10, 10]
    if let split = (0..<max(0, bytes.count - 1)).first(where: { bytes[$0] == blank[0] && bytes[$0 + 1] == blank[1] }) {
        let nodes = Data(bytes[..<split]), edges = Data(bytes[(split + 2)...])
        // Removed after each input: libFuzzer ends the process in ways no cleanup at exit sees.
        defer { unlink(nodesPath); unlink(edgesPath) }
        if FileManager.default.createFile(atPath: nodesPath, contents: nodes),
           FileManager.default.createFile(atPath: edgesPath, contents: edges),
           let (g, _) = try? RoadNetwork.importCSV(nodes: nodesPath, edges: edgesPath) {
            sink &+= g.edgeCount
        }
    }
    return sink == .min ? 1 : 0
}

var argumentCount = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &argumentValues, { data, size in fuzzCSV(data, size) }))
