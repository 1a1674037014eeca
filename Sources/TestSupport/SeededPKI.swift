import AppStoreSimulator
import Foundation

/// What `simulator seed --pki-dir DIR` wrote: the throwaway root the job must trust and the App Store
/// Connect API key it signs its Server API tokens with, read the way an operator's env file names them.
public struct SeededPKI: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// `--apple-root-certificate`'s file.
    public var rootCertificate: URL { directory.appendingPathComponent("apple-root.der") }

    /// The API key's PEM file (`APPLE_API_KEY_FILE`).
    public var keyFile: URL { directory.appendingPathComponent("api-key.p8") }

    /// One of the directory's one-line files (`api-key-id`, `api-issuer-id`), trimmed.
    public func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The environment of a `--backend server-api` run against a simulator serving at `base`
    /// (`http://127.0.0.1:PORT`): the backend, the key, both environments' URLs, and the simulated apps'
    /// Apple IDs.
    public func serverAPIEnvironment(base: String) throws -> [String: String] {
        [
            "APPLE_APP_APPLE_IDS": WorldCatalog.appAppleIDs.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                .joined(separator: ","),
            "RECON_BACKEND": "server-api",
            "APPLE_API_KEY_FILE": keyFile.path,
            "APPLE_API_KEY_ID": try text("api-key-id"),
            "APPLE_API_ISSUER_ID": try text("api-issuer-id"),
            "APPLE_SERVER_API_URL_PRODUCTION": base + "/production",
            "APPLE_SERVER_API_URL_SANDBOX": base + "/sandbox",
        ]
    }
}
