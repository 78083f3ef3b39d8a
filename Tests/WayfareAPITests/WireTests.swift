import Essentials
import Foundation
import GeoJSON
import Services
import Testing
@testable import WayfareAPI

/// The strict decoder against hand-written JSON: what the server reads from the network.
@Suite("WayfareAPI: the strict decoder")
struct StrictDecoderTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws(WireError) -> T {
        try WireDecoder.requests.decode(type, from: Array(json.utf8))
    }

    func refusal<T: Decodable>(_ type: T.Type, _ json: String) -> WireError? {
        do { _ = try decode(type, json); return nil } catch { return error }
    }

    @Test("a valid body reads into its type; null is the same as absent")
    func reads() throws {
        let trip = try decode(TripOrder.self, #"{"pickup":{"lat":43.7,"lon":7.4},"destination":{"lat":43.74,"lon":7.42},"cab_type":"Sedan","seats":null}"#)
        #expect(trip == TripOrder(pickup: LatLon(lat: 43.7, lon: 7.4), destination: LatLon(lat: 43.74, lon: 7.42), cabType: "Sedan"))
        let order = try decode(BookingOrder.self, #"{"pickup":{"lat":1,"lon":2},"destination":{"lat":3,"lon":4},"cab_type":"Sedan","pickup_time":"2026-11-25T18:30:00Z"}"#)
        #expect(order.pickupTime == Date(timeIntervalSince1970: 1_795_631_400))
        let withMilliseconds = try decode(BookingPatch.self, #"{"pickup_time":"2026-11-25T18:30:00.250Z"}"#)
        #expect(withMilliseconds.pickupTime == Date(timeIntervalSince1970: 1_795_631_400.25))
    }

    @Test("unknown fields are refused at any depth, by their path; so are fields given twice")
    func unknownAndDuplicate() {
        #expect(refusal(Credentials.self, #"{"mobile":"9876543210","password":"x","admin":true}"#) == WireError("admin", "is not a field of this request"))
        #expect(refusal(NewFavourite.self, #"{"name":"Home","position":{"lat":1,"lon":2,"alt":3}}"#) == WireError("position.alt", "is not a field of this request"))
        #expect(refusal(ETARequest.self, #"{"to":{"lat":1,"lon":2},"cabs":[{"id":"a","lat":1,"lon":2},{"id":"b","lat":1,"lon":2,"x":0}]}"#)
                == WireError("cabs[1].x", "is not a field of this request"))
        #expect(refusal(Credentials.self, #"{"mobile":"9876543210","mobile":"1234567890","password":"x"}"#) == WireError("mobile", "appears twice"))
        // A booking reads the trip's fields and its own side by side: neither is unknown to the other.
        #expect(refusal(BookingOrder.self, #"{"pickup":{"lat":1,"lon":2},"destination":{"lat":3,"lon":4},"cab_type":"Sedan","pickup_tim":"x"}"#)
                == WireError("pickup_tim", "is not a field of this request"))
    }

    @Test("whole numbers convert exactly or are refused by name: 2^63, 2^64, 1e308, fractions, and numbers out of their range")
    func wholeNumbers() {
        let outOfRange = WireError("driver", "must be a whole number from 1 to 9223372036854775807")
        for n in ["9223372036854775807", "9223372036854775808", "18446744073709551616", "1e308", "-1e308", "0.5", "0", "-1", "1e-320", "\"1\"", "true"] {
            let refused = refusal(RideConfirmation.self, #"{"driver":\#(n)}"#)
            // 2^63 − 1 is not a double: it reads as 2^63, which no Int64 holds.
            #expect(refused == outOfRange, "\(n): \(String(describing: refused))")
        }
        #expect((try? decode(RideConfirmation.self, #"{"driver":9007199254740993}"#))?.driver == 9_007_199_254_740_992)
        #expect(refusal(RefillOrder.self, #"{"amount":10000001,"payment_token":"tok"}"#) == WireError("amount", "must be a whole number from 1 to 10000000"))
        #expect((try? decode(RefillOrder.self, #"{"amount":10000000,"payment_token":"tok"}"#))?.amount == 10_000_000)
        #expect((try? decode(FeedbackForm.self, #"{"driver":-0.0,"cab":1,"experience":1}"#)) == nil)
    }

    @Test("text is bounded by its key's rule, counted in Unicode scalars: the limit is taken, one more is refused")
    func textLimits() {
        let name = Registration.maximumNameLength
        func account(_ name: String) -> String {
            #"{"name":"\#(name)","mobile":"9876543210","email":"a@b.example","password":"correct horse","confirmation":"correct horse"}"#
        }
        #expect((try? decode(NewAccount.self, account(String(repeating: "é", count: name)))) != nil)
        #expect(refusal(NewAccount.self, account(String(repeating: "é", count: name + 1))) == WireError("name", "must be at most \(name) characters"))
        #expect(refusal(NewAccount.self, account("")) == WireError("name", "must not be empty"))
        let long = String(repeating: "p", count: PasswordPolicy.maximumLength + 1)
        #expect(refusal(Credentials.self, #"{"mobile":"9876543210","password":"\#(long)"}"#)
                == WireError("password", "must be at most \(PasswordPolicy.maximumLength) characters"))
    }

    @Test("wrong types, missing fields, bad choices, bad times, long lists and broken JSON are refused by name")
    func wrongShapes() {
        #expect(refusal(Credentials.self, #"{"mobile":"9876543210"}"#) == WireError("password", "is required"))
        #expect(refusal(Credentials.self, #"{"mobile":98765,"password":"x"}"#) == WireError("mobile", "must be a string"))
        #expect(refusal(Credentials.self, #"["mobile"]"#) == WireError("body", "must be a JSON object"))
        #expect(refusal(TripOrder.self, #"{"pickup":{"lat":91,"lon":0},"destination":{"lat":0,"lon":0},"cab_type":"S"}"#)
                == WireError("pickup.lat", "must be a number from -90 to 90"))
        #expect(refusal(TripOrder.self, #"{"pickup":[1,2],"destination":{"lat":0,"lon":0},"cab_type":"S"}"#) == WireError("pickup", "must be a JSON object"))
        #expect(refusal(TripOrder.self, #"{"pickup":{"lat":0,"lon":0},"destination":{"lat":0,"lon":0},"cab_type":"S","payment":"card"}"#)
                == WireError("payment", "must be one of wallet, cash"))
        #expect(refusal(BookingPatch.self, #"{"pickup_time":"tomorrow"}"#) == WireError("pickup_time", "must be an ISO 8601 time such as 2026-11-25T18:30:00Z"))
        #expect(refusal(AvailabilityChange.self, #"{"available":"yes"}"#) == WireError("available", "must be true or false"))
        let cabs = Array(repeating: #"{"id":"a","lat":1,"lon":2}"#, count: 1001).joined(separator: ",")
        #expect(refusal(ETARequest.self, #"{"to":{"lat":1,"lon":2},"cabs":[\#(cabs)]}"#) == WireError("cabs", "must have at most 1000 items"))
        #expect(refusal(Credentials.self, #"{"mobile":"#)?.field == "body")
    }

    @Test("answers are read leniently: a newer server's extra fields are ignored")
    func answersAreLenient() throws {
        let user = try WireDecoder.answers.decode(UserAnswer.self, from: Array(#"{"id":7,"role":"driver","name":"A","mobile":"1","email":"e","suspended_until":null,"rating":4.9}"#.utf8))
        #expect(user.id == 7 && user.role == .driver && user.suspendedUntil == nil)
    }
}

/// Every request type written by the encoder reads back, strictly, as itself: what the demo's
/// client sends is what the server reads.
@Suite("WayfareAPI: the encoder and the decoder agree")
struct RoundTripTests {
    func roundTrip<T: Codable & Equatable>(_ value: T) throws {
        let bytes = WireEncoder.bytes(value)
        #expect(try WireDecoder.requests.decode(T.self, from: bytes) == value, "\(String(decoding: bytes, as: UTF8.self))")
    }

    @Test("each request body round-trips, optional fields present and absent")
    func requests() throws {
        let here = LatLon(lat: 43.7384, lon: 7.4246), there = LatLon(lat: -33.9, lon: 151.2)
        try roundTrip(NewAccount(name: "Ana", mobile: "98765 43210", email: "ana@example.com", password: "correct horse", confirmation: "correct horse"))
        try roundTrip(AccountVerification(mobile: "9876543210", code: "123456"))
        try roundTrip(Credentials(mobile: "9876543210", password: "p"))
        try roundTrip(PasswordChange(old: "a", new: "b", confirmation: "b"))
        try roundTrip(ResetRequest(email: "a@b.example"))
        try roundTrip(PasswordReset(token: "t", password: "p", confirmation: "p"))
        try roundTrip(RefillOrder(amount: 500, paymentToken: "tok_visa"))
        try roundTrip(NewFavourite(name: "Home", position: here))
        try roundTrip(TripOrder(pickup: here, destination: there, cabType: "Sedan"))
        try roundTrip(TripOrder(pickup: here, destination: there, cabType: "Sedan", seats: 3, payment: .cash))
        try roundTrip(BookingOrder(trip: TripOrder(pickup: here, destination: there, cabType: "Van", seats: 6), pickupTime: Date(timeIntervalSince1970: 1_795_631_400.125)))
        try roundTrip(BookingOrder(trip: TripOrder(pickup: here, destination: there, cabType: "Van")))
        try roundTrip(BookingPatch(pickup: here))
        try roundTrip(FeedbackForm(driver: 5, cab: 4, experience: 3, comment: "ok"))
        try roundTrip(NewRideRequest(clientID: "c1", source: here, destination: there, description: "two bags", fare: 12_000))
        try roundTrip(RideAcceptance(clientID: "a1"))
        try roundTrip(RideConfirmation(driver: 42))
        try roundTrip(ShiftStart(cabID: "MC-42", cabType: "Sedan", seats: 4))
        try roundTrip(PositionReport(position: here))
        try roundTrip(AvailabilityChange(available: false))
        try roundTrip(OfferReply(accept: true))
        try roundTrip(TripEnd(metres: 2_900, waitingOnTheWayS: 60))
        try roundTrip(ETARequest(to: here, cabs: [.init(id: "a", lat: 43.7, lon: 7.4)]))
        try roundTrip(GatewayCallback(id: "evt_1", intent: "wf_refill_1", outcome: .requiresAction, challenge: "https://x"))
    }

    @Test("an absent optional is written as null, times with milliseconds in UTC, whole numbers without a fraction")
    func encoding() throws {
        let quote = FareQuote(currency: "EUR", base: 250, distance: 1_000, waiting: 0, tolls: 0, discount: 0, total: 1_250)
        #expect(WireEncoder.string(quote) == #"{"currency":"EUR","base":250,"distance":1000,"waiting":0,"tolls":0,"discount":0,"total":1250}"#)
        #expect(WireEncoder.string(Readiness(city: "monaco")) == #"{"status":"ready","city":"monaco","owner":null,"owner_url":null,"lease_token":null}"#)
        #expect(try JSONParser.parse(WireEncoder.bytes(CodeSent(mobile: "1", codeExpires: Date(timeIntervalSince1970: 1_795_631_400.5), testCode: nil)))["code_expires"]
                == .string("2026-11-25T18:30:00.500Z"))
        // To the nearest millisecond, not truncated: 0.123 is stored as 0.12299…
        #expect(ISO8601.string(Date(timeIntervalSince1970: 1_795_631_400.123)) == "2026-11-25T18:30:00.123Z")
        #expect(ISO8601.string(Date(timeIntervalSince1970: 1_795_631_400.9996)) == "2026-11-25T18:30:01.000Z")
        #expect(ISO8601.string(Date(timeIntervalSince1970: 1_795_631_400.007)) == "2026-11-25T18:30:00.007Z")
    }
}

