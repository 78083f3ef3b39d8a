import Foundation

/// GeoJSON text for a FeatureCollection of polygons given as WKT-like rings.
public func featureCollection(_ features: [(id: String, rings: [[(Double, Double)]])], crs: String? = nil) -> String {
    // `-> String`: GRDB (which the scratch stores bring in) makes a string literal an SQL too.
    let fs = features.map { f -> String in
        let rings = f.rings.map { r in "[" + r.map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "]" }.joined(separator: ",")
        return #"{"type":"Feature","properties":{"id":"\#(f.id)","name":"zone \#(f.id)"},"geometry":{"type":"Polygon","coordinates":[\#(rings)]}}"#
    }.joined(separator: ",")
    let crsMember = crs.map { #""crs":{"type":"name","properties":{"name":"\#($0)"}},"# } ?? ""
    return #"{"type":"FeatureCollection",\#(crsMember)"features":[\#(fs)]}"#
}

/// A square ring with its south-west corner at (x, y).
public func square(_ x: Double, _ y: Double, _ side: Double) -> [(Double, Double)] {
    [(x, y), (x + side, y), (x + side, y + side), (x, y + side), (x, y)]
}
