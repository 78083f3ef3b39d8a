import ArgumentParser
import Foundation
import NIOCore

/// The `wayfare` command line. Output formats are a contract read by other tools; errors
/// are one line on stderr with a nonzero exit.
struct Wayfare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wayfare",
        abstract: "Spatial indexing and routing for taxi services.",
        subcommands: [ZonesCommand.self, FleetCommand.self, GraphCommand.self, RouteCommand.self, MatchCommand.self, FollowCommand.self, EtaCommand.self,
                      GeocoderCommand.self, GeocodeCommand.self, ReverseCommand.self, CityCommand.self, SimulateCommand.self, BenchCommand.self,
                      ServeCommand.self, AdminCommand.self, DemoCommand.self])
}

#if canImport(Glibc)
import Glibc
#endif

/// How many CPUs the process's affinity mask allows (Linux's `Cpus_allowed`, a hex mask), or
/// nil when it cannot be read.
func cpusAllowed() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
    let count = line.dropFirst("Cpus_allowed:".count).reduce(0) { n, c in n + (c.hexDigitValue?.nonzeroBitCount ?? 0) }
    return count > 0 ? count : nil
}

// A write past a file-size limit (ulimit -f) should be a one-line "cannot write" error
// from the failed write(2), not death by SIGXFSZ with a partial file.
signal(SIGXFSZ, SIG_IGN)
_ = startTime  // progress times count from here
// One event loop per CPU this process may run on (`taskset`, cpusets), not per CPU of the
// machine: two loops on one core only take turns. (Swift concurrency's jobs stay on its own
// pool: running them on the event loops instead, NIO's `unsafeTryInstall…`, measured 15 %
// fewer /health answers a second on one core.)
if let cpus = cpusAllowed() { NIOSingletons.groupLoopCountSuggestion = cpus }
Wayfare.main()
