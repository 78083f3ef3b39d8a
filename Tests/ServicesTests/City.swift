import CityModel
import Fares
import Fleet
import Foundation
import Geodesy
import RoadGraph
import Services
import TestSupport
import ZoneImport
import Zones

/// Monaco from the project's `Data/` folder (always in the checkout): its wards as zones,
/// its communes as service areas, its roads, and a fare chart in paise.
enum Monaco {
    static let data = SharedData.projectRoot.appendingPathComponent("Data/monaco")
    static let zones: ZoneSet = try! ZoneImporter.load(zonesAt: data.appendingPathComponent("wards.geojson").path,
                                                       serviceAreasAt: data.appendingPathComponent("communes.geojson").path).0
    static let network: RoadNetwork = try! RoadNetwork.importOSM(path: data.appendingPathComponent("monaco.osm.pbf").path).0
    static let sedan = FareRate(base: 5000, perKilometre: 1200)
    static let fares = FareChart(currency: "INR", rates: ["Monaco": ["Sedan": sedan, "Hatchback": FareRate(base: 4000, perKilometre: 1000),
                                                                     "Tata Nano": FareRate(base: 2500, perKilometre: 800)],
                                           // A French neighbour in the service areas but outside Monaco's ward zones.
                                           "Beausoleil": ["Sedan": FareRate(base: 6000, perKilometre: 1300)]])
    /// The A8's La Turbie barrier, priced for the test (the extract's toll ways are cut off
    /// from Monaco's streets, so trips report them explicitly).
    static let tolls = try! TollList(currency: "INR", tolls: [.init(name: "La Turbie", ways: [101431177, 101431181], prices: ["Sedan": 30_000], defaultPrice: 25_000)])

    static func city(_ settings: BookingSettings = BookingSettings()) -> City {
        City(zones: zones, network: network, fares: fares, tolls: tolls, settings: settings)
    }

    static let casino = Coordinate(unchecked: 43.7393, 7.4277)
    static let palace = Coordinate(unchecked: 43.7314, 7.4197)
    static let stadium = Coordinate(unchecked: 43.7277, 7.4156)
    static let portHercule = Coordinate(unchecked: 43.7347, 7.4226)
    static let nice = Coordinate(unchecked: 43.7102, 7.2620)
}
