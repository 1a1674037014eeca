extension VerifyReceiptStatus: CustomStringConvertible {
    /// Every code Apple documents, in order (21100...21199 represented by its ends).
    public static let documented: [VerifyReceiptStatus] = [
        0, 21_000, 21_001, 21_002, 21_003, 21_004, 21_005, 21_006, 21_007, 21_008, 21_009, 21_010, 21_100, 21_199,
    ]

    /// Whether Apple documents this code (21001 is documented as no longer sent).
    public var isDocumented: Bool {
        if case .unknown = self { return false }
        return true
    }

    /// A short human explanation, paraphrasing Apple's
    /// [status](https://developer.apple.com/documentation/appstorereceipts/status) page.
    public var summary: String {
        switch self {
        case .valid: "receipt is valid"
        case .badRequest: "request was not an HTTP POST or its JSON could not be read"
        case .noLongerSent: "status no longer sent by the App Store"
        case .malformedReceiptData: "receipt data malformed, or a temporary issue at Apple"
        case .receiptNotAuthenticated: "receipt could not be authenticated"
        case .sharedSecretMismatch: "shared secret does not match the account's"
        case .receiptServerUnavailable: "receipt server temporarily unavailable"
        case .subscriptionExpired: "receipt valid but subscription expired"
        case .sandboxReceiptSentToProduction: "sandbox receipt sent to the production environment"
        case .productionReceiptSentToSandbox: "production receipt sent to the sandbox environment"
        case .internalDataAccessError: "internal data access error at Apple"
        case .accountNotFound: "user account cannot be found or was deleted"
        case .internalError: "internal data access error at Apple (21100-21199)"
        case .unknown: "status not documented by Apple"
        }
    }

    /// `21007 (sandbox receipt sent to the production environment)`.
    public var description: String { "\(rawValue) (\(summary))" }
}
