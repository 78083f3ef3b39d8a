import ArgumentParser
import BinaryFile
import CityFolder
import Fares
import Foundation
import GeoJSON
import Geocoding
import RoadGraph
import WayfareAPI
import ZoneImport
import Zones

struct CityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "city", abstract: "Build and check city folders: everything a server loads to serve one city.",
        subcommands: [CityBuild.self, CityCheck.self])
}

/// `wayfare city build`: zones, roads, places, fares, tolls and settings into one folder, in
/// one step, written beside the destination and renamed into place only when complete.
struct CityBuild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Make a city folder (zones.wfz, roads.wfg, places.wfgc, fares.json, tolls.json, city.json) from the city's sources.",
        discussion: """
            Progress goes to stderr; the last line on stdout is a JSON summary. The folder is \
            assembled beside --out and renamed into place when every file is written and the \
            whole folder loads, so a failed build leaves nothing behind. --out must not exist.
            """)
    @Option(help: "The city's OpenStreetMap extract (.osm.pbf or .osm): roads, and places for the geocoder.") var osm: String
    @Option(help: "The taxi zones: GeoJSON (any CRS) or WKT.") var zones: String
    @OptionGroup var source: ZoneSourceOptions
    @Option(help: "A gazetteer CSV (lat,lon,name,admin1,admin2,cc) for the geocoder.") var gazetteer: String?
    @Flag(name: .customLong("no-geocoder"), help: "Build no geocoder table.") var noGeocoder = false
    @Option(help: "The fare chart (JSON).") var fares: String
    @Option(help: "The toll list (JSON).") var tolls: String?
    @Option(help: "The city's name (default: the folder's name).") var name: String?
    @Option(name: .customLong("booking-rules"), help: "000 (the default), 001 or 004: whose booking rules apply.") var bookingRules = "000"
    @Option(help: "The folder to make.") var out: String

    func run() throws {
        let start = Date()
        guard !FileManager.default.fileExists(atPath: out) else { throw CLIError("\(out): exists; choose a new folder") }
        guard ["000", "001", "004"].contains(bookingRules) else { throw CLIError("--booking-rules must be 000, 001 or 004") }
        let cityName = name ?? (out as NSString).lastPathComponent
        guard !cityName.isEmpty, cityName.count <= 100 else { throw CLIError("--name must be 1 to 100 characters") }
        let parent = ((out as NSString).deletingLastPathComponent as NSString).length == 0 ? "." : (out as NSString).deletingLastPathComponent
        let staging = (parent as NSString).appendingPathComponent(".\((out as NSString).lastPathComponent).partial-\(UUID().uuidString.prefix(8))")
        try createFolder(staging)
        var done = false
        defer { if !done { try? FileManager.default.removeItem(atPath: staging) } }
        func file(_ name: String) -> String { (staging as NSString).appendingPathComponent(name) }

        note("1/5 zones: \(zones)")
        let (zoneSet, report) = try ZoneImporter.load(zonesAt: zones, serviceAreasAt: source.serviceArea,
                                                      options: try source.importOptions(), progress: note)
        note(report.text)
        try ZoneFile.write(zoneSet, to: file(CityFolder.zonesFile))

        note("2/5 roads: \(osm)")
        let bar = ProgressBar()
        let network: RoadNetwork
        do { network = try RoadNetwork.importOSM(path: osm, progress: bar.update).0 } catch { throw CLIError(error.description) }
        bar.finish()
        try GraphFile.write(network, to: file(CityFolder.roadsFile))

        var places = 0
        if noGeocoder {
            note("3/5 places: skipped (--no-geocoder)")
        } else {
            note("3/5 places: \(osm)\(gazetteer.map { " and \($0)" } ?? "")")
            var builder = GeocoderBuilder()
            do {
                try builder.addOSM(path: osm)
                if let gazetteer { try builder.addGazetteer(path: gazetteer) }
            } catch { throw CLIError("\(error)") }
            let table = builder.build()
            places = table.entryCount
            if places > 0 { try GeocoderFile.write(table, to: file(CityFolder.placesFile)) } else { note("no named place in the sources: no geocoder table") }
        }

        note("4/5 fares\(tolls == nil ? "" : " and tolls"): checked, then copied")
        do { _ = try FareChart.load(path: fares) } catch { throw CLIError(error.description) }
        try copy(fares, to: file(CityFolder.faresFile))
        if let tolls {
            do { _ = try TollList.load(path: tolls) } catch { throw CLIError(error.description) }
            try copy(tolls, to: file(CityFolder.tollsFile))
        }

        note("5/5 settings: \(CityFolder.settingsFile)")
        struct Settings: Encodable { let name, bookingRules: String }
        try writeOutput(WireEncoder.string(Settings(name: cityName, bookingRules: bookingRules), keys: .snakeCase) + "\n",
                        to: file(CityFolder.settingsFile))
        // The folder as a server will load it: every cross-check (fares name real service areas).
        let loaded: CityFolder
        do { loaded = try CityFolder.load(staging) } catch { throw CLIError(error.reason) }
        do { try FileManager.default.moveItem(atPath: staging, toPath: out) } catch {
            throw CLIError("\(out): cannot move the finished folder into place: \(error.localizedDescription)")
        }
        done = true
        struct Built: Encodable { let city: String; let zones, serviceAreas, roadNodes, places, fareRates, tolls: Int; let seconds: Double }
        printJSONLine(Built(city: cityName, zones: loaded.city.zones.zones.count, serviceAreas: loaded.city.zones.serviceAreas.count,
                            roadNodes: loaded.city.network.nodeCount, places: places,
                            fareRates: loaded.city.fares.rates.values.reduce(0) { $0 + $1.count }, tolls: loaded.city.tolls.tolls.count,
                            seconds: rounded(Date().timeIntervalSince(start), 2)))
    }

    func copy(_ from: String, to: String) throws(CLIError) {
        guard let data = FileManager.default.contents(atPath: from) else { throw CLIError("\(from): cannot read") }
        do { try BinaryFile.writeAtomically(Array(data), to: to) } catch { throw CLIError("\(to): \(error.reason)") }
    }
}

/// `wayfare city check DIR`: loads a city folder as the server would.
struct CityCheck: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check", abstract: "Load a city folder as the server does; one JSON line, or the first problem.")
    @Argument(help: "The city folder.") var folder: String

    func run() throws {
        let loaded: CityFolder
        do { loaded = try CityFolder.load(folder) } catch { throw CLIError(error.description) }
        struct Checked: Encodable { let city: String; let zones, serviceAreas, roadNodes: Int; let geocoder: Bool; let currency: String }
        printJSONLine(Checked(city: loaded.settings.name, zones: loaded.city.zones.zones.count, serviceAreas: loaded.city.zones.serviceAreas.count,
                              roadNodes: loaded.city.network.nodeCount, geocoder: loaded.geocoder != nil, currency: loaded.city.fares.currency))
    }
}

/// A JSON string literal.

