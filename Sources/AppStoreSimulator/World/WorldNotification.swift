import AppStoreReceipts

/// One App Store Server Notification V2 that Apple sent (or tried to send) to the app about one account:
/// what `Get Notification History` lists. A pure function of the unit (`WorldUnit.notifications`); the
/// signed payload is made from it and the account's state at `signedMs` (research/server-api.md §9:
/// "payloads reflect the state at send time").
public struct WorldNotification: Sendable, Hashable {
    /// Apple's `notificationType`, raw, so an unknown type is just another value.
    public var type: String
    public var subtype: String?
    /// `signedDate`, milliseconds since 1970.
    public var signedMs: Int64
    /// The account's slot in its unit; `WorldNotification.orphanAccount` for the purchase no app row
    /// stores, nil for a notification about no account (`TEST`).
    public var account: Int?
    /// Position in the unit's list: with the world's seed, unit and account it makes the UUID.
    public var sequence: Int
    public var uuid: String
    /// The transaction the notification carries (`signedTransactionInfo`), nil for `TEST`.
    public var transactionID: String?
    public var originalTransactionID: String?
    public var productID: String?
    /// Whether a renewal info (`signedRenewalInfo`) rides along: auto-renewable events only.
    public var carriesRenewalInfo: Bool
    /// `sendAttemptResult` of each delivery attempt, in order: all failures when the app missed it.
    public var sendAttempts: [SendAttempt]
    /// The environment whose history lists it.
    public var environment: AppStoreEnvironment

    public struct SendAttempt: Sendable, Hashable {
        public var attemptMs: Int64
        public var result: String
    }

    /// Every send attempt failed: the app's webhook never heard of this change.
    public var deliveryFailed: Bool { !sendAttempts.isEmpty && sendAttempts.allSatisfy { $0.result != "SUCCESS" } }

    /// The slot of the one account per world whose purchase no app row stores (its ids lead to no
    /// account of the unit, so the Server API answers 4040010 for them, as Apple would for an app that
    /// lost the purchase on the way).
    public static let orphanAccount = Int(WorldUnitBuilder.accountsPerUnit) - 1

    /// The type Apple may add tomorrow: kept by the job, logged, never fatal.
    public static let unknownType = "SIMULATED_FUTURE_TYPE"

    /// Apple's failure results (research/server-api.md §9), cycled through for missed deliveries.
    static let failureResults = [
        "TIMED_OUT", "NO_RESPONSE", "TLS_ISSUE", "SOCKET_ISSUE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE",
        "PREMATURE_CLOSE", "INVALID_RESPONSE", "CIRCULAR_REDIRECT", "UNSUPPORTED_CHARSET", "OTHER",
    ]

    /// Apple's retry schedule after a failed delivery: 1, 12, 24, 48 and 72 hours after the first.
    static let retryHours: [Int64] = [0, 1, 12, 24, 48, 72]

    /// UUID v4 text from 128 bits of SplitMix64 over `(seed, unit, account, sequence)`: stable across
    /// processes and machines, unique in the world (the account is part of the key; `TEST` uses 255).
    static func uuid(seed: UInt64, unit: Int, account: Int?, sequence: Int) -> String {
        var rng = SplitMix64.derive(
            seed ^ 0x4E07_1F1C_A710_0000, UInt64(unit), UInt64(account ?? 255), UInt64(sequence))
        let (high, low) = uuidBits(rng.next(), rng.next())
        return uuidText(high: high, low: low)
    }

    /// The two words with the version (4) and variant (10xx) bits set.
    static func uuidBits(_ high: UInt64, _ low: UInt64) -> (UInt64, UInt64) {
        ((high & ~0xF000) | 0x4000, (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
    }

    static func uuidText(high: UInt64, low: UInt64) -> String {
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        let text = hex(high, 16) + hex(low, 16)
        let chars = Array(text)
        return String(chars[0..<8]) + "-" + String(chars[8..<12]) + "-" + String(chars[12..<16]) + "-"
            + String(chars[16..<20]) + "-" + String(chars[20..<32])
    }
}
