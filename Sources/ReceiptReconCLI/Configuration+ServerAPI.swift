import AppStoreReceipts
import CommandLineOptions
import Foundation

/// How receipts are re-verified (`RECON_BACKEND`, CONTRACT §2 and §9), and the App Store Server API's
/// settings: the API key (read only from its file), its ids and the base URLs.
public struct ServerAPISettings: Sendable {
    public enum Backend: String, Sendable, CaseIterable {
        case verifyReceipt = "verify-receipt"
        case serverAPI = "server-api"
    }

    public var backend: Backend = .verifyReceipt
    /// The key's tokens, loaded from `APPLE_API_KEY_FILE` when the backend is `server-api`.
    public var tokens: ServerAPITokens?
    public var productionURL = Self.defaultProductionURL
    public var sandboxURL = Self.defaultSandboxURL

    public static let defaultProductionURL = URL(string: "https://api.storekit.apple.com")!
    public static let defaultSandboxURL = URL(string: "https://api.storekit-sandbox.apple.com")!

    static let variables: [(name: String, meaning: String)] = [
        (
            "RECON_BACKEND",
            "verify-receipt or server-api: how receipts are re-verified (--backend); default: server-api when "
                + "any of the three APPLE_API_KEY_* / APPLE_API_ISSUER_ID settings is set (all three are then "
                + "required), else verify-receipt"
        ),
        (
            "APPLE_API_KEY_FILE",
            "App Store Connect In-App Purchase key (SubscriptionKey_KEYID.p8, PKCS#8 P-256, unencrypted, mode 0600) "
                + "for the App Store Server API (--api-key-file)"
        ),
        ("APPLE_API_KEY_ID", "the API key's id, the JWT kid: 10 upper-case letters and digits (--api-key-id)"),
        ("APPLE_API_ISSUER_ID", "the API key's issuer id, the JWT iss: a UUID (--api-issuer-id)"),
        (
            "APPLE_SERVER_API_URL_PRODUCTION",
            "base URL of the production App Store Server API (--server-api-production-url)"
        ),
        ("APPLE_SERVER_API_URL_SANDBOX", "base URL of the sandbox App Store Server API (--server-api-sandbox-url)"),
    ]

    static let options: [OptionSpec] = [
        OptionSpec(
            "backend", .value(placeholder: "verify-receipt|server-api"),
            "how receipts are re-verified (overrides RECON_BACKEND)",
            default: "server-api with any API key setting, else verify-receipt"),
        OptionSpec(
            "api-key-file", .value(placeholder: "PATH"),
            "App Store Connect In-App Purchase key (.p8) for the App Store Server API (overrides APPLE_API_KEY_FILE)"),
        OptionSpec("api-key-id", .value(placeholder: "ID"), "the API key's id (overrides APPLE_API_KEY_ID)"),
        OptionSpec(
            "api-issuer-id", .value(placeholder: "ID"), "the API key's issuer id (overrides APPLE_API_ISSUER_ID)"),
        OptionSpec(
            "server-api-production-url", .value(placeholder: "URL"), "production App Store Server API base URL",
            default: defaultProductionURL.absoluteString),
        OptionSpec(
            "server-api-sandbox-url", .value(placeholder: "URL"), "sandbox App Store Server API base URL",
            default: defaultSandboxURL.absoluteString),
    ]

    /// Reads the settings; with the `server-api` backend, checks the key's settings and loads the key.
    ///
    /// Any of the key's three settings selects `server-api` unless a backend is named, so half a key
    /// configuration is an error naming what is missing, never a quiet night on verifyReceipt.
    /// - Throws: a usage error (64) for a bad flag value; a configuration error (78) for a bad variable,
    ///   a missing, unreadable or encrypted key, or missing or malformed ids.
    static func load(
        _ arguments: ParsedArguments, variable: (String) -> String?, warnings: inout [ConfigurationWarning]
    ) throws(CommandError) -> ServerAPISettings {
        var settings = ServerAPISettings()
        let key = KeySettings(arguments, variable: variable)
        if let text = try arguments.read.choice("backend", Backend.allCases.map(\.rawValue)) {
            settings.backend = Backend(rawValue: text)!
        } else if let text = variable("RECON_BACKEND") {
            guard let backend = Backend(rawValue: text) else {
                throw .configuration("RECON_BACKEND must be 'verify-receipt' or 'server-api', not '\(text)'")
            }
            settings.backend = backend
        } else if key.anyGiven {
            settings.backend = .serverAPI
        }
        for (flag, name, keyPath) in [
            ("server-api-production-url", "APPLE_SERVER_API_URL_PRODUCTION", \ServerAPISettings.productionURL),
            ("server-api-sandbox-url", "APPLE_SERVER_API_URL_SANDBOX", \ServerAPISettings.sandboxURL),
        ] {
            if let url = try arguments.read.url(flag) {
                settings[keyPath: keyPath] = url
            } else if let text = variable(name) {
                do {
                    settings[keyPath: keyPath] = try arguments.read.parse.url(flag, text)
                } catch {
                    throw .configuration("\(name) is not an http:// or https:// URL: '\(text)'")
                }
            }
        }
        guard settings.backend == .serverAPI else { return settings }
        let (keyFile, keyID, issuerID) = try key.checked()
        do {
            settings.tokens = try ServerAPITokens.load(keyFile: keyFile, keyID: keyID, issuerID: issuerID)
        } catch {
            throw .configuration(error.description)
        }
        if let mode = KeySettings.openMode(of: keyFile) {
            warnings.append(.keyFileOpen(path: keyFile, mode: mode))
        }
        return settings
    }
}
