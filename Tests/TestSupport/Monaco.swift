import CityModel
import Fares
import Foundation
import Geodesy
import RoadGraph
import ZoneImport
import Zones

/// Monaco from the project's `Data/` folder (always in the checkout): its wards as zones,
/// its communes as service areas, its roads, a fare chart in paise, and a few places. The
/// one city fixture of the tests, loaded once per test process.
public enum Monaco {
    /// The folder of Monaco's files.
    public static let data = SharedData.projectRoot.appendingPathComponent("Data/monaco")
    /// The nine wards as zones, the communes around as service areas.
    public static let zones: ZoneSet = try! ZoneImporter.load(zonesAt: data.appendingPathComponent("wards.geojson").path,
                                                              serviceAreasAt: data.appendingPathComponent("communes.geojson").path).0
    /// The road graph of the extract.
    public static let network: RoadNetwork = try! RoadNetwork.importOSM(path: data.appendingPathComponent("monaco.osm.pbf").path).0
    /// The same extract with turns priced (`CarProfile.turnCosts`).
    public static let networkWithTurnCosts: RoadNetwork = {
        var profile = CarProfile()
        profile.turnCosts = TurnCosts()
        return try! RoadNetwork.importOSM(path: data.appendingPathComponent("monaco.osm.pbf").path, profile: profile).0
    }()
    /// The Sedan's rate in Monaco.
    public static let sedan = FareRate(base: 5000, perKilometre: 1200)
    /// The fare chart, in paise.
    public static let fares = FareChart(currency: "INR", rates: ["Monaco": ["Sedan": sedan, "Hatchback": FareRate(base: 4000, perKilometre: 1000),
                                                                            "Tata Nano": FareRate(base: 2500, perKilometre: 800)],
                                                                 // A French neighbour in the service areas but outside Monaco's ward zones.
                                                                 "Beausoleil": ["Sedan": FareRate(base: 6000, perKilometre: 1300)]])
    /// The A8's La Turbie barrier, priced for the tests (the extract's toll ways are cut off
    /// from Monaco's streets, so trips report them explicitly).
    public static let tolls = try! TollList(currency: "INR", tolls: [.init(name: "La Turbie", ways: [101431177, 101431181],
                                                                           prices: ["Sedan": 30_000], defaultPrice: 25_000)])

    /// The city as the services see it, with `settings`.
    public static func city(_ settings: BookingSettings = BookingSettings()) -> City {
        City(zones: zones, network: network, fares: fares, tolls: tolls, settings: settings)
    }

    /// Road junctions grouped by the zone containing them, each list in node order.
    public static func junctions() -> [[Coordinate]] {
        var out = [[Coordinate]](repeating: [], count: zones.zones.count)
        for v in 0..<network.nodeCount {
            let c = network.coordinate(ofNode: v)
            let z = zones.zoneIndex(longitude: c.longitude, latitude: c.latitude)
            if z >= 0 { out[z].append(c) }
        }
        return out
    }

    /// Place du Casino.
    public static let casino = Coordinate(unchecked: 43.7393, 7.4277)
    /// The Prince's Palace.
    public static let palace = Coordinate(unchecked: 43.7314, 7.4197)
    /// Stade Louis II.
    public static let stadium = Coordinate(unchecked: 43.7277, 7.4156)
    /// Port Hercule.
    public static let portHercule = Coordinate(unchecked: 43.7347, 7.4226)
    /// Nice, outside every service area.
    public static let nice = Coordinate(unchecked: 43.7102, 7.2620)
}
