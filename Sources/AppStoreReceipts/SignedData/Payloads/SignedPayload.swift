import Foundation

/// The decoded payload of one JWS from Apple, whichever of the four kinds it is.
///
/// Decoding reads the payload only: it is not evidence until the signature and chain over it
/// have been verified (CONTRACT §9). `signedDate`, `environment`, `bundleID` and `appAppleID`
/// are what a verifier checks once they have been.
public enum SignedPayload: Hashable, Sendable {
    case transaction(SignedTransaction)
    case renewalInfo(SignedRenewalInfo)
    case notification(SignedNotification)
    case appTransaction(SignedAppTransaction)

    /// Decodes the bytes of a JWS's payload segment (already base64url-decoded) and tells which
    /// kind it is from its keys, since the JWS header does not say. The first rule that matches
    /// wins:
    ///
    /// 1. `notificationType` → notification;
    /// 2. `transactionId` → transaction;
    /// 3. `receiptType`, `applicationVersion`, `originalApplicationVersion` or
    ///    `receiptCreationDate` → app transaction;
    /// 4. `bundleId` → transaction (Apple's library fixture `transactionInfo` carries only
    ///    `environment`, `bundleId` and `signedDate`; renewal info never has a `bundleId`);
    /// 5. anything else → renewal info, whose fields are all optional (the library's
    ///    `renewalInfo` carries only `environment` and `signedDate`).
    ///
    /// When the caller knows the kind (a notification's nested data), `decode(_:as:)` skips the
    /// guess.
    ///
    /// Refused: a payload naming a member twice (RFC 7515 §4), and one whose `signedDate` is there
    /// but not a number (see `signedDate`).
    public static func decode(_ payloadJSON: [UInt8]) throws(SignedPayloadError) -> SignedPayload {
        let json = try object(payloadJSON)
        let format = format(of: json)
        try checkInstant(json, as: format)
        return decode(json, as: format)
    }

    /// Decodes the payload as the given kind, whatever keys it has.
    public static func decode(
        _ payloadJSON: [UInt8], as format: SignedDataFormat
    ) throws(SignedPayloadError) -> SignedPayload {
        let json = try object(payloadJSON)
        try checkInstant(json, as: format)
        return decode(json, as: format)
    }

    public var format: SignedDataFormat {
        switch self {
        case .transaction: .transaction
        case .renewalInfo: .renewalInfo
        case .notification: .notification
        case .appTransaction: .appTransaction
        }
    }

    /// The instant the certificates are checked at (research/server-api.md §5 step 3): the
    /// payload's `signedDate`; an app transaction's too, else its `receiptCreationDate` (Apple's
    /// JSON name for `AppTransaction.signedDate`). Nil when absent: the verifier then checks at the
    /// current time. Present but not a number, the payload does not decode at all.
    public var signedDate: Date? {
        switch self {
        case .transaction(let transaction): transaction.signedDate
        case .renewalInfo(let renewalInfo): renewalInfo.signedDate
        case .notification(let notification): notification.signedDate
        case .appTransaction(let appTransaction): appTransaction.signedDate ?? appTransaction.receiptCreationDate
        }
    }

    /// `environment`; an app transaction's `receiptType`; for a notification, see
    /// `SignedNotification.environment`.
    public var environment: SignedEnvironment? {
        switch self {
        case .transaction(let transaction): transaction.environment
        case .renewalInfo(let renewalInfo): renewalInfo.environment
        case .notification(let notification): notification.environment
        case .appTransaction(let appTransaction): appTransaction.receiptType
        }
    }

    /// `bundleId`; nil for renewal info, which has none (a verifier checks its environment only).
    public var bundleID: String? {
        switch self {
        case .transaction(let transaction): transaction.bundleID
        case .renewalInfo: nil
        case .notification(let notification): notification.bundleID
        case .appTransaction(let appTransaction): appTransaction.bundleID
        }
    }

    /// `appAppleId`, which only notifications and app transactions carry.
    public var appAppleID: Int64? {
        switch self {
        case .transaction, .renewalInfo: nil
        case .notification(let notification): notification.appAppleID
        case .appTransaction(let appTransaction): appTransaction.appAppleID
        }
    }

    private static func object(_ bytes: [UInt8]) throws(SignedPayloadError) -> AppleJSONObject {
        let value: AppleJSONValue
        do {
            value = try AppleJSONParser.parse(bytes, rejectingDuplicateKeys: true)
        } catch {
            throw error.reason == .duplicateKey ? .duplicateKey : .notJSON(offset: error.offset)
        }
        guard case .object(let object) = value else { throw .notAnObject }
        return object
    }

    /// The field `signedDate` reads is, when present, a finite JSON number: the field readers take a
    /// string of digits or read anything else as absent, and an absent instant means "check now",
    /// which would let data signed with a since-expired certificate pass as if signed today.
    private static func checkInstant(_ json: AppleJSONObject, as format: SignedDataFormat) throws(SignedPayloadError) {
        let field: StaticString =
            format == .appTransaction && !json.contains("signedDate") ? "receiptCreationDate" : "signedDate"
        guard let index = json.valueIndex(of: field) else { return }
        guard case .number(let literal) = json.document.value(at: index),
            let milliseconds = MillisecondsLiteral.value(literal), milliseconds.isFinite
        else { throw .signedDateNotANumber(field: "\(field)") }
    }

    private static func format(of json: AppleJSONObject) -> SignedDataFormat {
        if json.contains("notificationType") { return .notification }
        if json.contains("transactionId") { return .transaction }
        if json.contains("receiptType") || json.contains("applicationVersion")
            || json.contains("originalApplicationVersion") || json.contains("receiptCreationDate")
        {
            return .appTransaction
        }
        if json.contains("bundleId") { return .transaction }
        return .renewalInfo
    }

    private static func decode(_ json: AppleJSONObject, as format: SignedDataFormat) -> SignedPayload {
        switch format {
        case .transaction: .transaction(SignedTransaction(json))
        case .renewalInfo: .renewalInfo(SignedRenewalInfo(json))
        case .notification: .notification(SignedNotification(json))
        case .appTransaction: .appTransaction(SignedAppTransaction(json))
        }
    }
}
