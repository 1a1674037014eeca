import Foundation

/// When Apple's renewal state may be read for an instant of judgement, and when a subscription that
/// ended may still be in billing retry (CONTRACT §9, "As of"): a status is Apple's state when it
/// answered, not a fact about any other instant. Read by the truth (`UserTruth`) and by the App Store
/// Server API's walk when it decides whether the statuses are worth asking for.
enum RenewalStateRule {
    /// How far from the instant Apple's state was read an `--as-of` may be for that state to speak for it.
    static let currentStateWindow: TimeInterval = 3_600

    /// How long after a subscription's end Apple may still be retrying the payment (and the customer be
    /// in a grace period that ends later): Apple retries for up to 60 days.
    static let billingRetryWindow: TimeInterval = 60 * 86_400

    /// Whether Apple's state, read at `answeredAt`, speaks for `asOf`. An answer that carries no instant
    /// of its own (an iOS 6 receipt's) is taken to speak for the `--as-of` it was asked for.
    static func speaks(answeredAt: Date?, for asOf: Date) -> Bool {
        answeredAt.map { abs($0.timeIntervalSince(asOf)) <= currentStateWindow } ?? true
    }

    /// Whether a subscription whose access ended at `end` may be in billing retry (or a grace period) at
    /// `asOf`: it ended by then, within the window.
    static func mayBeInBillingRetry(endedAt end: Date, asOf: Date) -> Bool {
        end <= asOf && asOf.timeIntervalSince(end) <= billingRetryWindow
    }

    /// Whether the subscription statuses are worth asking for about a history of `purchases`: Apple's
    /// answer speaks for the instant of judgement (`asOf`, nil in a live night, where the instant is the
    /// answer's own, so it always does), and some chain's latest end, revocations by then left out, may be
    /// in billing retry (only the status tells access from a lapse then).
    /// - Parameter now: the instant taken for an answer that carries none.
    static func needsStatuses(_ purchases: [Purchase], asOf: Date?, now: Date) -> Bool {
        let answered = purchases.lazy.compactMap { $0.evidenceDate }.max() ?? now
        let asOf = asOf ?? answered
        guard speaks(answeredAt: answered, for: asOf) else { return false }
        var latest: [String: Date] = [:]
        for purchase in purchases where purchase.revocationHappened(by: asOf) == nil {
            guard let expires = purchase.expiresDate else { continue }
            let chain = purchase.originalTransactionID ?? purchase.transactionID ?? ""
            latest[chain] = max(latest[chain] ?? expires, expires)
        }
        return latest.values.contains { mayBeInBillingRetry(endedAt: $0, asOf: asOf) }
    }
}
