import Reconciliation

/// A setting that works but deserves the operator's attention: logged once as the command starts, as a
/// `level=warning` event on stderr, never an exit code of its own.
public enum ConfigurationWarning: Sendable, Equatable {
    /// The API key file has permission bits for group or others; `mode` in octal, e.g. `0644`.
    case keyFileOpen(path: String, mode: String)
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
