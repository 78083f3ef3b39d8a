import CityFolder
import CityModel
import Foundation
import RoadGraph
import TestSupport
import Testing
import Zones

/// A city folder written from Monaco's files, loaded as the server loads it, and broken one
/// file at a time: each break is refused naming the file.
@Suite("CityFolder: a city's files, loaded checked")
struct CityFolderTests {
    /// A complete folder: zones, roads, fares, tolls and settings (no geocoder).
    func folder(bookingRules: String = "001") throws -> TemporaryFolder {
        let f = TemporaryFolder()
        try ZoneFile.write(Monaco.zones, to: f.path(CityFolder.zonesFile))
        try GraphFile.write(Monaco.network, to: f.path(CityFolder.roadsFile))
        for name in [CityFolder.faresFile, CityFolder.tollsFile] {
            try FileManager.default.copyItem(atPath: Monaco.data.appendingPathComponent(name).path, toPath: f.path(name))
        }
        f.write(CityFolder.settingsFile, #"{"name":"Monaco","booking_rules":"\#(bookingRules)"}"#)
        return f
    }

    @Test("a complete folder loads: the city's parts, its booking rules, no geocoder")
    func loads() throws {
        let f = try folder()
        let loaded = try CityFolder.load(f.url.path)
        #expect(loaded.settings.name == "Monaco")
        #expect(loaded.city.settings == .specification001)
        #expect(loaded.city.zones.zones.count == Monaco.zones.zones.count)
        #expect(loaded.city.network.nodeCount == Monaco.network.nodeCount)
        #expect(loaded.city.fares.currency == "INR" && loaded.city.tolls.tolls.count == 1)
        #expect(loaded.geocoder == nil)
    }

    @Test("a missing folder, a missing or broken file, rules it does not know and files that disagree are refused by name")
    func refusals() throws {
        #expect(throws: CityFolderError.self) { try CityFolder.load("/nonexistent/city") }

        let noRoads = try folder()
        try FileManager.default.removeItem(atPath: noRoads.path(CityFolder.roadsFile))
        #expect(failure(noRoads)?.file.hasSuffix(CityFolder.roadsFile) == true)

        let brokenZones = try folder()
        brokenZones.write(CityFolder.zonesFile, "not a zone file")
        #expect(failure(brokenZones)?.file.hasSuffix(CityFolder.zonesFile) == true)

        let unknownRules = try folder(bookingRules: "002")
        let rules = failure(unknownRules)
        #expect(rules?.file.hasSuffix(CityFolder.settingsFile) == true && rules?.reason.contains("booking_rules") == true, "\(String(describing: rules))")

        let otherCurrency = try folder()
        otherCurrency.write(CityFolder.tollsFile, #"{"currency":"EUR","tolls":[]}"#)
        let currency = failure(otherCurrency)
        #expect(currency?.file.hasSuffix(CityFolder.tollsFile) == true && currency?.reason.contains("EUR") == true, "\(String(describing: currency))")

        let unknownArea = try folder()
        unknownArea.write(CityFolder.faresFile, #"{"currency":"INR","minor_units":100,"rates":[{"service_area":"Atlantis","cab_type":"Sedan","base":1,"per_km":1}],"waiting":{"free_minutes":10,"block_minutes":30,"per_block":5000},"first_ride_discount_percent":0}"#)
        let area = failure(unknownArea)
        #expect(area?.file.hasSuffix(CityFolder.faresFile) == true && area?.reason.contains("Atlantis") == true, "\(String(describing: area))")
    }

    func failure(_ f: TemporaryFolder) -> CityFolderError? {
        do { _ = try CityFolder.load(f.url.path); return nil } catch { return error }
    }
}
