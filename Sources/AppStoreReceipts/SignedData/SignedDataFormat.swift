/// What a JWS from Apple carries, under the names `inspect` prints (CONTRACT §3).
public enum SignedDataFormat: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// `Transaction.jwsRepresentation`, `signedTransactionInfo`, `signedTransactions[]`.
    case transaction = "signed_transaction"
    /// `signedRenewalInfo`: the state of one auto-renewable subscription's next renewal.
    case renewalInfo = "signed_renewal_info"
    /// An App Store Server Notification (V2) `signedPayload`, with nested signed data.
    case notification = "signed_notification"
    /// `AppTransaction.jwsRepresentation`: the purchase of the app itself.
    case appTransaction = "signed_app_transaction"

    public var description: String { rawValue }
}
