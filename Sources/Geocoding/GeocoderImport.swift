import CSVFile
import Foundation
import Geodesy
import OSM

/// Why geocoding material cannot be read: one line naming the file and, where it helps,
/// the line or block.
public struct GeocoderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The error in one line, naming the file and, where it helps, the line.
    public let description: String
    /// An error with its one-line text.
    public init(_ description: String) { self.description = description }
}

extension GeocoderBuilder {
    /// Keys whose presence makes a named OSM object a place or point of interest.
    static let placeKeys = ["amenity", "shop", "tourism", "aeroway", "place", "leisure", "historic"]

    /// Adds the addresses, named streets, places and points of interest of an OSM extract
    /// (`.osm.pbf`, or OSM XML for `.osm`/`.xml`), read with the shared OSM readers. A PBF
    /// is read twice: ways first, then only the nodes they need plus tagged nodes.
    public mutating func addOSM(path: String) throws(GeocoderError) {
        var ways: [OSMWay] = []
        var needed = Set<Int64>()
        var located: [Int64: (Int32, Int32)] = [:]
        var nodes: [OSMNode] = []
        func wanted(_ w: OSMWay) -> Bool {
            w.tags["addr:housenumber"] != nil || (w.tags["highway"] != nil && w.tags["name"] != nil) || isPlace(w.tags)
        }
        do {
            let lower = path.lowercased()
            if lower.hasSuffix(".osm") || lower.hasSuffix(".xml") {
                let block = try OSMXMLReader.read(path: path)
                ways = block.ways.filter(wanted)
                for n in block.nodes { located[n.id] = Self.e7(n) }
                nodes = block.nodes.filter { !$0.tags.isEmpty }
            } else {
                try PBFReader(path: path).forEachBlock([.ways]) { block in
                    for w in block.ways where wanted(w) { ways.append(w); needed.formUnion(w.nodes) }
                }
                try PBFReader(path: path).forEachBlock([.nodes]) { block in
                    for n in block.nodes {
                        if needed.contains(n.id) { located[n.id] = Self.e7(n) }
                        if !n.tags.isEmpty { nodes.append(n) }
                    }
                }
            }
        } catch let e as OSMError {
            throw GeocoderError(e.description)
        } catch {
            throw GeocoderError("\(path): \(error)")
        }
        for n in nodes {
            let c = Coordinate(unchecked: n.latitude, n.longitude)
            add(tags: n.tags, at: c)
        }
        for w in ways {
            let line = w.nodes.compactMap { located[$0] }
            guard !line.isEmpty else { continue }
            if let name = w.tags["name"], w.tags["highway"] != nil { addStreet(name: name, line: line) }
            // A building or area: its centroid, or a point on its surface (see RepresentativePoint).
            let point = RepresentativePoint.of(line)
            if w.tags["highway"] == nil { add(tags: w.tags, at: point) }
            else if w.tags["addr:housenumber"] != nil { add(tags: w.tags.filter { $0.key.hasPrefix("addr:") }, at: point) }
        }
    }

    static func e7(_ n: OSMNode) -> (Int32, Int32) { (Int32((n.latitude * 1e7).rounded()), Int32((n.longitude * 1e7).rounded())) }

    func isPlace(_ tags: [OSMTag]) -> Bool {
        tags["name"] != nil && (Self.placeKeys.contains { tags[$0] != nil } || tags["railway"] == "station")
    }

    /// An address and/or a named place from one object's tags.
    mutating func add(tags: [OSMTag], at c: Coordinate) {
        if let number = tags["addr:housenumber"], let street = tags["addr:street"] ?? tags["addr:place"] {
            // "12;14", or "12,14": each number is an address at the same point. A comma
            // followed by words ("33, Floor 1") is part of one number, not a list.
            for part in number.split(separator: ";") {
                let items = part.split(separator: ",")
                let isList = items.allSatisfy { item in
                    let split = Normalizer.splitHouseNumber(Normalizer.tokens(String(item)))
                    return split.number != nil && split.rest.isEmpty
                }
                for n in isList ? items : [part] {
                    let trimmed = n.trimmingCharacters(in: .whitespaces)
                    if !trimmed.isEmpty { addAddress(number: trimmed, street: street, postcode: tags["addr:postcode"], city: tags["addr:city"], at: c) }
                }
            }
        }
        if isPlace(tags), let name = tags["name"] {
            addPlace(name: name, kind: .place, at: c)
        }
    }

    /// Adds a gazetteer CSV with the header `lat,lon,name,admin1,admin2,cc` (GeoNames
    /// style): each row is a city. A bad coordinate is an error naming its line; a row
    /// without a name is skipped and counted in `unnamedGazetteerRows`.
    public mutating func addGazetteer(path: String) throws(GeocoderError) {
        do {
            let table = try CSVTable(path: path, required: ["lat", "lon", "name", "admin1", "admin2", "cc"])
            let (la, lo, na, a1, cc) = try (table.column("lat"), table.column("lon"), table.column("name"), table.column("admin1"), table.column("cc"))
            for row in table.rows {
                let lat = try table.number(row, la), lon = try table.number(row, lo)
                guard (-90...90).contains(lat), (-180...180).contains(lon) else {
                    throw GeocoderError("\(path): line \(row.line): impossible coordinate \(lat),\(lon)")
                }
                let name = table.text(row, na)
                // GeoNames has a few unnamed places; they cannot be searched, so they are
                // skipped and counted rather than failing the whole file.
                guard !name.isEmpty else { unnamedGazetteerRows += 1; continue }
                let label = [name, row.fields[a1], row.fields[cc]].filter { !$0.isEmpty }.joined(separator: ", ")
                addPlace(name: name, kind: .city, at: Coordinate(unchecked: lat, lon), label: label)
            }
        } catch let e as GeocoderError {
            throw e
        } catch let e as CSVError {
            throw GeocoderError(e.description)
        } catch {
            throw GeocoderError("\(path): \(error)")
        }
    }
}
