import Foundation
import Zones
import Geodesy
import GeoJSON
import Geometry
import Projection

extension ZoneImporter {
    /// Makes GEOS geometry of every source zone (validating, repairing, merging), checks the
    /// set in an equal-area frame, and builds the `ZoneSet` from the final rings.
    static func build(zones sources: [SourceZone], serviceAreas areaSources: [SourceZone]?, source: String,
                      options: ZoneImportOptions, progress: ((String) -> Void)?) throws(ZoneError) -> (ZoneSet, ZoneReport) {
        // Checked before any geometry work: the cover's fine cells name a zone in 14 bits.
        for (what, count) in [("zones", sources.count), ("service areas", areaSources?.count ?? 0)]
        where count > ZoneSet.maximumCount {
            throw .badInput(place: source, reason: "\(count) \(what); a zone file holds at most \(ZoneSet.maximumCount)")
        }
        let context = GEOSContext()
        var report = ZoneReport()
        report.toleranceSquareMetres = options.toleranceSquareMetres
        let zoneGeometries = try geometries(of: sources, context: context, options: options,
                                            source: source, report: &report)
        progress?("built \(zoneGeometries.count) zones")

        // Final WGS84 rings; they define the ZoneSet.
        var zones: [Zone] = []
        var allZoneRings: [[[[Position]]]] = []
        for (i, g) in zoneGeometries.enumerated() {
            let rings: [[[Position]]]
            do { rings = try g.polygonRings() } catch {
                throw .badInput(place: "\(source): zone \(sources[i].id)", reason: error.description)
            }
            allZoneRings.append(rings)
            zones.append(Zone(index: i, id: sources[i].id, name: sources[i].name, properties: sources[i].properties))
        }

        var areas: [Zone] = []
        var areaRings: [[[[Position]]]] = []
        if let areaSources {
            var areaReport = ZoneReport()
            let gs = try geometries(of: areaSources, context: context, options: options, source: "service areas", report: &areaReport)
            report.invalid += areaReport.invalid.map {
                .init(zone: "service area " + $0.zone, feature: $0.feature, reason: $0.reason, repaired: $0.repaired)
            }
            for (i, g) in gs.enumerated() {
                do { areaRings.append(try g.polygonRings()) } catch {
                    throw .badInput(place: "service area \(areaSources[i].id)", reason: error.description)
                }
                areas.append(Zone(index: i, id: areaSources[i].id, name: areaSources[i].name, properties: areaSources[i].properties))
            }
        }
        report.zones = zones.count

        // The zones' union (for the gaps, and the default service area) runs on a second
        // thread in a GEOS context of its own, while this thread checks the zone pairs.
        let zoneRingsCopy = allZoneRings
        let frame = allZoneRings.isEmpty ? nil : try equalAreaFrame(allZoneRings, source: source)
        let union: [[[Position]]]
        let adjacency: [[Int]]
        do {
            (union, adjacency) = try inParallel({ try unionRings(zoneRingsCopy) }, {
                try pairChecks(zoneRings: allZoneRings, zones: zones, frame: frame, options: options, source: source,
                               report: &report)
            })
        } catch let e as ZoneError { throw e } catch { throw .badInput(place: source, reason: "\(error)") }
        progress?("checked zone pairs")

        if areaSources == nil {
            // The default service area: the union with its holes filled; each hole is a gap.
            areaRings = [union.map { [$0[0]] }]
            areas = [Zone(index: 0, id: "1", name: URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent,
                          properties: "{}")]
        }
        try gapChecks(union: union, areaRings: areaRings, zoneRings: allZoneRings, zones: zones, frame: frame,
                      explicitAreas: areaSources != nil, options: options, source: source, report: &report)
        progress?("checked gaps and service areas")
        report.serviceAreas = areas.count
        let set = ZoneSet(zones: zones, zonePolygons: allZoneRings, serviceAreas: areas, areaPolygons: areaRings,
                          adjacency: adjacency)
        progress?("built the cell cover")
        return (set, report)
    }

