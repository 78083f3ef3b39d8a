import Crypto
import Foundation
import GeoJSON
import Hummingbird
import Services
import WayfareAPI

/// The payment gateway's callbacks (`POST /v1/payments/callbacks`): what became of a refill
/// that timed out or waited for a 3-D Secure step, sent by the gateway on its own.
///
/// A callback is a claim from the network until its signature is checked. The gateway signs
/// `TIMESTAMP.BODY` with HMAC-SHA256 under the secret the two share, and sends
/// `Wayfare-Signature: t=TIMESTAMP,v1=HEX` (Stripe's scheme). The server recomputes it,
/// compares in constant time, and refuses a timestamp more than five minutes from its clock,
/// so a captured callback cannot be replayed later. A callback that repeats, or crosses the
/// reconciliation, changes nothing: the first final answer of a refill wins.
struct PaymentsController {
    let server: WayfareServer

    var routes: RouteCollection<WayfareContext> {
        let routes = RouteCollection(context: WayfareContext.self)
        let server = server
        routes.on(.gatewayCallback) { request, _ in
            guard let secret = server.callbackSecret else {
                throw APIError(.notFound, code: "not_found", message: "payment callbacks are not configured on this server")
            }
            var request = request
            let bytes: ByteBuffer
            do { bytes = try await request.collectBody(upTo: WayfareServer.maximumBodyBytes) } catch {
                throw APIError(.contentTooLarge, code: "too_large", message: "the body is larger than \(WayfareServer.maximumBodyBytes) bytes")
            }
            // The signature first: nothing of an unsigned body is read.
            try WayfareServer.verifySignature(request.headers[.init(Parameter.signature.name)!], body: Array(bytes.readableBytesView),
                                              secret: secret, now: server.bookings.dispatcher.fleet.clock.now())
            let callback: GatewayCallback
            do throws(WireError) { callback = try WireDecoder.requests.decode(GatewayCallback.self, from: bytes.readableBytesView) } catch { throw APIError.invalid(error) }
            guard let intent = Wallet.intent(fromGatewayName: callback.intent) else { throw APIError.invalid("intent", "is not a refill of this service") }
            let outcome: GatewayOutcome
            switch callback.outcome {
            case .approved: outcome = .approved(reference: callback.reference ?? "")
            case .declined: outcome = .declined(reason: callback.reason ?? "declined")
            case .insufficientFunds: outcome = .insufficientFunds
            case .requiresAction: outcome = .requiresAction(challenge: callback.challenge ?? "")
            case .timedOut: outcome = .timedOut
            }
            let status: RefillStatus
            switch try await server.wallet.gatewayCallback(intent: intent, outcome: outcome) {
            case .completed: status = .completed
            case .declined: status = .declined
            case .requiresAction: status = .requiresAction
            case .pending: status = .pending
            }
            return JSONResponse.make(CallbackAnswer(intent: callback.intent, status: status))
        }
        return routes
    }
}

extension WayfareServer {
    /// How far a callback's timestamp may be from the server's clock.
    static let callbackTolerance: TimeInterval = 300

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
