import Foundation

/// The circuit breakers of CONTRACT §7, as a value the run feeds as it goes: a bad Apple day must
/// not mass-revoke users.
///
/// "After at least 100 receipts in a run: when `unverified / processed` exceeds
/// `--max-unverified-ratio`, or `revoked users / processed users` exceeds `--max-revoke-ratio`,
/// the run stops." Strictly exceeds: a ratio equal to the limit does not trip.
///
/// The two ratios are fed at different points of the pipeline, each where its figures are first
/// known: receipts are counted when a user's receipts are classified (before anything is written,
/// so an outage stops the run early), revokes when a user's plan is made inside the writer's
/// transaction (the plan depends on the rows as they are then). The revoke ratio waits until the
/// written users' receipts reach the minimum: a ratio over the first handful of users is noise.
public struct CircuitBreaker: Hashable, Sendable {
    /// CONTRACT §7: no breaker trips before this many receipts.
    public static let minimumReceipts = 100

    public let maxUnverifiedRatio: Double
    public let maxRevokeRatio: Double
    public let minimumReceipts: Int

    public private(set) var classifiedReceipts = 0
    public private(set) var unverifiedReceipts = 0
    public private(set) var writtenUsers = 0
    public private(set) var writtenReceipts = 0
    /// Users whose plan has at least one `revoke` (applied or, in a dry run, planned).
    public private(set) var revokedUsers = 0

    public init(maxUnverifiedRatio: Double, maxRevokeRatio: Double, minimumReceipts: Int = Self.minimumReceipts) {
        self.maxUnverifiedRatio = maxUnverifiedRatio
        self.maxRevokeRatio = maxRevokeRatio
        self.minimumReceipts = minimumReceipts
    }

    /// Counts one user's classified receipts.
    /// - Returns: the reason to stop, when the unverified breaker trips.
    public mutating func classified(receipts: Int, unverified: Int) -> String? {
        classifiedReceipts += receipts
        unverifiedReceipts += unverified
        guard classifiedReceipts >= minimumReceipts else { return nil }
        // Division, not multiplication of the limit: a ratio and a limit that are equal as
        // decimals (15/150 and 0.10) are equal as doubles too, so "exceeds" stays strict.
        let ratio = Double(unverifiedReceipts) / Double(classifiedReceipts)
        guard ratio > maxUnverifiedRatio else { return nil }
        let (shown, limit) = Self.format(ratio, maxUnverifiedRatio)
        return "circuit breaker: \(unverifiedReceipts) of \(classifiedReceipts) receipts unverified (\(shown)) "
            + "exceeds --max-unverified-ratio \(limit)"
    }

    /// Counts one written user.
    /// - Returns: the reason to stop, when the revoke breaker trips.
    public mutating func written(receipts: Int, revoked: Bool) -> String? {
        writtenUsers += 1
        writtenReceipts += receipts
        if revoked { revokedUsers += 1 }
        guard writtenReceipts >= minimumReceipts else { return nil }
        let ratio = Double(revokedUsers) / Double(writtenUsers)
        guard ratio > maxRevokeRatio else { return nil }
        let (shown, limit) = Self.format(ratio, maxRevokeRatio)
        return
            "circuit breaker: \(revokedUsers) of \(writtenUsers) users revoked (\(shown)) exceeds --max-revoke-ratio \(limit)"
    }

    /// Takes back a user fed to `written` whose transaction did not commit (the database dropped the
    /// connection): the batch is written again and feeds it again.
    public mutating func withdrawn(receipts: Int, revoked: Bool) {
        writtenUsers -= 1
        writtenReceipts -= receipts
        if revoked { revokedUsers -= 1 }
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
