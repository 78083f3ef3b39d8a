/// One OSM tag.
public struct OSMTag: Hashable, Sendable {
    /// The tag's key ("highway").
    public var key: String
    /// The tag's value ("residential").
    public var value: String
    /// A tag from its key and value.
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
    /// The OSM id.
    public var id: Int64
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double
    /// The tags, in file order.
    public var tags: [OSMTag]
    /// A node from its parts.
    public init(id: Int64, latitude: Double, longitude: Double, tags: [OSMTag] = []) {
        self.id = id; self.latitude = latitude; self.longitude = longitude; self.tags = tags
    }
}

/// An OSM way: id, node references in order, and tags.
public struct OSMWay: Sendable {
    /// The OSM id.
    public var id: Int64
    /// The ids of its nodes, in order.
    public var nodes: [Int64]
    /// The tags, in file order.
    public var tags: [OSMTag]
    /// A way from its parts.
    public init(id: Int64, nodes: [Int64], tags: [OSMTag] = []) { self.id = id; self.nodes = nodes; self.tags = tags }
}

/// What a relation member is.
public enum OSMMemberType: Int, Sendable { case node = 0, way = 1, relation = 2 }

/// One member of a relation.
public struct OSMMember: Hashable, Sendable {
    /// Whether the member is a node, a way or a relation.
    public var type: OSMMemberType
    /// The member's OSM id.
    public var ref: Int64
    /// The member's role ("from", "via", "to", "outer", …).
    public var role: String
    /// A member from its parts.
    public init(type: OSMMemberType, ref: Int64, role: String) { self.type = type; self.ref = ref; self.role = role }
}

/// An OSM relation: id, members and tags.
public struct OSMRelation: Sendable {
    /// The OSM id.
    public var id: Int64
    /// The members, in order.
    public var members: [OSMMember]
    /// The tags, in file order.
    public var tags: [OSMTag]
    /// A relation from its parts.
    public init(id: Int64, members: [OSMMember], tags: [OSMTag] = []) { self.id = id; self.members = members; self.tags = tags }
}

/// The entities of one file block (PBF) or of a whole XML file, in file order per kind.
public struct OSMBlock: Sendable {
    /// The block's nodes (dense nodes included).
    public var nodes: [OSMNode] = []
    /// The block's ways.
    public var ways: [OSMWay] = []
    /// The block's relations.
    public var relations: [OSMRelation] = []
    /// An empty block.
    public init() {}
}

/// Which entities a reader should decode; the others are skipped undecoded (a routing
/// import reads ways and relations first, then only the nodes it needs).
public struct OSMKinds: OptionSet, Sendable {
    /// The kinds as bits.
    public let rawValue: Int
    /// Kinds from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Nodes.
    public static let nodes = OSMKinds(rawValue: 1)
    /// Ways.
    public static let ways = OSMKinds(rawValue: 2)
    /// Relations.
    public static let relations = OSMKinds(rawValue: 4)
    /// Every kind.
    public static let all: OSMKinds = [.nodes, .ways, .relations]
}

/// Why an OSM file could not be read. The message names the file and, where known, the
/// block and byte.
public enum OSMError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file cannot be opened or read.
    case unreadable(String)
    /// The bytes break the format.
    case malformed(String)
    /// The file needs a feature this reader lacks (a compression, a required feature).
    case unsupported(String)

    /// The error in one line, naming the file and, where it helps, the block.
    public var description: String {
        switch self {
        case .unreadable(let m), .malformed(let m), .unsupported(let m): return m
        }
    }
}
