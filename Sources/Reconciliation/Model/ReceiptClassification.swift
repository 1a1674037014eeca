import AppStoreReceipts

/// The outcome of one receipt in one run, with what `recon_results` and `recon_flags` need.
public struct ReceiptClassification: Hashable, Sendable {
    /// `recon_results.outcome`.
    public var outcome: ReceiptOutcome
    /// The flag the outcome itself raises (one per receipt): `invalid_receipt`, `bundle_mismatch`,
    /// `sandbox_in_production`, `production_in_sandbox` or `unverified`; nil for `valid`.
    /// For an `invalid` receipt it also tells a bundle mismatch from other invalid receipts.
    public var outcomeFlag: FlagKind?
    /// `recon_results.apple_status`: the last status Apple sent; nil when Apple was not asked or
    /// never answered.
    public var appleStatus: Int?
    /// The App Store Server API's `errorCode` that decided the outcome (4040010 in both environments, a
    /// refused id's 4000006, an account's 4040001); nil for verifyReceipt and for a found history.
    /// Kept for the evidence of the row's flags and corrections.
    public var errorCode: Int?
    /// `recon_results.environment`: the environment Apple says the receipt belongs to; nil when
    /// Apple was not asked.
    public var environment: AppStoreEnvironment?
    /// `recon_results.detail`: one line, never receipt data.
    public var detail: String
    /// For an `unverified` outcome, whether asking again may change it; nil otherwise.
    public var unverified: UnverifiedKind?

    public init(
        outcome: ReceiptOutcome,
        outcomeFlag: FlagKind? = nil,
        appleStatus: Int? = nil,
        environment: AppStoreEnvironment? = nil,
        detail: String,
        unverified: UnverifiedKind? = nil,
        errorCode: Int? = nil
    ) {
        self.outcome = outcome
        self.outcomeFlag = outcomeFlag
        self.appleStatus = appleStatus
        self.errorCode = errorCode
        self.environment = environment
        self.detail = detail
        self.unverified = outcome == .unverified ? (unverified ?? .transient) : nil
    }

    /// An `unverified` outcome of `kind`, its detail ending with what that kind means.
    public static func unverified(
        _ kind: UnverifiedKind, appleStatus: Int? = nil, environment: AppStoreEnvironment? = nil, detail: String,
        errorCode: Int? = nil
    ) -> ReceiptClassification {
        ReceiptClassification(
            outcome: .unverified, outcomeFlag: .unverified, appleStatus: appleStatus, environment: environment,
            detail: "\(detail) (\(kind.explanation))", unverified: kind, errorCode: errorCode)
    }

    /// Whether the receipt is `invalid` because its bundle id is not accepted.
    public var isBundleMismatch: Bool { outcomeFlag == .bundleMismatch }
}
