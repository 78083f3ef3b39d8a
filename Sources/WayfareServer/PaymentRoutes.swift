import Crypto
import Foundation
import GeoJSON
import Hummingbird
import Services

/// The payment gateway's callbacks (`POST /v1/payments/callbacks`): what became of a refill
/// that timed out or waited for a 3-D Secure step, sent by the gateway on its own.
///
/// A callback is a claim from the network until its signature is checked. The gateway signs
/// `TIMESTAMP.BODY` with HMAC-SHA256 under the secret the two share, and sends
/// `Wayfare-Signature: t=TIMESTAMP,v1=HEX` (Stripe's scheme). The server recomputes it,
/// compares in constant time, and refuses a timestamp more than five minutes from its clock,
/// so a captured callback cannot be replayed later. A callback that repeats, or crosses the
/// reconciliation, changes nothing: the first final answer of a refill wins.
extension WayfareServer {
    /// How far a callback's timestamp may be from the server's clock.
    static let callbackTolerance: TimeInterval = 300

    func addPaymentRoutes(_ router: Hummingbird.Router<WayfareContext>) {
        router.post("/v1/payments/callbacks") { [self] request, _ in
            guard let secret = callbackSecret else {
                throw APIError(.notFound, code: "not_found", message: "payment callbacks are not configured on this server")
            }
            var request = request
            let bytes: ByteBuffer
            do { bytes = try await request.collectBody(upTo: Self.maximumBodyBytes) } catch {
                throw APIError(.contentTooLarge, code: "too_large", message: "the body is larger than \(Self.maximumBodyBytes) bytes")
            }
            try Self.verifySignature(request.headers[.init("Wayfare-Signature")!], body: Array(bytes.readableBytesView),
                                     secret: secret, now: bookings.dispatcher.fleet.clock.now())
            var body = try JSONBody(bytes)
            _ = try body.string("id", maximum: 200)
            let name = try body.string("intent", maximum: 64)
            let kind = try body.string("outcome", maximum: 32)
            let reference = try body.optionalString("reference", maximum: 200)
            let reason = try body.optionalString("reason", maximum: 500)
            let challenge = try body.optionalString("challenge", maximum: 2000)
            try body.finish()
            guard let intent = Wallet.intent(fromGatewayName: name) else { throw APIError.invalid("intent", "is not a refill of this service") }
            let outcome: GatewayOutcome
            switch kind {
            case "approved": outcome = .approved(reference: reference ?? "")
            case "declined": outcome = .declined(reason: reason ?? "declined")
            case "insufficient_funds": outcome = .insufficientFunds
            case "requires_action": outcome = .requiresAction(challenge: challenge ?? "")
            case "timed_out": outcome = .timedOut
            default: throw APIError.invalid("outcome", "must be approved, declined, insufficient_funds, requires_action or timed_out")
            }
            let result = try await wallet.gatewayCallback(intent: intent, outcome: outcome)
            let status: String
            switch result {
            case .completed: status = "completed"
            case .declined: status = "declined"
            case .requiresAction: status = "requires_action"
            case .pending: status = "pending"
            }
            return JSONResponse.make(.object([("intent", .string(name)), ("status", .string(status))]))
        }
    }

    /// Checks `Wayfare-Signature: t=…,v1=…` against `body`.
    /// - Throws: 401 `unauthorized` when the header is missing or malformed, the timestamp is
    ///   out of tolerance, or the signature is wrong (one message for all: no oracle).
    static func verifySignature(_ header: String?, body: [UInt8], secret: [UInt8], now: Date) throws {
        let refused = APIError(.unauthorized, code: "unauthorized", message: "the callback's signature is missing, stale or wrong")
        guard let header, header.utf8.count <= 300 else { throw refused }
        var timestamp: Int64?, signature: [UInt8]?
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { throw refused }
            if pair[0] == "t" { timestamp = Int64(pair[1]) }
            if pair[0] == "v1" { signature = hexBytes(pair[1]) }
        }
        guard let timestamp, let signature, signature.count == 32,
              abs(Double(timestamp) - now.timeIntervalSince1970) <= callbackTolerance else { throw refused }
        let signed = Array("\(timestamp).".utf8) + body
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signed, using: SymmetricKey(data: secret)) else { throw refused }
    }

    /// Bytes of a hex string, or nil.
    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0, digits.count <= 128 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }
}
