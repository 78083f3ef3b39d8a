import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads an OSM XML file (`.osm`) into one `OSMBlock`. XML extracts are small by nature
/// (the API and editors export them); large data comes as PBF, so this reads the whole file.
public enum OSMXMLReader {
    /// Reads an OSM XML file (the kinds asked for).
    public static func read(path: String, kinds: OSMKinds = .all) throws(OSMError) -> OSMBlock {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable("\(path): cannot open") }
        return try read(data: data, name: path, kinds: kinds)
    }

    /// Reads OSM XML from memory; `name` names it in errors.
    public static func read(data: Data, name: String, kinds: OSMKinds = .all) throws(OSMError) -> OSMBlock {
        let parser = XMLParser(data: data)
        let handler = Handler(name: name, kinds: kinds)
        parser.delegate = handler
        let ok = parser.parse()
        if let failure = handler.failure { throw failure }
        guard ok else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "not well-formed XML"
            throw .malformed("\(name): line \(parser.lineNumber): \(reason)")
        }
        guard handler.sawRoot else { throw .malformed("\(name): no <osm> root element (is this an OSM XML file?)") }
        return handler.block
    }

    /// The parser's delegate: builds entities as elements open and close. A class because
    /// `XMLParser` wants one; it lives only for one parse.
    private final class Handler: NSObject, XMLParserDelegate {
        let name: String, kinds: OSMKinds
        var block = OSMBlock()
        var failure: OSMError?
        var sawRoot = false
        private var depth = 0
        private var node: OSMNode?, way: OSMWay?, relation: OSMRelation?

        init(name: String, kinds: OSMKinds) { self.name = name; self.kinds = kinds }

        private func fail(_ parser: XMLParser, _ reason: String) {
            if failure == nil { failure = .malformed("\(name): line \(parser.lineNumber): \(reason)") }
            parser.abortParsing()
        }

        private func id(_ a: [String: String], _ key: String, _ parser: XMLParser) -> Int64? {
            guard let s = a[key], let v = Int64(s) else { fail(parser, "missing or bad \(key)=\"\(a[key] ?? "")\""); return nil }
            return v
        }

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
                    qualifiedName: String?, attributes a: [String: String] = [:]) {
            depth += 1
            if depth == 1 {
                guard element == "osm" else { fail(parser, "root element is <\(element)>, not <osm> (is this an OSM XML file?)"); return }
                sawRoot = true
                return
            }
            switch element {
            case "node":
                guard let id = id(a, "id", parser) else { return }
                guard let lat = a["lat"].flatMap(Double.init), let lon = a["lon"].flatMap(Double.init),
                      (-90...90).contains(lat), (-180...180).contains(lon) else {
                    fail(parser, "node \(id) has a missing or impossible lat/lon"); return
                }
                node = OSMNode(id: id, latitude: lat, longitude: lon, tags: [])
            case "way":
                guard let id = id(a, "id", parser) else { return }
                way = OSMWay(id: id, nodes: [], tags: [])
            case "relation":
                guard let id = id(a, "id", parser) else { return }
                relation = OSMRelation(id: id, members: [], tags: [])
            case "nd":
                guard let ref = id(a, "ref", parser) else { return }
                way?.nodes.append(ref)
            case "member":
                guard let ref = id(a, "ref", parser) else { return }
                let type: OSMMemberType
                switch a["type"] {
                case "node": type = .node
                case "way": type = .way
                case "relation": type = .relation
                default: fail(parser, "member type \"\(a["type"] ?? "")\""); return
                }
                relation?.members.append(OSMMember(type: type, ref: ref, role: a["role"] ?? ""))
            case "tag":
                guard let k = a["k"] else { fail(parser, "tag without k"); return }
                let tag = OSMTag(k, a["v"] ?? "")
                if node != nil { node!.tags.append(tag) } else if way != nil { way!.tags.append(tag) } else { relation?.tags.append(tag) }
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            depth -= 1
            switch element {
            case "node": if let n = node, kinds.contains(.nodes) { block.nodes.append(n) }; node = nil
            case "way": if let w = way, kinds.contains(.ways) { block.ways.append(w) }; way = nil
            case "relation": if let r = relation, kinds.contains(.relations) { block.relations.append(r) }; relation = nil
            default: break
            }
        }
    }
}
