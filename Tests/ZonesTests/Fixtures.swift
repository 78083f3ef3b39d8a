import Foundation
import TestSupport
@testable import Zones
@testable import ZoneImport

/// The NYC zones from the EPSG:2263 file, imported once for all tests that need them.
enum NYC {
    static let options = ZoneImportOptions(idField: "LocationID", nameField: "zone")
    static let fromStatePlane: ZoneSet? = try? ZoneImporter.load(
        zonesAt: SharedData.path("nyc/taxi-zones.epsg2263.geojson"), options: options).0
    /// GDAL's WGS84 copy has three overlaps above 1 m² (its coordinates are rounded), so it
    /// is loaded with overlaps allowed; the lowest-index rule decides inside them.
    static let fromWGS84: ZoneSet? = try? ZoneImporter.load(
        zonesAt: SharedData.path("nyc/taxi-zones.wgs84.geojson"),
        options: ZoneImportOptions(idField: "LocationID", nameField: "zone", allowOverlaps: true)).0
}