    /// The union of all zones, as rings (in a GEOS context of its own).
    static func unionRings(_ zoneRings: [[[[Position]]]]) throws -> [[[Position]]] {
        let context = GEOSContext()
        var gs: [Geometry] = []
        for r in zoneRings { gs.append(try Geometry(.multiPolygon(r), in: context)) }
        return try Geometry.collection(gs, in: context).unaryUnion().polygonRings()
    }

    /// One GEOS geometry per source zone: each feature validated (and repaired if asked),
    /// features sharing an id merged by union.
    static func geometries(of sources: [SourceZone], context: GEOSContext, options: ZoneImportOptions,
                           source: String, report: inout ZoneReport) throws(ZoneError) -> [Geometry] {
        var out: [Geometry] = []
        out.reserveCapacity(sources.count)
        for s in sources {
            var parts: [Geometry] = []
            for (k, part) in s.parts.enumerated() {
                let place = "\(source): feature \(s.features[k])"
                var g: Geometry
                do { g = try Geometry(part, in: context) } catch {
                    throw .badInput(place: place, reason: error.description)
                }
                if case let .invalid(reason) = g.validity {
                    report.invalid.append(.init(zone: s.id, feature: s.features[k], reason: reason, repaired: options.repair))
                    if options.repair {
                        do { g = try g.makeValid() } catch {
                            throw .badInput(place: place, reason: "cannot repair: \(error)")
                        }
                    }
                }
                parts.append(g)
            }
            if parts.count == 1 {
                out.append(parts[0])
            } else {
                report.merged.append((s.id, parts.count))
                do {
                    let merged = try Geometry.collection(parts, in: context).unaryUnion()
                    out.append(try merged.arealPart())
                } catch {
                    throw .badInput(place: "\(source): zone \(s.id)", reason: "cannot merge its \(parts.count) features: \(error)")
                }
            }
        }
        return out
    }

    /// A Lambert equal-area frame centred on the zones, so that areas are m² and distances metres.
    static func equalAreaFrame(_ zoneRings: [[[[Position]]]], source: String) throws(ZoneError) -> (Transformer, Transformer) {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for rings in zoneRings { for poly in rings { for p in poly[0] {
            minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
        } } }
        do {
            let forward = try Transformer.equalArea(around: Coordinate(unchecked: (minY + maxY) / 2, (minX + maxX) / 2))
            return (forward, try Transformer(from: forward.target, to: "EPSG:4326"))
        } catch {
            throw .badInput(place: source, reason: "cannot build an equal-area frame: \(error)")
        }
    }

    /// Rings moved into the equal-area frame.
    static func project(_ rings: [[[Position]]], _ t: Transformer, source: String) throws(ZoneError) -> [[[Position]]] {
        var xs: [Double] = [], ys: [Double] = []
        for poly in rings { for ring in poly { for p in ring { xs.append(p.x); ys.append(p.y) } } }
        do { try t.transform(x: &xs, y: &ys) } catch { throw .badInput(place: source, reason: error.description) }
        var k = 0
        return rings.map { poly in poly.map { ring in ring.map { _ in
            defer { k += 1 }
            return Position(x: xs[k], y: ys[k])
        } } }
    }

