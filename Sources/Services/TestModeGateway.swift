import Essentials
import Fleet

/// A payment gateway in test mode, as card gateways offer: no money moves, and the card
/// token chooses the answer. For the demo, the simulator and tests; never for real cards.
///
/// | Token starts with | Charge answers |
/// |---|---|
/// | `tok_decline` | declined ("card declined") |
/// | `tok_nofunds` | insufficient funds |
/// | `tok_3ds` | requires action; ``status(of:)`` then answers approved |
/// | `tok_timeout` | timed out, though the charge went through: ``status(of:)`` answers approved |
/// | anything else | approved |
///
/// It charges each intent once, like a real gateway: charging an intent again answers as
/// the first time.
///
/// `Sendable`: its records sit behind a lock.
public final class TestModeGateway: PaymentGateway {
    private struct Charge { var outcome: GatewayOutcome; var amount: Int64 }
    private let charges = Locked<[String: Charge]>([:])

    /// A gateway with no charges yet.
    public init() {}

    /// Answers by the token's prefix; the same intent again answers the same.
    public func charge(intent: String, amount: Int64, currency: String, paymentToken: String) async -> GatewayOutcome {
        charges.withLock { charges in
            if let existing = charges[intent] { return existing.outcome }
            let outcome: GatewayOutcome
            if paymentToken.hasPrefix("tok_decline") { outcome = .declined(reason: "card declined") }
            else if paymentToken.hasPrefix("tok_nofunds") { outcome = .insufficientFunds }
            else if paymentToken.hasPrefix("tok_3ds") { outcome = .requiresAction(challenge: "https://3ds.example/\(intent)") }
            else if paymentToken.hasPrefix("tok_timeout") { outcome = .timedOut }
            else { outcome = .approved(reference: "ch_\(intent)") }
            charges[intent] = Charge(outcome: outcome, amount: amount)
            return outcome
        }
    }

    /// After a 3-D Secure step or a time-out: approved. Unknown intents: declined.
    public func status(of intent: String) async -> GatewayOutcome {
        charges.withLock { charges in
            guard let charge = charges[intent] else { return .declined(reason: "no such charge") }
            switch charge.outcome {
            case .requiresAction, .timedOut:
                charges[intent]?.outcome = .approved(reference: "ch_\(intent)")
                return .approved(reference: "ch_\(intent)")
            default:
                return charge.outcome
            }
        }
    }

    /// The total of the charges that went through (approved, or timed out: in test mode a
    /// time-out happens after the charge).
    public var approvedTotal: Int64 {
        charges.withLock { $0.values.reduce(0) { sum, c in
            switch c.outcome {
            case .approved, .timedOut: return sum + c.amount
            default: return sum
            }
        } }
    }
}
