import CityModel
import Fares
import Foundation
import Geocoding
import GeoJSON
import RoadGraph
import Zones

/// A city as one folder of files: what a server loads to serve it, and what
/// `wayfare city build` writes.
///
/// | file | what |
/// | --- | --- |
/// | `zones.wfz` | taxi zones and service areas (`ZoneFile`) |
/// | `roads.wfg` | the road graph with its contraction hierarchy (`GraphFile`) |
/// | `places.wfgc` | the geocoder table, optional (`GeocoderFile`) |
/// | `fares.json` | the fare chart (`FareChart`) |
/// | `tolls.json` | the toll list, optional (`TollList`) |
/// | `city.json` | the city's name and booking rules (``CitySettings``) |
///
/// Every file is checked as it loads, and an error names the file and what is wrong.
/// The folder is immutable while served: every replica of a server loads the same files.
public struct CityFolder: Sendable {
    /// The zone file's name in the folder.
    public static let zonesFile = "zones.wfz"
    /// The graph file's name.
    public static let roadsFile = "roads.wfg"
    /// The geocoder table's name.
    public static let placesFile = "places.wfgc"
    /// The fare chart's name.
    public static let faresFile = "fares.json"
    /// The toll list's name.
    public static let tollsFile = "tolls.json"
    /// The settings file's name.
    public static let settingsFile = "city.json"

    /// The folder.
    public let path: String
    /// The settings.
    public let settings: CitySettings
    /// The city the services serve.
    public let city: City
    /// The geocoder, when the folder has one.
    public let geocoder: GeocoderTable?

    /// Loads the city in `path`.
    /// - Throws: ``CityFolderError`` naming the file that is missing or wrong.
    public static func load(_ path: String) throws(CityFolderError) -> CityFolder {
        func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
            throw CityFolderError(file: path, reason: "no such folder")
        }
        let settings = try CitySettings.load(path: file(settingsFile))
        let zones: ZoneSet
        do { zones = try ZoneFile.read(path: file(zonesFile)) } catch { throw CityFolderError(file: file(zonesFile), reason: error.description) }
        let network: RoadNetwork
        do { network = try GraphFile.read(path: file(roadsFile)) } catch { throw CityFolderError(file: file(roadsFile), reason: error.description) }
        let fares: FareChart
        do { fares = try FareChart.load(path: file(faresFile)) } catch { throw CityFolderError(file: file(faresFile), reason: error.description) }
        var tolls: TollList? = nil
        if FileManager.default.fileExists(atPath: file(tollsFile)) {
            do { tolls = try TollList.load(path: file(tollsFile)) } catch { throw CityFolderError(file: file(tollsFile), reason: error.description) }
            if tolls?.currency != fares.currency {
                throw CityFolderError(file: file(tollsFile), reason: "currency \(tolls?.currency ?? "") differs from the fare chart's \(fares.currency)")
            }
        }
        var geocoder: GeocoderTable? = nil
        if FileManager.default.fileExists(atPath: file(placesFile)) {
            do { geocoder = try GeocoderFile.read(path: file(placesFile)) } catch { throw CityFolderError(file: file(placesFile), reason: error.description) }
        }
        // Every service area named by the fare chart must exist, or its rates could never apply.
        let areas = Set(zones.serviceAreas.map(\.id) + zones.serviceAreas.map(\.name))
        for area in fares.rates.keys.sorted() where !areas.contains(area) {
            throw CityFolderError(file: file(faresFile), reason: "service area \"\(area)\" is not in \(zonesFile)")
        }
        let city = City(zones: zones, network: network, fares: fares, tolls: tolls, settings: settings.booking)
        return CityFolder(path: path, settings: settings, city: city, geocoder: geocoder)
    }
}

/// A file of a city folder that is missing or wrong.
public struct CityFolderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file's path.
    public var file: String
    /// What is wrong, in one line.
    public var reason: String

    /// An error about `file`.
    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    /// `file: reason`.
    public var description: String { "\(file): \(reason)" }
}

/// `city.json`: the city's name and its booking rules.
///
/// `{"name":"Monaco","booking_rules":"000"}` takes a specification's rules (`000`, the
/// default, `001` or `004`); any of `minimum_lead_minutes`, `maximum_lead_hours`,
/// `conflict_window_minutes`, `allocate_before_minutes` and `history_retention_days` then
/// overrides one rule.
public struct CitySettings: Sendable, Equatable {
    /// The city's name, for people.
    public var name: String
    /// The booking rules.
    public var booking: BookingSettings

    /// Settings as given.
    public init(name: String, booking: BookingSettings = BookingSettings()) {
        self.name = name
        self.booking = booking
    }

    /// Reads `city.json`; every field is checked and named in the error.
    public static func load(path: String) throws(CityFolderError) -> CitySettings {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CityFolderError(file: path, reason: FileManager.default.fileExists(atPath: path) ? "cannot read" : "no such file")
        }
        let json: JSONValue
        do { json = try JSONParser.parse(data) } catch { throw CityFolderError(file: path, reason: error.description) }
        guard case .object = json else { throw CityFolderError(file: path, reason: "must be a JSON object") }
        guard let name = json["name"]?.stringValue, !name.isEmpty, name.count <= 100 else {
            throw CityFolderError(file: path, reason: "name: a name of 1 to 100 characters is required")
        }
        if json["booking_rules"] != nil && json["booking_rules"]?.stringValue == nil {
            throw CityFolderError(file: path, reason: "booking_rules: must be a string")
        }
        var booking: BookingSettings
        switch json["booking_rules"]?.stringValue ?? "000" {
        case "000": booking = .specification000
        case "001": booking = .specification001
        case "004": booking = .specification004
        case let other: throw CityFolderError(file: path, reason: "booking_rules: must be \"000\", \"001\" or \"004\", not \"\(other.prefix(20))\"")
        }
        func minutes(_ key: String, unit: Double, range: ClosedRange<Double>) throws(CityFolderError) -> TimeInterval? {
            guard let value = json[key] else { return nil }
            guard let n = value.numberValue, n.isFinite, range.contains(n) else {
                throw CityFolderError(file: path, reason: "\(key): must be a number from \(Int(range.lowerBound)) to \(Int(range.upperBound))")
            }
            return n * unit
        }
        if let v = try minutes("minimum_lead_minutes", unit: 60, range: 0...10_080) { booking.minimumLead = v }
        if let v = try minutes("maximum_lead_hours", unit: 3600, range: 1...8_760) { booking.maximumLead = v }
        if let v = try minutes("conflict_window_minutes", unit: 60, range: 0...1_440) { booking.conflictWindow = v }
        if let v = try minutes("allocate_before_minutes", unit: 60, range: 1...1_440) { booking.allocateBefore = v }
        if let v = try minutes("history_retention_days", unit: 86_400, range: 1...36_500) { booking.historyRetention = v }
        guard booking.minimumLead < booking.maximumLead else {
            throw CityFolderError(file: path, reason: "the minimum lead must be shorter than the maximum lead")
        }
        return CitySettings(name: name, booking: booking)
    }

    /// The settings as `city.json` writes them: the name and every rule, explicitly.
    public var json: String {
        JSONValue.object([
            ("name", .string(name)),
            ("minimum_lead_minutes", .number(booking.minimumLead / 60)),
            ("maximum_lead_hours", .number(booking.maximumLead / 3600)),
            ("conflict_window_minutes", .number(booking.conflictWindow / 60)),
            ("allocate_before_minutes", .number(booking.allocateBefore / 60)),
            ("history_retention_days", .number(booking.historyRetention / 86_400)),
        ]).serialized + "\n"
    }
}