/// The document against the decoder: for every endpoint's body, values at each stated limit
/// are read and values one past it are refused, naming the field. A limit stated in the
/// document but not applied (or applied but not stated) fails here.
@Suite("WayfareAPI: the OpenAPI document")
struct DocumentTests {
    @Test("it is written from the endpoints: every path once per method, ids unique, every request field bounded")
    func document() throws {
        let doc = try OpenAPIDocument.document()
        guard case let .object(paths)? = doc["paths"] else { Issue.record("no paths"); return }
        let operations = paths.flatMap { path, item -> [String] in
            guard case let .object(ops) = item else { return [] }
            return ops.map { "\($0.0.uppercased()) \(path)" }
        }
        #expect(operations.count == Endpoint.all.count)
        #expect(Set(operations).count == operations.count)
        #expect(Set(Endpoint.all.map(OpenAPIDocument.operationID)).count == Endpoint.all.count)
        for endpoint in Endpoint.all {
            guard let body = endpoint.request else { continue }
            try checkBounded(try body.schema(true), at: "\(endpoint.path) \(body.name)")
        }
    }

    func checkBounded(_ schema: JSONValue, at place: String) throws {
        switch schema["type"]?.stringValue {
        case "string" where schema["enum"] == nil && schema["format"] == nil:
            #expect(schema["maxLength"] != nil, "\(place): a string without maxLength")
        case "integer", "number":
            #expect(schema["minimum"] != nil && schema["maximum"] != nil, "\(place): a number without bounds")
        case "array":
            #expect(schema["maxItems"] != nil, "\(place): a list without maxItems")
            try checkBounded(schema["items"] ?? .null, at: place + "[]")
        case "object":
            #expect(schema["additionalProperties"] == .bool(false), "\(place): an object open to unknown fields")
            guard case let .object(properties)? = schema["properties"] else { return }
            for (name, property) in properties { try checkBounded(property, at: "\(place).\(name)") }
        default: break
        }
    }

