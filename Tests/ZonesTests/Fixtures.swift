import Foundation
import TestSupport
@testable import Zones
@testable import ZoneImport

/// GeoJSON text for a FeatureCollection of polygons given as WKT-like rings.
func featureCollection(_ features: [(id: String, rings: [[(Double, Double)]])], crs: String? = nil) -> String {
    let fs = features.map { f in
        let rings = f.rings.map { r in "[" + r.map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "]" }.joined(separator: ",")
        return #"{"type":"Feature","properties":{"id":"\#(f.id)","name":"zone \#(f.id)"},"geometry":{"type":"Polygon","coordinates":[\#(rings)]}}"#
    }.joined(separator: ",")
    let crsMember = crs.map { #""crs":{"type":"name","properties":{"name":"\#($0)"}},"# } ?? ""
    return #"{"type":"FeatureCollection",\#(crsMember)"features":[\#(fs)]}"#
}

/// A square ring with its south-west corner at (x, y).
func square(_ x: Double, _ y: Double, _ side: Double) -> [(Double, Double)] {
    [(x, y), (x + side, y), (x + side, y + side), (x, y + side), (x, y)]
}

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
