import AppStoreReceipts
import CommandLineOptions
import Foundation
import Reconciliation

/// Settings shared by the commands that talk to the database or to Apple (CONTRACT §2): environment
/// variables first, then flags of the same meaning on top.
public struct Configuration: Sendable {
    /// libpq conninfo or URI; nil means libpq's own defaults (`PGHOST`, `PGDATABASE`, …).
    public var databaseURL: String?
    /// The app-specific shared secret; only ever from the environment or a file, never a flag value.
    public var sharedSecret: Secret?
    /// Accepted bundle ids; empty means no check.
    public var bundleIDs: [String]
    /// Each app's Apple ID by bundle id (`APPLE_APP_APPLE_IDS`), for production notifications.
    public var appAppleIDs: [String: Int64] = [:]
    public var productionURL: URL
    public var sandboxURL: URL
    /// Which App Store environment this database serves.
    public var environment: AppStoreEnvironment
    /// `--backend` and the App Store Server API's settings.
    public var serverAPI = ServerAPISettings()
    /// Root certificate files signed data and app receipts must chain to instead of Apple Root CA - G3
    /// and Apple Inc. Root CA (staging and tests only); empty means the built-in roots.
    public var rootCertificateFiles: [String] = []
    /// The verifier of signed data rows, built once as the configuration is read (an unusable root file
    /// stops the command before it touches the database); nil for a command that does not ask Apple.
    public var signedData: SignedDataVerifier?
    /// Settings that work but deserve attention, for the command to log as it starts.
    public var warnings: [ConfigurationWarning] = []

    /// The variables of CONTRACT §2, and the job's own `RECON_*` settings, for help texts.
    public static var variables: [(name: String, meaning: String)] {
        SettingsTable.variables.compactMap(\.variable).map { ($0.name, $0.meaning) }
    }

    public static var databaseOptions: [OptionSpec] { SettingsTable.options(SettingsTable.database) }

    public static var appleOptions: [OptionSpec] { SettingsTable.options(SettingsTable.apple) }

    /// Reads the configuration; what deserves a warning is in `warnings`, for the command to log.
    /// - Throws: a usage error (64) for a bad flag value, a configuration error (78) for a bad
    ///   environment variable or an unreadable/empty shared-secret file.
    public static func load(
        _ arguments: ParsedArguments,
        environment variables: [String: String],
        needsApple: Bool
    ) throws(CommandError) -> Configuration {
        let settings = SettingResolver(arguments, environment: variables)
        var configuration = Configuration(
            databaseURL: try settings.value(DatabaseSettings.url),
            sharedSecret: nil,
            bundleIDs: [],
            productionURL: AppleSettings.productionURL.defaultValue,
            sandboxURL: AppleSettings.sandboxURL.defaultValue,
            environment: AppleSettings.environment.defaultValue
        )
        guard needsApple else { return configuration }

        configuration.sharedSecret = try settings.value(AppleSettings.sharedSecret)?.read()
        configuration.bundleIDs = try settings.value(AppleSettings.bundleIDs)
        configuration.appAppleIDs = try settings.value(AppleSettings.appAppleIDs)
        configuration.productionURL = try settings.value(AppleSettings.productionURL)
        configuration.sandboxURL = try settings.value(AppleSettings.sandboxURL)
        configuration.rootCertificateFiles = try settings.value(AppleSettings.rootCertificates)
        configuration.signedData = try configuration.makeSignedDataVerifier()
        configuration.serverAPI = try ServerAPISettings.load(settings, warnings: &configuration.warnings)
        // Every request's JWT names an app (`bid`), and only the apps the key is meant for may be named
        // (CONTRACT §9): a row's bundle id is never trusted for it.
        if configuration.serverAPI.backend == .serverAPI, configuration.bundleIDs.isEmpty {
            throw .configuration(
                "the server-api backend needs APPLE_BUNDLE_IDS (or --bundle-id): the apps the API key asks "
                    + "about; the first is the JWT's bid for rows that name no app")
        }
        if configuration.bundleIDs.isEmpty { configuration.warnings.append(.noBundleCheck) }

        configuration.environment = try settings.value(AppleSettings.environment)
        return configuration
    }

    /// The verifier of the job's signed data rows: the one `load` built, or, for a configuration made
    /// without it, a new one.
    /// - Throws: a configuration error (78) naming a root certificate file that cannot be used.
    func signedDataVerifier() throws(CommandError) -> SignedDataVerifier {
        if let signedData { return signedData }
        return try makeSignedDataVerifier()
    }

    /// A verifier of signatures and chains only, the bundle id and environment being the rules' to judge.
    /// - Throws: a configuration error (78) naming a root certificate file that cannot be used.
    private func makeSignedDataVerifier() throws(CommandError) -> SignedDataVerifier {
        do {
            return try SignedDataVerifier.make(
                rootCertificateFiles: rootCertificateFiles, acceptedBundleIDs: [], environment: nil)
        } catch {
            throw .configuration(error.description)
        }
    }

    /// The verifier of app receipts' PKCS#7 signatures (`--backend server-api`, where Apple never sees
    /// them): the same root files, replacing Apple Inc. Root CA as they replace Apple Root CA - G3.
    /// - Throws: a configuration error (78) naming a root certificate file that cannot be used.
    func receiptSignatureVerifier() throws(CommandError) -> ReceiptSignatureVerifier {
        do {
            return try ReceiptSignatureVerifier.make(rootCertificateFiles: rootCertificateFiles)
        } catch {
            throw .configuration(error.description)
        }
    }
}

/// A secret value whose descriptions never show it.
public struct Secret: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let value: String

    public init(_ value: String) { self.value = value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }

    /// Reads a secret file (surrounding whitespace and the final newline are dropped).
    static func read(fromFile path: String) throws(CommandError) -> Secret {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .configuration(
                "cannot read the shared secret file '\(path)': check that it exists and is readable by this user")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            throw .configuration("the shared secret file '\(path)' is empty")
        }
        return Secret(text)
    }
}
