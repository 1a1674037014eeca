import CommandLineOptions
import Foundation
import Reconciliation

/// How receipts are re-verified (CONTRACT §2 and §9): the backend, the App Store Server API key's three
/// settings (the key itself is read only from its file) and the Server API's base URLs.
enum BackendSettings {
    /// nil when not given: then any of the key's settings selects `server-api` (`ServerAPISettings.load`).
    static let backend = Setting<ServerAPISettings.Backend>(
        option: OptionSpec(
            "backend", .value(placeholder: "verify-receipt|server-api"),
            "how receipts are re-verified (overrides RECON_BACKEND)",
            default: "server-api with any API key setting, else verify-receipt"),
        variable: SettingVariable(
            "RECON_BACKEND",
            "verify-receipt or server-api: how receipts are re-verified (--backend); default: server-api when "
                + "any of the three APPLE_API_KEY_* / APPLE_API_ISSUER_ID settings is set (all three are then "
                + "required), else verify-receipt",
            refusal: .mustBe("'verify-receipt' or 'server-api'")),
        default: .verifyReceipt, documented: "`server-api` with a key setting", record: RunRequest.Key.backend,
        parse: { parse, text throws(OptionError) in
            ServerAPISettings.Backend(
                rawValue: try parse.choice("backend", text, ServerAPISettings.Backend.allCases.map(\.rawValue)))!
        })

    /// A value read with $(cat FILE) or pasted from a web page may carry a newline or spaces.
    private static func trimmed(_: ValueParsers, _ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let keyFile = Setting<String?>(
        option: OptionSpec(
            "api-key-file", .value(placeholder: "PATH"),
            "App Store Connect In-App Purchase key (.p8) for the App Store Server API (overrides APPLE_API_KEY_FILE)"),
        variable: SettingVariable(
            "APPLE_API_KEY_FILE",
            "App Store Connect In-App Purchase key (SubscriptionKey_KEYID.p8, PKCS#8 P-256, unencrypted, mode 0600) "
                + "for the App Store Server API (--api-key-file)"),
        default: nil, documented: "none", parse: trimmed)

    static let keyID = Setting<String?>(
        option: OptionSpec("api-key-id", .value(placeholder: "ID"), "the API key's id (overrides APPLE_API_KEY_ID)"),
        variable: SettingVariable(
            "APPLE_API_KEY_ID", "the API key's id, the JWT kid: 10 upper-case letters and digits (--api-key-id)"),
        default: nil, documented: "none", parse: trimmed)

    static let issuerID = Setting<String?>(
        option: OptionSpec(
            "api-issuer-id", .value(placeholder: "ID"), "the API key's issuer id (overrides APPLE_API_ISSUER_ID)"),
        variable: SettingVariable(
            "APPLE_API_ISSUER_ID", "the API key's issuer id, the JWT iss: a UUID (--api-issuer-id)"),
        default: nil, documented: "none", parse: trimmed)

    static let productionURL = Setting(
        option: OptionSpec(
            "server-api-production-url", .value(placeholder: "URL"), "production App Store Server API base URL",
            default: "https://api.storekit.apple.com"),
        variable: SettingVariable(
            "APPLE_SERVER_API_URL_PRODUCTION",
            "base URL of the production App Store Server API (--server-api-production-url)", refusal: .notURL),
        default: URL(string: "https://api.storekit.apple.com")!, documented: "Apple's",
        parse: { parse, text throws(OptionError) in try parse.url("server-api-production-url", text) })

    static let sandboxURL = Setting(
        option: OptionSpec(
            "server-api-sandbox-url", .value(placeholder: "URL"), "sandbox App Store Server API base URL",
            default: "https://api.storekit-sandbox.apple.com"),
        variable: SettingVariable(
            "APPLE_SERVER_API_URL_SANDBOX", "base URL of the sandbox App Store Server API (--server-api-sandbox-url)",
            refusal: .notURL),
        default: URL(string: "https://api.storekit-sandbox.apple.com")!, documented: "Apple's",
        parse: { parse, text throws(OptionError) in try parse.url("server-api-sandbox-url", text) })
}

extension ServerAPISettings.Backend: Recordable {}