    /// Overlaps (m²) and adjacency (within `adjacencyMetres`) of every pair of zones whose
    /// envelopes meet, in the equal-area frame.
    static func pairChecks(zoneRings: [[[[Position]]]], zones: [Zone], frame: (Transformer, Transformer)?,
                           options: ZoneImportOptions, source: String,
                           report: inout ZoneReport) throws(ZoneError) -> [[Int]] {
        guard let (forward, _) = frame else { return [] }
        let context = GEOSContext()
        var metricZones: [Geometry] = []
        for r in zoneRings {
            do { metricZones.append(try Geometry(.multiPolygon(try project(r, forward, source: source)), in: context)) } catch {
                throw .badInput(place: source, reason: "\(error)")
            }
        }
        let tolerance = options.toleranceSquareMetres
        var adjacency = [[Int]](repeating: [], count: zones.count)
        let tree = EnvelopeTree(in: context)
        for (i, g) in metricZones.enumerated() { tree.insert(g, item: i) }
        var candidates: [Int] = []
        var overlaps: [ZoneReport.Overlap] = []
        for (i, a) in metricZones.enumerated() {
            let prepared = try? a.prepared()
            tree.query(a, into: &candidates)
            for j in candidates.sorted() where j > i {
                let b = metricZones[j]
                if a.isWithin(distance: options.adjacencyMetres, of: b) {
                    adjacency[i].append(j); adjacency[j].append(i)
                    report.adjacentPairs += 1
                } else {
                    continue
                }
                guard prepared?.intersects(b) ?? a.intersects(b) else { continue }
                let area: Double
                do { area = try a.intersection(b).area } catch {
                    throw .badInput(place: source, reason: "cannot intersect zones \(zones[i].id) and \(zones[j].id): \(error)")
                }
                if area > tolerance {
                    overlaps.append(.init(a: zones[i].id, b: zones[j].id, squareMetres: area))
                } else if area > 0 {
                    report.sliverCount += 1
                    report.sliverSquareMetres += area
                }
            }
        }
        report.overlaps = overlaps.sorted { $0.squareMetres > $1.squareMetres }
        for k in adjacency.indices { adjacency[k].sort() }
        return adjacency
    }

    /// Gaps (parts of a service area in no zone) and zones outside every service area.
    static func gapChecks(union: [[[Position]]], areaRings: [[[[Position]]]], zoneRings: [[[[Position]]]], zones: [Zone],
                          frame: (Transformer, Transformer)?, explicitAreas: Bool, options: ZoneImportOptions,
                          source: String, report: inout ZoneReport) throws(ZoneError) {
        guard let (forward, inverse) = frame else { return }
        let tolerance = options.toleranceSquareMetres
        func record(area a: Double, near p: (x: Double, y: Double)) throws(ZoneError) {
            if a > tolerance {
                let q: (x: Double, y: Double)
                do { q = try inverse.transform(x: p.x, y: p.y) } catch { throw .badInput(place: source, reason: error.description) }
                report.gaps.append(.init(squareMetres: a, near: Coordinate(unchecked: q.y, q.x)))
            } else if a > 0 {
                report.gapSliverCount += 1
            }
        }
        let context = GEOSContext()
        do {
            if !explicitAreas {
                // The holes of the union are the gaps; by construction no zone is outside.
                for poly in union {
                    for hole in poly.dropFirst() {
                        let g = try Geometry(.polygon(try project([[hole]], forward, source: source)[0]), in: context)
                        try record(area: g.area, near: g.pointOnSurface)
                    }
                }
            } else {
                let zonesUnion = try Geometry(.multiPolygon(try project(union, forward, source: source)), in: context)
                var served: [Geometry] = []
                for r in areaRings {
                    let area = try Geometry(.multiPolygon(try project(r, forward, source: source)), in: context)
                    served.append(area)
                    for part in try area.difference(zonesUnion).parts where !part.isEmpty {
                        try record(area: part.area, near: part.pointOnSurface)
                    }
                }
                let servedUnion = try Geometry.collection(served, in: context).unaryUnion()
                let prepared = try servedUnion.prepared()
                for (i, r) in zoneRings.enumerated() {
                    let z = try Geometry(.multiPolygon(try project(r, forward, source: source)), in: context)
                    if prepared.covers(z) { continue }
                    if try z.difference(servedUnion).area > tolerance { report.outside.append(zones[i].id) }
                }
            }
        } catch let e as ZoneError { throw e } catch {
            throw .badInput(place: source, reason: "the gap check failed: \(error)")
        }
        report.gaps.sort { $0.squareMetres > $1.squareMetres }
    }
}
