import AppStoreReceipts
import AppStoreSimulator
import Foundation

/// One record of a scripted Get Notification History page: an App Store Server Notification V2 about
/// `transaction` (none for a `TEST`), signed by the scripted server's chain, with its delivery attempts.
public struct ServerAPIScriptNotification: Sendable {
    public var uuid: String
    public var type: String
    public var subtype: String?
    public var transaction: ServerAPIScriptTransaction?
    public var signed: Date
    /// Every attempt to deliver it to the app failed (the change the app's webhook missed).
    public var deliveryFailed: Bool
    /// The payload was changed after it was signed: never to be believed.
    public var forged: Bool
    /// `data.bundleId`; nil: the transaction's, else `com.example`.
    public var bundleID: String?
    /// `data.appAppleId`; nil: none sent.
    public var appAppleID: Int64? = Self.scriptedAppAppleID

    public init(
        uuid: String, type: String, subtype: String? = nil, transaction: ServerAPIScriptTransaction?,
        signed: Date, deliveryFailed: Bool = false, forged: Bool = false
    ) {
        self.uuid = uuid
        self.type = type
        self.subtype = subtype
        self.transaction = transaction
        self.signed = signed
        self.deliveryFailed = deliveryFailed
        self.forged = forged
    }

    /// The `appAppleId` scripted notifications carry unless told otherwise (`ScriptedServerAPI.environment`
    /// configures it for `com.example`).
    public static let scriptedAppAppleID: Int64 = 1234

    /// The record as a page lists it: `signedPayload` and `sendAttempts`.
    func record(_ chain: SigningChain, host: String) -> String {
        var data = [
            "\"environment\":\"\(host)\"", "\"bundleId\":\"\(bundleID ?? transaction?.bundleID ?? "com.example")\"",
        ]
        if let appAppleID { data.append("\"appAppleId\":\(appAppleID)") }
        if let transaction { data.append("\"signedTransactionInfo\":\"\(transaction.jws(chain, host: host))\"") }
        var payload = [
            "\"notificationType\":\"\(type)\"", "\"notificationUUID\":\"\(uuid)\"", "\"version\":\"2.0\"",
            "\"signedDate\":\(ServerAPIScriptTransaction.ms(signed))", "\"data\":{" + data.joined(separator: ",") + "}",
        ]
        if let subtype { payload.insert("\"subtype\":\"\(subtype)\"", at: 1) }
        var jws = chain.sign(payload: Array(("{" + payload.joined(separator: ",") + "}").utf8))
        if forged { jws = Self.forge(jws) }
        let result = deliveryFailed ? "TIMED_OUT" : "SUCCESS"
        return "{\"signedPayload\":\"\(jws)\",\"sendAttempts\":[{\"attemptDate\":"
            + "\(ServerAPIScriptTransaction.ms(signed)),\"sendAttemptResult\":\"\(result)\"}]}"
    }

    /// `jws` with its payload's `version` changed and the signature left as it was.
    static func forge(_ jws: String) -> String {
        ServerAPIScriptTransaction.tampered(jws) {
            $0.replacingOccurrences(of: "\"version\":\"2.0\"", with: "\"version\":\"2.1\"")
        }
    }
}
