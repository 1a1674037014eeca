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
    public var productionURL = BackendSettings.productionURL.defaultValue
    public var sandboxURL = BackendSettings.sandboxURL.defaultValue

    /// Reads the settings; with the `server-api` backend, checks the key's settings and loads the key.
    ///
    /// Any of the key's three settings selects `server-api` unless a backend is named, so half a key
    /// configuration is an error naming what is missing, never a quiet night on verifyReceipt.
    /// - Throws: a usage error (64) for a bad flag value; a configuration error (78) for a bad variable,
    ///   a missing, unreadable or encrypted key, or missing or malformed ids.
    static func load(_ resolver: SettingResolver, warnings: inout [ConfigurationWarning]) throws(CommandError)
        -> ServerAPISettings
    {
        var settings = ServerAPISettings()
        let key = try KeySettings(resolver)
        if let backend = try resolver.given(BackendSettings.backend) {
            settings.backend = backend
        } else if key.anyGiven {
            settings.backend = .serverAPI
        }
        settings.productionURL = try resolver.value(BackendSettings.productionURL)
        settings.sandboxURL = try resolver.value(BackendSettings.sandboxURL)
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
        if let fileKeyID = ServerAPIKeyIdentifiers.keyID(inFileName: keyFile), fileKeyID != keyID {
            warnings.append(
                .keyIDDiffersFromFileName(
                    setting: key.keyID?.source ?? "APPLE_API_KEY_ID", keyID: keyID, file: keyFile, fileKeyID: fileKeyID)
            )
        }
        return settings
    }
}
