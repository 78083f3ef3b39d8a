import ArgumentParser
import Essentials
import Foundation
import WayfareAPI
import Workloads
import Zones
import ZoneImport

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Run the engine and a plain baseline on the same CSV input; print one JSON line.",
        subcommands: [BenchZones.self, BenchKNN.self, BenchFleet.self, BenchRoute.self, BenchMatch.self, BenchAlternatives.self, BenchEta.self, BenchGeocode.self, BenchReverse.self, BenchBookings.self])
}

/// Wall-clock seconds of `body`.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// The answer of `body` and its wall-clock nanoseconds: one timed query of a `bench` command.
func timed<T>(_ body: () -> T) -> (T, Double) {
    let start = DispatchTime.now().uptimeNanoseconds
    let answer = body()
    return (answer, Double(DispatchTime.now().uptimeNanoseconds - start))
}

/// p50 and p99 of timings (nearest rank; 0 when there are none).
func percentiles(_ timings: [Double]) -> (Double, Double) {
    let sorted = timings.sorted()
    return (percentile(0.5, ofSorted: sorted) ?? 0, percentile(0.99, ofSorted: sorted) ?? 0)
}

/// The median (nearest rank; 0 when there are none).
func median(_ xs: [Double]) -> Double { percentile(0.5, ofSorted: xs.sorted()) ?? 0 }

struct BenchZones: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zones",
        abstract: "Zone lookup of every point: the engine's cover against GEOS (STR tree + prepared covers).")
    @Argument(help: "A zone file, or zones as GeoJSON/WKT.") var zones: String
    @Option(help: "CSV with the header lat,lon.") var points: String
    @Option(help: "Timed repetitions of the engine pass (the median is printed).") var repeats: Int = 5
    @OptionGroup var source: ZoneSourceOptions

    func run() throws {
        guard (1...1000).contains(repeats) else { throw CLIError("--repeats must be between 1 and 1000") }
        let set = try loadZones(zones, source: source)
        let (points, _) = try readPoints(self.points)
        guard !points.isEmpty else { throw CLIError("\(self.points): no points") }
        let lons = points.map(\.longitude), lats = points.map(\.latitude)
        var engine: [Int32] = []
        var times: [Double] = []
        for _ in 0..<repeats {
            times.append(seconds { set.zoneIndices(longitudes: lons, latitudes: lats, into: &engine) })
        }
        let baseline = try GEOSZoneLocator(set)
        var answers = [Int32](repeating: 0, count: points.count)
        let baseTime = seconds {
            for k in points.indices { answers[k] = Int32(baseline.zoneIndex(longitude: lons[k], latitude: lats[k])) }
        }
        let mismatches = zip(engine, answers).filter { $0 != $1 }.count
        let n = Double(points.count)
        struct Compared: Encodable { let points: Int; let enginePointsPerS, baselinePointsPerS: Double; let mismatches: Int }
        printJSONLine(Compared(points: points.count, enginePointsPerS: (n / median(times)).rounded(), baselinePointsPerS: (n / baseTime).rounded(),
                               mismatches: mismatches))
        if mismatches > 0 { throw ExitCode(1) }
    }
}
