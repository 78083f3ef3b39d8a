/// Decodes one `PrimitiveBlock` (the OSM PBF data block) into entities.
enum PrimitiveBlockDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, kinds: OSMKinds, context: String) throws(OSMError) -> OSMBlock {
        // The string table and the coordinate scale may come after the groups in the byte
        // stream, so the groups are collected first and decoded at the end.
        var r = ProtoReader(bytes, context: context)
        var strings: [String] = []
        var groups: [ProtoReader] = []
        var granularity: Int64 = 100, latOffset: Int64 = 0, lonOffset: Int64 = 0
        while let (number, wire) = try r.field() {
            switch (number, wire) {
            case (1, 2):
                var table = try r.message("string table")
                while let (n, w) = try table.field() {
                    if n == 1 && w == 2 { strings.append(try table.string()) } else { try table.skip(wire: w) }
                }
            case (2, 2): groups.append(try r.message("primitive group"))
            case (17, 0): granularity = Int64(truncatingIfNeeded: try r.varint())
            case (19, 0): latOffset = Int64(bitPattern: try r.varint())
            case (20, 0): lonOffset = Int64(bitPattern: try r.varint())
            default: try r.skip(wire: wire)
            }
        }
        guard granularity > 0 else { throw r.failure("granularity \(granularity)") }
        var d = Decoder(strings: strings, granularity: granularity, latOffset: latOffset, lonOffset: lonOffset, context: context)
        var block = OSMBlock()
        for var g in groups {
            while let (number, wire) = try g.field() {
                switch (number, wire) {
                case (1, 2) where kinds.contains(.nodes): block.nodes.append(try d.node(try g.message("node")))
                case (2, 2) where kinds.contains(.nodes): try d.denseNodes(try g.message("dense nodes"), into: &block.nodes)
                case (3, 2) where kinds.contains(.ways): block.ways.append(try d.way(try g.message("way")))
                case (4, 2) where kinds.contains(.relations): block.relations.append(try d.relation(try g.message("relation")))
                default: try g.skip(wire: wire)
                }
            }
        }
        return block
    }

    struct Decoder {
        let strings: [String]
        let granularity: Int64, latOffset: Int64, lonOffset: Int64
        let context: String
        // Scratch arrays, reused per entity.
        var keys: [UInt64] = [], vals: [UInt64] = []

        func string(_ index: UInt64, _ r: ProtoReader) throws(OSMError) -> String {
            guard index < UInt64(strings.count) else { throw r.failure("string index \(index) outside the table of \(strings.count)") }
            return strings[Int(index)]
        }

        func coordinate(_ lat: Int64, _ lon: Int64, _ r: ProtoReader) throws(OSMError) -> (Double, Double) {
            let latitude = Double(latOffset &+ granularity &* lat) * 1e-9
            let longitude = Double(lonOffset &+ granularity &* lon) * 1e-9
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                throw r.failure("coordinate \(latitude), \(longitude) out of range")
            }
            return (latitude, longitude)
        }

        mutating func tags(_ r: ProtoReader) throws(OSMError) -> [OSMTag] {
            guard keys.count == vals.count else { throw r.failure("\(keys.count) keys but \(vals.count) values") }
            var out: [OSMTag] = []
            out.reserveCapacity(keys.count)
            for (k, v) in zip(keys, vals) { out.append(OSMTag(try string(k, r), try string(v, r))) }
            return out
        }

        mutating func node(_ m: ProtoReader) throws(OSMError) -> OSMNode {
            var r = m
            var id: Int64 = 0, lat: Int64 = 0, lon: Int64 = 0
            keys.removeAll(keepingCapacity: true); vals.removeAll(keepingCapacity: true)
            while let (number, wire) = try r.field() {
                switch (number, wire) {
                case (1, 0): id = try r.signed()
                case (2, _): try r.unsignedValues(wire: wire, into: &keys)
                case (3, _): try r.unsignedValues(wire: wire, into: &vals)
                case (8, 0): lat = try r.signed()
                case (9, 0): lon = try r.signed()
                default: try r.skip(wire: wire)
                }
            }
            let (latitude, longitude) = try coordinate(lat, lon, r)
            return OSMNode(id: id, latitude: latitude, longitude: longitude, tags: try tags(r))
        }

        mutating func denseNodes(_ m: ProtoReader, into out: inout [OSMNode]) throws(OSMError) {
            var r = m
            var ids: [Int64] = [], lats: [Int64] = [], lons: [Int64] = [], keysVals: [UInt64] = []
            while let (number, wire) = try r.field() {
                switch number {
                case 1: try r.signedValues(wire: wire, delta: true, into: &ids)
                case 8: try r.signedValues(wire: wire, delta: true, into: &lats)
                case 9: try r.signedValues(wire: wire, delta: true, into: &lons)
                case 10: try r.unsignedValues(wire: wire, into: &keysVals)
                default: try r.skip(wire: wire)
                }
            }
            guard ids.count == lats.count, ids.count == lons.count else {
                throw r.failure("dense nodes with \(ids.count) ids, \(lats.count) latitudes, \(lons.count) longitudes")
            }
            out.reserveCapacity(out.count + ids.count)
            var kv = 0
            for i in ids.indices {
                var tags: [OSMTag] = []
                // keys_vals: key, value pairs per node, each node's list ended by a 0.
                while kv < keysVals.count {
                    let k = keysVals[kv]; kv += 1
                    if k == 0 { break }
                    guard kv < keysVals.count else { throw r.failure("dense node tag without a value") }
                    tags.append(OSMTag(try string(k, r), try string(keysVals[kv], r))); kv += 1
                }
                let (latitude, longitude) = try coordinate(lats[i], lons[i], r)
                out.append(OSMNode(id: ids[i], latitude: latitude, longitude: longitude, tags: tags))
            }
        }

        mutating func way(_ m: ProtoReader) throws(OSMError) -> OSMWay {
            var r = m
            var id: Int64 = 0, refs: [Int64] = []
            keys.removeAll(keepingCapacity: true); vals.removeAll(keepingCapacity: true)
            while let (number, wire) = try r.field() {
                switch number {
                case 1 where wire == 0: id = Int64(bitPattern: try r.varint())
                case 2: try r.unsignedValues(wire: wire, into: &keys)
                case 3: try r.unsignedValues(wire: wire, into: &vals)
                case 8: try r.signedValues(wire: wire, delta: true, into: &refs)
                default: try r.skip(wire: wire)
                }
            }
            return OSMWay(id: id, nodes: refs, tags: try tags(r))
        }

        mutating func relation(_ m: ProtoReader) throws(OSMError) -> OSMRelation {
            var r = m
            var id: Int64 = 0, roles: [UInt64] = [], refs: [Int64] = [], types: [UInt64] = []
            keys.removeAll(keepingCapacity: true); vals.removeAll(keepingCapacity: true)
            while let (number, wire) = try r.field() {
                switch number {
                case 1 where wire == 0: id = Int64(bitPattern: try r.varint())
                case 2: try r.unsignedValues(wire: wire, into: &keys)
                case 3: try r.unsignedValues(wire: wire, into: &vals)
                case 8: try r.unsignedValues(wire: wire, into: &roles)
                case 9: try r.signedValues(wire: wire, delta: true, into: &refs)
                case 10: try r.unsignedValues(wire: wire, into: &types)
                default: try r.skip(wire: wire)
                }
            }
            guard roles.count == refs.count, refs.count == types.count else {
                throw r.failure("relation \(id) with \(roles.count) roles, \(refs.count) members, \(types.count) types")
            }
            var members: [OSMMember] = []
            members.reserveCapacity(refs.count)
            for i in refs.indices {
                guard let type = OSMMemberType(rawValue: Int(truncatingIfNeeded: types[i])) else {
                    throw r.failure("relation \(id) member type \(types[i])")
                }
                // roles_sid is an int32 written as a plain varint: read it as unsigned.
                members.append(OSMMember(type: type, ref: refs[i], role: try string(roles[i], r)))
            }
            return OSMRelation(id: id, members: members, tags: try tags(r))
        }
    }
}
