import CitySimulation
import Foundation
import Geodesy
import GeoJSON
import Zones

/// The demo's picture: the city's streets, its taxi zones and service areas, every trip
/// (the drive to the pickup dashed, the ride solid), the tracks the server kept of the
/// completed trips (the cabs' reports matched to the roads, in purple) and where each cab
/// ended, as one SVG.
///
/// An SVG rather than a PNG: it needs no image library, any browser opens it, and it stays
/// sharp when zoomed into a street. The projection is equirectangular around the city's
/// mean latitude, which is true to a fraction of a percent across a city.
package struct DemoMap {
    package var width = 1200.0
    let zones: ZoneSet
    let streets: [[Coordinate]]

    package init(zones: ZoneSet, streets: [[Coordinate]]) {
        self.zones = zones
        self.streets = streets
    }

    /// The SVG of `trips`, the `driven` tracks (each a list of pieces) and the cabs at
    /// `cabs`, with `title` in the corner.
    package func svg(trips: [CitySimulation.Trip], driven: [[[Coordinate]]] = [], cabs: [Coordinate], title: String) -> String {
        var minLat = Double.infinity, maxLat = -Double.infinity, minLon = Double.infinity, maxLon = -Double.infinity
        func include(_ lat: Double, _ lon: Double) {
            minLat = min(minLat, lat); maxLat = max(maxLat, lat); minLon = min(minLon, lon); maxLon = max(maxLon, lon)
        }
        let zoneRings = zones.zones.map { zones.polygons(of: $0) }
        let areaRings = zones.serviceAreas.map { zones.polygons(ofServiceArea: $0) }
        // Framed on the taxi zones: service areas can reach far beyond the streets served.
        for polygons in (zoneRings.isEmpty ? areaRings : zoneRings) { for polygon in polygons { for ring in polygon { for p in ring { include(p.y, p.x) } } } }
        if !minLat.isFinite { for street in streets { for c in street { include(c.latitude, c.longitude) } } }
        guard minLat.isFinite, maxLat > minLat, maxLon > minLon else {
            return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>\n"
        }
        let squeeze = cos((minLat + maxLat) / 2 * .pi / 180)
        let margin = 20.0
        let scale = (width - 2 * margin) / ((maxLon - minLon) * squeeze)
        let height = ((maxLat - minLat) * scale + 2 * margin).rounded(.up)
        func x(_ lon: Double) -> String { String(format: "%.1f", margin + (lon - minLon) * squeeze * scale) }
        func y(_ lat: Double) -> String { String(format: "%.1f", margin + (maxLat - lat) * scale) }
        func path(_ points: [Coordinate]) -> String {
            points.enumerated().map { i, c in (i == 0 ? "M" : "L") + x(c.longitude) + "," + y(c.latitude) }.joined()
        }
        func rings(_ polygons: [[[Position]]]) -> String {
            polygons.flatMap { $0 }.map { ring in
                ring.enumerated().map { i, p in (i == 0 ? "M" : "L") + x(p.x) + "," + y(p.y) }.joined() + "Z"
            }.joined()
        }
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))">
            <rect width="100%" height="100%" fill="#f7f5f0"/>

            """
        out += "<g fill=\"none\" stroke=\"#d8d4cc\" stroke-width=\"1\">\n"
        for street in streets where street.count > 1 { out += "<path d=\"\(path(street))\"/>\n" }
        out += "</g>\n<g fill=\"#3c7dd9\" fill-opacity=\"0.06\" stroke=\"#3c7dd9\" stroke-width=\"1.2\">\n"
        for (zone, polygons) in zip(zones.zones, zoneRings) {
            out += "<path d=\"\(rings(polygons))\" fill-rule=\"evenodd\"><title>\(Self.escape(zone.name))</title></path>\n"
        }
        out += "</g>\n<g fill=\"none\" stroke=\"#333\" stroke-width=\"2.5\">\n"
        for polygons in areaRings { out += "<path d=\"\(rings(polygons))\"/>\n" }
        out += "</g>\n<g fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n"
        for trip in trips {
            if trip.toPickup.count > 1 {
                out += "<path d=\"\(path(trip.toPickup))\" stroke=\"#e08a00\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\" stroke-opacity=\"0.7\"/>\n"
            }
            if trip.ride.count > 1 { out += "<path d=\"\(path(trip.ride))\" stroke=\"#1b7f3b\" stroke-width=\"2\" stroke-opacity=\"0.55\"/>\n" }
        }
        out += "</g>\n<g fill=\"none\" stroke=\"#6a3fb5\" stroke-width=\"1.2\" stroke-opacity=\"0.8\" class=\"driven\">\n"
        for track in driven {
            let d = track.filter { $0.count > 1 }.map(path).joined()
            if !d.isEmpty { out += "<path d=\"\(d)\"/>\n" }
        }
        out += "</g>\n<g fill=\"#d62828\" stroke=\"#fff\" stroke-width=\"1\">\n"
        for cab in cabs { out += "<circle cx=\"\(x(cab.longitude))\" cy=\"\(y(cab.latitude))\" r=\"4\"/>\n" }
        out += "</g>\n<text x=\"\(Int(margin))\" y=\"\(Int(height - 6))\" font-family=\"sans-serif\" font-size=\"14\" fill=\"#333\">"
            + "\(Self.escape(title))</text>\n</svg>\n"
        return out
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
