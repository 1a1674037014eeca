import AppStoreReceipts
import CommandLineOptions
import Foundation
import Reconciliation

/// Which apps and which App Store environment the job answers for, where verifyReceipt is, and what
/// signed data must chain to (CONTRACT §2).
enum AppleSettings {
    /// Where the shared secret comes from: a file named by the flag (a secret is never a flag value:
    /// process arguments are visible to every user), or the variable's own text.
    enum SecretSource: Sendable, Equatable {
        case file(String)
        case text(String)
    }

    static let sharedSecret = Setting<SecretSource?>(
        option: OptionSpec(
            "shared-secret-file", .value(placeholder: "PATH"),
            "read the App Store shared secret from PATH (overrides APPLE_SHARED_SECRET)"),
        variable: SettingVariable(
            "APPLE_SHARED_SECRET", "app-specific shared secret, sent as 'password' (or --shared-secret-file PATH)"),
        default: nil, documented: "none", parse: { _, text in .text(text) }
    ).readingFlag { _, path in .file(path) }

    static let bundleIDs = Setting(
        list: OptionSpec(
            "bundle-id", .repeatable(placeholder: "ID"), "accepted bundle id; repeatable (overrides APPLE_BUNDLE_IDS)",
            default: "no check"),
        variable: SettingVariable(
            "APPLE_BUNDLE_IDS",
            "accepted bundle ids, comma-separated; others are flagged bundle_mismatch; required by server-api, "
                + "whose JWT names the first for rows naming none (--bundle-id)"),
        documented: "no check (server-api: required)", recordKeys: [RunRequest.Key.bundleIDs],
        recorded: { [RunRequest.Key.bundleIDs: $0.recorded] })

    static let productionURL = Setting(
        option: OptionSpec(
            "production-url", .value(placeholder: "URL"), "verifyReceipt production endpoint",
            default: "https://buy.itunes.apple.com/verifyReceipt"),
        variable: SettingVariable(
            "APPLE_VERIFY_URL_PRODUCTION", "verifyReceipt production endpoint (--production-url)", refusal: .notURL),
        default: URL(string: "https://buy.itunes.apple.com/verifyReceipt")!, documented: "Apple's",
        parse: { parse, text throws(OptionError) in try parse.url("production-url", text) })

    static let sandboxURL = Setting(
        option: OptionSpec(
            "sandbox-url", .value(placeholder: "URL"), "verifyReceipt sandbox endpoint",
            default: "https://sandbox.itunes.apple.com/verifyReceipt"),
        variable: SettingVariable(
            "APPLE_VERIFY_URL_SANDBOX", "verifyReceipt sandbox endpoint (--sandbox-url)", refusal: .notURL),
        default: URL(string: "https://sandbox.itunes.apple.com/verifyReceipt")!, documented: "Apple's",
        parse: { parse, text throws(OptionError) in try parse.url("sandbox-url", text) })

    /// Which App Store environment this database serves.
    static let environment = Setting(
        option: OptionSpec(
            "environment", .value(placeholder: "production|sandbox"),
            "the App Store environment this database serves (overrides RECON_ENVIRONMENT)", default: "production"),
        variable: SettingVariable(
            "RECON_ENVIRONMENT",
            "production or sandbox: the App Store environment this database serves (--environment)",
            refusal: .mustBe("'production' or 'sandbox'")),
        default: AppStoreEnvironment.production, documented: "`production`", record: RunRequest.Key.environment,
        parse: { parse, text throws(OptionError) in
            AppStoreEnvironment(rawValue: try parse.choice("environment", text, ["production", "sandbox"]))!
        })

    /// Root certificate files signed data and app receipts must chain to instead of Apple Root CA - G3 and
    /// Apple Inc. Root CA (staging and tests only); empty means the built-in roots, and is not recorded.
    static let rootCertificates = Setting(
        list: OptionSpec(
            "apple-root-certificate", .repeatable(placeholder: "PATH"),
            "trust this root (DER or PEM) instead of the built-in ones (Apple Root CA - G3 for signed data, Apple "
                + "Inc. Root CA for app receipts); repeatable; staging and tests only (overrides "
                + "APPLE_ROOT_CERTIFICATES)",
            default: "built in"),
        variable: SettingVariable(
            "APPLE_ROOT_CERTIFICATES",
            "root certificate files (DER or PEM, comma-separated) that replace the built-in roots (Apple Root CA "
                + "- G3 for signed data, Apple Inc. Root CA for app receipts); staging and tests only "
                + "(--apple-root-certificate)"),
        documented: "Apple Root CA - G3", recordKeys: ["signedDataRoots"],
        recorded: { $0.isEmpty ? [:] : ["signedDataRoots": $0.recorded] })
}

extension AppleSettings.SecretSource {
    /// The secret: the file's content or the variable's text, surrounding whitespace dropped.
    /// - Throws: a configuration error (78) for a file that cannot be read or is empty.
    func read() throws(CommandError) -> Secret {
        switch self {
        case .file(let path): try Secret.read(fromFile: path)
        case .text(let text): Secret(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