    /// A minimal valid instance of a request schema: every required field at its least.
    func instance(_ schema: JSONValue) -> JSONValue {
        switch schema["type"]?.stringValue {
        case "object":
            guard case let .object(properties)? = schema["properties"] else { return .object([]) }
            let required = Set(schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            return .object(properties.filter { required.contains($0.0) }.map { ($0.0, instance($0.1)) })
        case "array": return .array([])
        case "boolean": return .bool(true)
        case "integer", "number": return .number(max(schema["minimum"]?.numberValue ?? 0, 1))
        case "string":
            if let first = schema["enum"]?.arrayValue?.first { return first }
            if schema["format"]?.stringValue == "date-time" { return .string("2026-11-25T18:30:00Z") }
            return .string(String(repeating: "a", count: Int(schema["minLength"]?.numberValue ?? 1)))
        default: return .null
        }
    }

    func setting(_ value: JSONValue, _ name: String, in object: JSONValue) -> JSONValue {
        guard case var .object(members) = object else { return object }
        members.removeAll { $0.0 == name }
        members.append((name, value))
        return .object(members)
    }

    @Test("each top-level limit in the document is the decoder's: at it read, one past it refused by name")
    func limitsAgree() throws {
        var checked = 0
        for endpoint in Endpoint.all {
            guard let body = endpoint.request else { continue }
            let schema = try body.schema(true)
            let valid = instance(schema)
            do { try body.read(Array(valid.serialized.utf8)) } catch {
                Issue.record("\(endpoint.path): the least valid body \(valid.serialized) was refused: \(error)")
                continue
            }
            let unknown = setting(.number(1), "surely_not_a_field", in: valid)
            #expect(throws: WireError("surely_not_a_field", "is not a field of this request")) { try body.read(Array(unknown.serialized.utf8)) }
            guard case let .object(properties)? = schema["properties"] else { continue }
            for (name, property) in properties {
                var at: JSONValue?, past: JSONValue?
                if let maximum = property["maxLength"]?.numberValue.flatMap({ Int(exactly: $0) }) {
                    at = .string(String(repeating: "ü", count: maximum)); past = .string(String(repeating: "ü", count: maximum + 1))
                } else if property["type"]?.stringValue == "integer", let maximum = property["maximum"]?.numberValue, maximum < 9e15 {
                    at = .number(maximum); past = .number(maximum + 1)
                }
                guard let at, let past else { continue }
                do { try body.read(Array(setting(at, name, in: valid).serialized.utf8)) } catch {
                    Issue.record("\(endpoint.path) \(name): the document's limit was refused: \(error)")
                }
                #expect(throws: WireError.self, "\(endpoint.path) \(name): one past the limit was read") {
                    try body.read(Array(setting(past, name, in: valid).serialized.utf8))
                }
                do { try body.read(Array(setting(past, name, in: valid).serialized.utf8)) } catch { #expect(error.field == name) }
                checked += 1
            }
        }
        #expect(checked > 40, "limits checked: \(checked)")
    }
}

/// Lists of optionals in answers (`[Point?]`): Swift decodes each item without asking
/// whether it is there, so the schema must say so itself (schemathesis found the document
/// refusing the null a matched trace's outlier is).
@Suite("WayfareAPI: nullable items")
struct NullableItemTests {
    @Test("a list of optionals documents each item as its type or null")
    func listOfOptionals() throws {
        let schema = try WireSchema.of(MatchAnswer.self, request: false)
        let items = try #require(schema["properties"]?["points"]?["items"])
        let options = try #require(items["anyOf"]?.arrayValue)
        #expect(options.count == 2)
        #expect(options[0]["type"] == .string("object"))
        #expect(options[1]["type"] == .string("null"))
        // A list of plain values stays plain.
        #expect(schema["properties"]?["breaks"]?["items"]?["type"] == .string("integer"))
    }
}
