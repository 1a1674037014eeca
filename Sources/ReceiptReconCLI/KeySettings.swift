import AppStoreReceipts
import CommandLineOptions
import Foundation

/// The App Store Server API key's three settings (file, key id, issuer id), each from its flag or else its
/// variable, remembering which, so that an error names the setting the operator actually used.
struct KeySettings {
    struct Setting {
        let value: String
        /// `--api-key-id` or `APPLE_API_KEY_ID`: where the value came from.
        let source: String
    }

    let file: Setting?
    let keyID: Setting?
    let issuerID: Setting?

    /// Reads the three by the settings' rule; none can be malformed at this point (`checked` says which is).
    init(_ resolver: SettingResolver) throws(CommandError) {
        func setting(_ declared: ReceiptReconCLI.Setting<String?>) throws(CommandError) -> Setting? {
            guard let given = try resolver.sourced(declared), let value = given.value else { return nil }
            return Setting(value: value, source: given.source.description)
        }
        file = try setting(BackendSettings.keyFile)
        keyID = try setting(BackendSettings.keyID)
        issuerID = try setting(BackendSettings.issuerID)
    }

    var anyGiven: Bool { file != nil || keyID != nil || issuerID != nil }

    /// The three values, once all are present and the ids have Apple's shapes.
    /// - Throws: a configuration error (78) naming what is missing, or which id is malformed and what was
    ///   expected; never echoing a value (a key pasted into the wrong variable must not reach a log).
    func checked() throws(CommandError) -> (file: String, keyID: String, issuerID: String) {
        guard anyGiven else {
            throw .configuration(
                "the server-api backend needs an App Store Connect In-App Purchase key: set APPLE_API_KEY_FILE "
                    + "(or --api-key-file), APPLE_API_KEY_ID and APPLE_API_ISSUER_ID (docs/server-api.md)")
        }
        let missing = [
            file == nil ? "APPLE_API_KEY_FILE (or --api-key-file)" : nil,
            keyID == nil ? "APPLE_API_KEY_ID (or --api-key-id)" : nil,
            issuerID == nil ? "APPLE_API_ISSUER_ID (or --api-issuer-id)" : nil,
        ].compactMap { $0 }
        guard let file, let keyID, let issuerID else {
            let given = [self.file, self.keyID, self.issuerID].compactMap { $0?.source }
            throw .configuration(
                "incomplete App Store Server API key: \(given.joined(separator: " and ")) "
                    + "\(given.count == 1 ? "is" : "are") set but \(missing.joined(separator: " and ")) "
                    + "\(missing.count == 1 ? "is" : "are") missing; the key file, key id and issuer id go "
                    + "together (docs/server-api.md), or unset all three for verifyReceipt")
        }
        guard ServerAPIKeyIdentifiers.isKeyID(keyID.value) else {
            throw .configuration(
                "\(keyID.source) is not an App Store Connect key id: expected \(ServerAPIKeyIdentifiers.keyIDShape)"
                    + Self.shapeHint(keyID.value, length: 10))
        }
        guard ServerAPIKeyIdentifiers.isIssuerID(issuerID.value) else {
            throw .configuration(
                "\(issuerID.source) is not an App Store Connect issuer id: expected "
                    + ServerAPIKeyIdentifiers.issuerIDShape + Self.shapeHint(issuerID.value, length: 36))
        }
        return (file.value, keyID.value, issuerID.value)
    }

    /// The file's permission bits in octal (`0644`) when group or others have any; nil when only its
    /// owner may use it, or when it cannot be examined (reading it reports that).
    static func openMode(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 != 0 else { return nil }
        return String(format: "%04o", mode)
    }

    /// What was given instead, without the value itself: its length, or that its characters are wrong.
    private static func shapeHint(_ value: String, length: Int) -> String {
        value.count == length
            ? ", got \(length) characters of which some do not fit"
            : ", got \(value.count) character\(value.count == 1 ? "" : "s")"
    }
}
