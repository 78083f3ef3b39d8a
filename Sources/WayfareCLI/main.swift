import ArgumentParser

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

// A write past a file-size limit (ulimit -f) should be a one-line "cannot write" error
// from the failed write(2), not death by SIGXFSZ with a partial file.
signal(SIGXFSZ, SIG_IGN)
_ = startTime  // progress times count from here
Wayfare.main()
