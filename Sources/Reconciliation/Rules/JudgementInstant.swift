import Foundation

/// The one instant a user is judged at (CONTRACT §9, "As of"; docs/reconciliation-rules.md, "The instant
/// of judgement"). Everything in the user's truth is read at it: what was purchased, revoked or upgraded by
/// then, which subscriptions still run, whether Apple's renewal state speaks for it.
///
/// - With `--as-of T`: `T`, for every user.
/// - In a live night (no `--as-of`): the instant Apple answered about this user, the newest instant
///   its answers tonight speak for (a Server API answer's `signedDate`, a renewal info's, verifyReceipt's
///   `request_date`). A night of several hours judges its last user against Apple's state when Apple
///   spoke about them, as its first, and reads that state from Apple's clock, not the job's.
///   Signed rows judged locally are not answers of tonight (their `signedDate` is when the device got
///   them), and rows Apple did not answer carry no instant: a user with neither is judged at
///   `decidedAt`, the moment the job decides about them.
public enum JudgementInstant {
    public static func of(_ receipts: [UserReceipt], asOf: Date?, decidedAt: Date) -> Date {
        asOf ?? answeredAt(receipts) ?? decidedAt
    }

    /// The newest instant Apple's answers about these rows speak for; nil when no row was answered with one.
    static func answeredAt(_ receipts: [UserReceipt]) -> Date? {
        var newest: Date?
        for receipt in receipts where !receipt.isSignedData {
            guard receipt.outcome == .valid || receipt.outcome == .misrouted else { continue }
            for date in receipt.purchases.lazy.compactMap({ $0.evidenceDate }) where newest.map({ date > $0 }) ?? true {
                newest = date
            }
            for date in receipt.renewals.lazy.compactMap({ $0.evidenceDate }) where newest.map({ date > $0 }) ?? true {
                newest = date
            }
        }
        return newest
    }
}
