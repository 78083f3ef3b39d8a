import Foundation
import Testing
import OSM
import RoadGraph
import TestSupport

@Suite struct CarProfileTests {
    let car = CarProfile()

    func use(_ pairs: (String, String)...) -> WayUse? { car.use(of: pairs.map { OSMTag($0.0, $0.1) }) }

    @Test func drivenClassesAndTheRest() {
        for driven in ["motorway", "primary", "residential", "living_street", "service", "tertiary_link"] {
            #expect(use(("highway", driven)) != nil, "\(driven)")
        }
        for notDriven in ["footway", "path", "cycleway", "pedestrian", "steps", "track", "construction", "proposed", "bus_stop"] {
            #expect(use(("highway", notDriven)) == nil, "\(notDriven)")
        }
        #expect(use(("building", "yes")) == nil)
        #expect(use(("highway", "service"), ("area", "yes")) == nil)
    }

    @Test func accessTheMostSpecificTagDecides() {
        #expect(use(("highway", "residential"), ("access", "private")) == nil)
        #expect(use(("highway", "residential"), ("access", "no"), ("motorcar", "yes")) != nil)
        #expect(use(("highway", "residential"), ("access", "yes"), ("motor_vehicle", "no")) == nil)
        #expect(use(("highway", "residential"), ("motor_vehicle", "private"), ("motorcar", "destination")) != nil)
        #expect(use(("highway", "residential"), ("vehicle", "no")) == nil)
        #expect(use(("highway", "residential"), ("access", "destination")) != nil)
    }

    @Test func oneWayRules() {
        let plain = use(("highway", "residential"))!
        #expect(plain.forward && plain.backward)
        for yes in ["yes", "1", "true"] {
            let u = use(("highway", "residential"), ("oneway", yes))!
            #expect(u.forward && !u.backward)
        }
        let reverse = use(("highway", "residential"), ("oneway", "-1"))!
        #expect(!reverse.forward && reverse.backward)
        let motorway = use(("highway", "motorway"))!
        #expect(motorway.forward && !motorway.backward)
        let roundabout = use(("highway", "primary"), ("junction", "roundabout"))!
        #expect(roundabout.forward && !roundabout.backward)
        let twoWayMotorway = use(("highway", "motorway"), ("oneway", "no"))!
        #expect(twoWayMotorway.backward)
        #expect(use(("highway", "primary"), ("oneway", "reversible")) == nil)
    }

    @Test func maxspeedParsing() {
        #expect(CarProfile.kilometresPerHour("50") == 50)
        #expect(CarProfile.kilometresPerHour("50 km/h") == 50)
        #expect(abs(CarProfile.kilometresPerHour("30 mph")! - 48.28) < 0.01)
        #expect(CarProfile.kilometresPerHour("FR:urban") == 50)
        #expect(CarProfile.kilometresPerHour("FR:rural") == 80)
        #expect(CarProfile.kilometresPerHour("DE:zone30") == 30)
        #expect(CarProfile.kilometresPerHour("none") == nil)
        #expect(CarProfile.kilometresPerHour("signals") == nil)
        #expect(CarProfile.kilometresPerHour("-5") == nil)
        #expect(use(("highway", "primary"), ("maxspeed", "30"))!.speedKmh == 24)
        #expect(use(("highway", "primary"), ("maxspeed", "fast"))!.speedKmh == 50)
        #expect(use(("highway", "residential"), ("name", "Rue A"))!.name == "Rue A")
        #expect(use(("highway", "trunk"), ("ref", "A8"))!.name == "A8")
    }

    func relation(_ tags: [(String, String)], _ members: [OSMMember]) -> OSMRelation {
        OSMRelation(id: 1, members: members, tags: tags.map { OSMTag($0.0, $0.1) })
    }

    @Test func turnRestrictions() {
        let members = [OSMMember(type: .way, ref: 10, role: "from"), OSMMember(type: .node, ref: 5, role: "via"),
                       OSMMember(type: .way, ref: 11, role: "to")]
        let no = TurnRestriction(relation([("type", "restriction"), ("restriction", "no_left_turn")], members))
        #expect(no == TurnRestriction.make(.forbidden, 10, 5, 11))
        let only = TurnRestriction(relation([("type", "restriction"), ("restriction", "only_straight_on")], members))
        #expect(only?.kind == .mandatory)
        #expect(TurnRestriction(relation([("type", "restriction"), ("restriction", "no_u_turn"), ("except", "bicycle;motorcar")], members)) == nil)
        let viaWay = [members[0], OSMMember(type: .way, ref: 12, role: "via"), members[2]]
        #expect(TurnRestriction(relation([("type", "restriction"), ("restriction", "no_left_turn")], viaWay)) == nil)
        #expect(TurnRestriction(relation([("type", "multipolygon")], members)) == nil)
        let motorcar = TurnRestriction(relation([("type", "restriction:motorcar"), ("restriction:motorcar", "no_right_turn")], members))
        #expect(motorcar?.kind == .forbidden)
    }

    /// On the real Monaco extract: every private road is refused, and about the count of
    /// restrictions libosmium sees (27 relations) are via-node car restrictions.
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func monacoWays() throws {
        var driven = 0, privateDriven = 0, oneWay = 0, restrictions = 0, operaSquare = false
        try PBFReader(path: SharedData.path("monaco/monaco.osm.pbf")).forEachBlock([.ways, .relations]) { block in
            for w in block.ways {
                guard let u = car.use(of: w.tags) else { continue }
                driven += 1
                let t = w.tags
                if t["motorcar"] == "private" || (t["motorcar"] == nil && t["motor_vehicle"] == "private")
                    || (t["access"] == "private" && t["motorcar"] == nil && t["motor_vehicle"] == nil && t["vehicle"] == nil) {
                    privateDriven += 1
                }
                // access=private, motor_vehicle=permissive: the specific tag wins.
                if w.id == 93_137_627 { operaSquare = true }
                if u.forward != u.backward { oneWay += 1 }
            }
            restrictions += block.relations.compactMap(TurnRestriction.init).count
        }
        #expect(driven > 1_000 && driven < 2_927)
        #expect(privateDriven == 0)
        #expect(operaSquare)
        #expect(oneWay > 300)
        #expect(restrictions > 10 && restrictions <= 27)
    }
}

extension TurnRestriction {
    static func make(_ kind: Kind, _ from: Int64, _ via: Int64, _ to: Int64) -> TurnRestriction {
        var r = TurnRestriction(OSMRelation(id: 0, members: [OSMMember(type: .way, ref: from, role: "from"),
                                                              OSMMember(type: .node, ref: via, role: "via"),
                                                              OSMMember(type: .way, ref: to, role: "to")],
                                            tags: [OSMTag("type", "restriction"), OSMTag("restriction", "no_x")]))!
        r.kind = kind
        return r
    }
}
