/// The `status` of a verifyReceipt response, typed.
///
/// Every integer maps to a case, so a code Apple adds tomorrow decodes as `.unknown(code)`
/// instead of failing; `rawValue` always gives back the integer Apple sent. Two values are
/// equal when their codes are equal.
///
/// See Apple's [status](https://developer.apple.com/documentation/appstorereceipts/status).
public enum VerifyReceiptStatus: RawRepresentable, Hashable, Sendable {
    /// 0: the receipt is valid (as a whole; it may hold expired subscriptions).
    case valid
    /// 21000: the request was not an HTTP POST (older wording: the JSON could not be read).
    case badRequest
    /// 21001: no longer sent by the App Store; treated like an unknown code.
    case noLongerSent
    /// 21002: `receipt-data` malformed, or a temporary issue at Apple.
    case malformedReceiptData
    /// 21003: the receipt could not be authenticated.
    case receiptNotAuthenticated
    /// 21004: the shared secret does not match the account's.
    case sharedSecretMismatch
    /// 21005: the receipt server was temporarily unable to provide the receipt.
    case receiptServerUnavailable
    /// 21006: valid, but the subscription has expired (iOS 6 transaction receipts only); the
    /// receipt data is still returned.
    case subscriptionExpired
    /// 21007: a sandbox receipt was sent to the production endpoint.
    case sandboxReceiptSentToProduction
    /// 21008: a production receipt was sent to the sandbox endpoint.
    case productionReceiptSentToSandbox
    /// 21009: internal data access error.
    case internalDataAccessError
    /// 21010: the user account cannot be found or was deleted.
    case accountNotFound
    /// 21100–21199: one of Apple's internal data access errors; retryable when the response's
    /// `is_retryable` says so.
    case internalError(Int)
    /// Any other code, kept as sent (including library-invented ones like `2`).
    case unknown(Int)

    /// The codes in 21100...21199.
    public static let internalErrorCodes: ClosedRange<Int> = 21_100...21_199

    public init(rawValue: Int) {
        switch rawValue {
        case 0: self = .valid
        case 21_000: self = .badRequest
        case 21_001: self = .noLongerSent
        case 21_002: self = .malformedReceiptData
        case 21_003: self = .receiptNotAuthenticated
        case 21_004: self = .sharedSecretMismatch
        case 21_005: self = .receiptServerUnavailable
        case 21_006: self = .subscriptionExpired
        case 21_007: self = .sandboxReceiptSentToProduction
        case 21_008: self = .productionReceiptSentToSandbox
        case 21_009: self = .internalDataAccessError
        case 21_010: self = .accountNotFound
        case Self.internalErrorCodes: self = .internalError(rawValue)
        default: self = .unknown(rawValue)
        }
    }

    /// The integer Apple sent.
    public var rawValue: Int {
        switch self {
        case .valid: 0
        case .badRequest: 21_000
        case .noLongerSent: 21_001
        case .malformedReceiptData: 21_002
        case .receiptNotAuthenticated: 21_003
        case .sharedSecretMismatch: 21_004
        case .receiptServerUnavailable: 21_005
        case .subscriptionExpired: 21_006
        case .sandboxReceiptSentToProduction: 21_007
        case .productionReceiptSentToSandbox: 21_008
        case .internalDataAccessError: 21_009
        case .accountNotFound: 21_010
        case .internalError(let code), .unknown(let code): code
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

extension VerifyReceiptStatus: ExpressibleByIntegerLiteral {
    /// `response.status == 21007` reads like Apple's documentation.
    public init(integerLiteral value: Int) { self.init(rawValue: value) }
}
