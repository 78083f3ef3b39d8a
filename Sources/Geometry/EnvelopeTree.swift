import CGEOS

/// GEOS's STR tree of envelopes, holding integer items. Used as the plain baseline that
/// Wayfare's own indexes are measured and checked against. Not `Sendable` (one context).
public final class EnvelopeTree {
    private let context: GEOSContext
    private let tree: OpaquePointer
    /// The envelopes inserted, kept alive for GEOS (the tree stores pointers to them).
    private var envelopes: [Geometry] = []

    /// An empty STR tree; `nodeCapacity` children per node.
    public init(in context: GEOSContext, nodeCapacity: Int = 10) {
        self.context = context
        guard let t = GEOSSTRtree_create_r(context.handle, nodeCapacity) else { fatalError("GEOSSTRtree_create_r failed") }
        tree = t
    }

    deinit { GEOSSTRtree_destroy_r(context.handle, tree) }

    /// Inserts `item` under `geometry`'s envelope.
    public func insert(_ geometry: Geometry, item: Int) {
        GEOSSTRtree_insert_r(context.handle, tree, geometry.raw, UnsafeMutableRawPointer(bitPattern: item + 1))
        envelopes.append(geometry)
    }

    /// The items whose envelopes intersect `geometry`'s envelope, in no particular order.
    public func query(_ geometry: Geometry, into items: inout [Int]) {
        items.removeAll(keepingCapacity: true)
        withUnsafeMutablePointer(to: &items) { p in
            GEOSSTRtree_query_r(context.handle, tree, geometry.raw, { item, userdata in
                guard let userdata else { return }
                let out = userdata.assumingMemoryBound(to: [Int].self)
                out.pointee.append(Int(bitPattern: item) - 1)
            }, p)
        }
    }
}
