import Reconciliation

/// A setting that works but deserves the operator's attention: logged once as the command starts, as a
/// `level=warning` event on stderr, never an exit code of its own.
public enum ConfigurationWarning: Sendable, Equatable {
    /// The API key file has permission bits for group or others; `mode` in octal, e.g. `0644`.
    case keyFileOpen(path: String, mode: String)
    /// The key id differs from the one in the key file's name (`SubscriptionKey_<KEYID>.p8`, as App Store
    /// Connect names the download): legal for a renamed file, else the 401 of the first request.
    /// `setting` is where the key id came from (`APPLE_API_KEY_ID` or `--api-key-id`).
    case keyIDDiffersFromFileName(setting: String, keyID: String, file: String, fileKeyID: String)
    /// No bundle ids: receipts of any app are accepted (verify-receipt backend only; server-api needs them).
    case noBundleCheck

    /// Writes the warning to `log`.
    public func log(to log: EventLog) {
        switch self {
        case .keyFileOpen(let path, let mode):
            log.log(
                .warning, "config.api_key_file_mode",
                [
                    "file": path, "mode": mode,
                    "message":
                        "the API key file can be read or changed by users other than its owner; fix: chmod 600 \(path)",
                ])
        case .keyIDDiffersFromFileName(let setting, let keyID, let file, let fileKeyID):
            log.log(
                .warning, "config.api_key_id_differs_from_file",
                [
                    "key_id": keyID, "file": file, "file_key_id": fileKeyID,
                    "message":
                        "\(setting) is \(keyID) but the key file's name is that of key \(fileKeyID) (App Store "
                        + "Connect names the file SubscriptionKey_<KEYID>.p8); if Apple answers 401, give the key id "
                        + "of that file, or the file of key \(keyID); a file renamed on purpose needs nothing",
                ])
        case .noBundleCheck:
            log.log(
                .warning, "config.no_bundle_check",
                [
                    "message":
                        "no APPLE_BUNDLE_IDS (or --bundle-id): receipts of any app are accepted; set your app's "
                        + "bundle ids so others are flagged bundle_mismatch"
                ])
        }
    }
}

extension Configuration {
    /// Logs every warning of this configuration, before the command does its work.
    func logWarnings(to log: EventLog = EventLog()) {
        for warning in warnings { warning.log(to: log) }
    }
}
