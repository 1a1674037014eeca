import Foundation

/// The circuit breakers of CONTRACT §7, as a value the run feeds user by user: a bad Apple day
/// must not mass-revoke users.
///
/// "After at least 100 receipts in a run: when `unverified / processed` exceeds
/// `--max-unverified-ratio`, or `revoked users / processed users` exceeds `--max-revoke-ratio`,
/// the run stops." Strictly exceeds: a ratio equal to the limit does not trip.
public struct CircuitBreaker: Hashable, Sendable {
    /// CONTRACT §7: no breaker trips before this many receipts were processed.
    public static let minimumReceipts = 100

    public private(set) var processedReceipts = 0
    public private(set) var unverifiedReceipts = 0
    public private(set) var processedUsers = 0
    /// Users with at least one `revoke` (planned, applied or not).
    public private(set) var revokedUsers = 0

    public init() {}

    /// Counts one processed user.
    /// - Parameters:
    ///   - receipts: the user's receipts processed in this run.
    ///   - unverifiedReceipts: how many of them ended `unverified`.
    ///   - hasRevoke: whether the user's plan has at least one revoke (`CorrectionPlan.hasRevoke`).
    public mutating func recordUser(receipts: Int, unverifiedReceipts: Int, hasRevoke: Bool) {
        processedReceipts += receipts
        self.unverifiedReceipts += unverifiedReceipts
        processedUsers += 1
        if hasRevoke { revokedUsers += 1 }
    }

    /// Counts one reconciled user.
    public mutating func record(_ user: UserReconciliation.Result) {
        recordUser(receipts: user.receiptCount, unverifiedReceipts: user.unverifiedReceiptCount, hasRevoke: user.hasRevoke)
    }

    /// The reason to stop the run, or nil to go on.
    ///
    /// - Returns: e.g. `unverified ratio 0.34 exceeds --max-unverified-ratio 0.10 after 150
    ///   receipts`; the unverified breaker is checked first.
    public func shouldTrip(
        minimumReceipts: Int = CircuitBreaker.minimumReceipts,
        maxUnverifiedRatio: Double,
        maxRevokeRatio: Double
    ) -> String? {
        guard processedReceipts >= minimumReceipts, processedReceipts > 0 else { return nil }
        // Division, not multiplication of the limit: a ratio and a limit that are equal as
        // decimals (15/150 and 0.10) are equal as doubles too, so "exceeds" stays strict.
        let unverifiedRatio = Double(unverifiedReceipts) / Double(processedReceipts)
        if unverifiedRatio > maxUnverifiedRatio {
            let (ratio, limit) = Self.format(unverifiedRatio, maxUnverifiedRatio)
            return "unverified ratio \(ratio) exceeds --max-unverified-ratio \(limit) after \(processedReceipts) receipts"
        }
        if processedUsers > 0 {
            let revokeRatio = Double(revokedUsers) / Double(processedUsers)
            if revokeRatio > maxRevokeRatio {
                let (ratio, limit) = Self.format(revokeRatio, maxRevokeRatio)
                return "revoke ratio \(ratio) exceeds --max-revoke-ratio \(limit) after \(processedReceipts) receipts "
                    + "(\(revokedUsers) of \(processedUsers) users)"
            }
        }
        return nil
    }

    /// Two decimals, or as many more (up to 6) as it takes for a ratio that exceeds its limit
    /// not to print as the same number ("0.10 exceeds 0.10").
    static func format(_ ratio: Double, _ limit: Double) -> (String, String) {
        var digits = 2
        while digits < 6, String(format: "%.\(digits)f", ratio) == String(format: "%.\(digits)f", limit) {
            digits += 1
        }
        return (String(format: "%.\(digits)f", ratio), String(format: "%.\(digits)f", limit))
    }
}
