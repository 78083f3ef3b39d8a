/// What a payment gateway answered about a charge.
public enum GatewayOutcome: Sendable, Equatable, Codable {
    /// The card was charged; the gateway's reference for the charge.
    case approved(reference: String)
    /// The issuer refused; its reason, for the passenger.
    case declined(reason: String)
    /// The card has too little money.
    case insufficientFunds
    /// The issuer asks for a 3-D Secure step first; what the app must show.
    case requiresAction(challenge: String)
    /// No answer in time: the charge may or may not have happened. The gateway's callback or
    /// a later ``PaymentGateway/status(of:)`` settles it.
    case timedOut
}

/// A card payment gateway: the wallet's only way to take money in.
///
/// Implementations must be idempotent by `intent`: charging the same intent twice charges
/// once and answers the same, which is what makes a refill safe to retry after a crash or
/// a time-out. Card numbers never reach Wayfare; the app gives the gateway's token.
///
/// `Sendable`: a gateway is called from any task.
public protocol PaymentGateway: Sendable {
    /// Charges `amount` minor units of `currency` to the card behind `paymentToken`, once
    /// per `intent`.
    func charge(intent: String, amount: Int64, currency: String, paymentToken: String) async -> GatewayOutcome
    /// What became of `intent`: after a time-out or a 3-D Secure step.
    func status(of intent: String) async -> GatewayOutcome
}
