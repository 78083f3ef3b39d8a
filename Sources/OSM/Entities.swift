/// One OSM tag.
public struct OSMTag: Hashable, Sendable {
    public var key: String
    public var value: String
    public init(_ key: String, _ value: String) { self.key = key; self.value = value }
}

extension Array where Element == OSMTag {
    /// The value of a key, if present.
    public subscript(key: String) -> String? {
        for t in self where t.key == key { return t.value }
        return nil
    }
}

/// An OSM node: id, position (degrees, WGS84) and tags.
public struct OSMNode: Sendable {
    public var id: Int64
    public var latitude: Double
    public var longitude: Double
    public var tags: [OSMTag]
    public init(id: Int64, latitude: Double, longitude: Double, tags: [OSMTag] = []) {
        self.id = id; self.latitude = latitude; self.longitude = longitude; self.tags = tags
    }
}

/// An OSM way: id, node references in order, and tags.
public struct OSMWay: Sendable {
    public var id: Int64
    public var nodes: [Int64]
    public var tags: [OSMTag]
    public init(id: Int64, nodes: [Int64], tags: [OSMTag] = []) { self.id = id; self.nodes = nodes; self.tags = tags }
}

/// What a relation member is.
public enum OSMMemberType: Int, Sendable { case node = 0, way = 1, relation = 2 }

/// One member of a relation.
public struct OSMMember: Hashable, Sendable {
    public var type: OSMMemberType
    public var ref: Int64
    public var role: String
    public init(type: OSMMemberType, ref: Int64, role: String) { self.type = type; self.ref = ref; self.role = role }
}

/// An OSM relation: id, members and tags.
public struct OSMRelation: Sendable {
    public var id: Int64
    public var members: [OSMMember]
    public var tags: [OSMTag]
    public init(id: Int64, members: [OSMMember], tags: [OSMTag] = []) { self.id = id; self.members = members; self.tags = tags }
}

/// The entities of one file block (PBF) or of a whole XML file, in file order per kind.
public struct OSMBlock: Sendable {
    public var nodes: [OSMNode] = []
    public var ways: [OSMWay] = []
    public var relations: [OSMRelation] = []
    public init() {}
}

/// Which entities a reader should decode; the others are skipped undecoded (a routing
/// import reads ways and relations first, then only the nodes it needs).
public struct OSMKinds: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let nodes = OSMKinds(rawValue: 1)
    public static let ways = OSMKinds(rawValue: 2)
    public static let relations = OSMKinds(rawValue: 4)
    public static let all: OSMKinds = [.nodes, .ways, .relations]
}

/// Why an OSM file could not be read. The message names the file and, where known, the
/// block and byte.
public enum OSMError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(String)
    case malformed(String)
    case unsupported(String)

    public var description: String {
        switch self {
        case .unreadable(let m), .malformed(let m), .unsupported(let m): return m
        }
    }
}
