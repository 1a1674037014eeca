/// What the job knows about a receipt's data without asking Apple: the input of the local parts
/// of `ReceiptOutcomeRule` (CONTRACT §5: the job decides on its own only for data that is
/// provably not a receipt, and for Xcode test receipts).
///
/// The shell computes it once per distinct `receipt_data`, before verification: base64 decoding
/// and the local receipt decoder, no network.
public enum LocalReceiptCheck: Hashable, Sendable, CaseIterable {
    /// `receipt_data` is empty (or only whitespace). Never sent to Apple.
    case empty
    /// `receipt_data` is not base64. Never sent to Apple.
    case notBase64
    /// The receipt decodes locally and its environment (attribute 0) is `Xcode`: StoreKit testing,
    /// never valid for the App Store. Never sent to Apple.
    case xcodeReceipt
    /// The receipt decodes locally (signature not checked).
    case decodes
    /// Base64, but the local decoder cannot read it. Apple still decides; this only matters when
    /// Apple's 21002 persists.
    case doesNotDecode

    /// Whether the local decoder could read the receipt: the input of the persistent-21002 rule
    /// (`ReceiptOutcomeRule.persistentMalformedReceiptRule`).
    public var decodesLocally: Bool {
        switch self {
        case .decodes, .xcodeReceipt: true
        case .empty, .notBase64, .doesNotDecode: false
        }
    }
}
