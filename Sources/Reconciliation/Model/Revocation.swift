import Foundation

/// Why and when Apple took a purchase back: a refund (whole or prorated), a Family Sharing revocation,
/// or (for an upgraded subscription) the upgrade itself.
public struct Revocation: Hashable, Sendable {
    public var date: Date
    /// Apple's `revocationReason` / `cancellation_reason`: 1 the customer cited an issue with the app, 0 other.
    public var reason: Int?
    /// Apple's `revocationType` (`REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`); nil from verifyReceipt.
    public var type: String?
    /// Apple's `revocationPercentage` in milliunits of a percent (25000 is 25 %); nil when Apple sent none.
    public var percentageMilliunits: Int64?

    public init(date: Date, reason: Int? = nil, type: String? = nil, percentageMilliunits: Int64? = nil) {
        self.date = date
        self.reason = reason
        self.type = type
        self.percentageMilliunits = percentageMilliunits
    }

    public static let refundFull = "REFUND_FULL"
    public static let refundProrated = "REFUND_PRORATED"
    public static let familyRevoke = "FAMILY_REVOKE"
}
