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
    public var productionURL: URL
    public var sandboxURL: URL
    /// Which App Store environment this database serves.
    public var environment: AppStoreEnvironment
    /// `--backend` and the App Store Server API's settings.
    public var serverAPI = ServerAPISettings()
    /// Root certificate files signed data and app receipts must chain to instead of Apple Root CA - G3
    /// and Apple Inc. Root CA (staging and tests only); empty means the built-in roots.
    public var rootCertificateFiles: [String] = []
    /// Settings that work but deserve attention, for the command to log as it starts.
    public var warnings: [ConfigurationWarning] = []

    public static let defaultProductionURL = URL(string: "https://buy.itunes.apple.com/verifyReceipt")!
    public static let defaultSandboxURL = URL(string: "https://sandbox.itunes.apple.com/verifyReceipt")!

    /// The variables of CONTRACT §2, and the job's own `RECON_*` settings, for help texts.
    public static let variables: [(name: String, meaning: String)] =
        coreVariables + ServerAPISettings.variables + [ProgressDisplay.help]

    private static let coreVariables: [(name: String, meaning: String)] = [
        ("DATABASE_URL", "libpq conninfo string or postgresql:// URI (--database-url); default: libpq's PG* defaults"),
        ("APPLE_SHARED_SECRET", "app-specific shared secret, sent as 'password' (or --shared-secret-file PATH)"),
        (
            "APPLE_BUNDLE_IDS",
            "accepted bundle ids, comma-separated; others are flagged bundle_mismatch; required by server-api, "
                + "whose JWT names the first for rows naming none (--bundle-id)"
        ),
        ("APPLE_VERIFY_URL_PRODUCTION", "verifyReceipt production endpoint (--production-url)"),
        ("APPLE_VERIFY_URL_SANDBOX", "verifyReceipt sandbox endpoint (--sandbox-url)"),
        ("RECON_ENVIRONMENT", "production or sandbox: the App Store environment this database serves (--environment)"),
        (
            "APPLE_ROOT_CERTIFICATES",
            "root certificate files (DER or PEM, comma-separated) that replace the built-in roots (Apple Root CA "
                + "- G3 for signed data, Apple Inc. Root CA for app receipts); staging and tests only "
                + "(--apple-root-certificate)"
        ),
        ("RECON_HTTP_CLIENT", "curl or urlsession: how requests reach Apple (--http-client); default: curl"),
        (
            "RECON_DB_RECONNECT_WINDOW",
            "seconds to keep reconnecting when the database drops mid-run (--db-reconnect-window); default: 120"
        ),
        (
            "RECON_MAX_ANSWER_BYTES",
            "abandon an Apple answer larger than this many bytes (--max-answer-bytes); default: 8388608 (8 MiB)"
        ),
        (
            "RECON_MAX_RETRY_WAIT",
            "longest wait before a retry, seconds; a longer Retry-After leaves the receipt unverified "
                + "(--max-retry-wait); default: 300"
        ),
    ]

    public static let databaseOptions: [OptionSpec] = [
        OptionSpec(
            "database-url", .value(placeholder: "URL"),
            "libpq conninfo string or postgresql:// URI (overrides DATABASE_URL)",
            default: "libpq defaults")
    ]

    public static let appleOptions: [OptionSpec] =
        [
            OptionSpec(
                "shared-secret-file", .value(placeholder: "PATH"),
                "read the App Store shared secret from PATH (overrides APPLE_SHARED_SECRET)"),
            OptionSpec(
                "bundle-id", .repeatable(placeholder: "ID"),
                "accepted bundle id; repeatable (overrides APPLE_BUNDLE_IDS)",
                default: "no check"),
            OptionSpec(
                "production-url", .value(placeholder: "URL"), "verifyReceipt production endpoint",
                default: defaultProductionURL.absoluteString),
            OptionSpec(
                "sandbox-url", .value(placeholder: "URL"), "verifyReceipt sandbox endpoint",
                default: defaultSandboxURL.absoluteString),
            OptionSpec(
                "environment", .value(placeholder: "production|sandbox"),
                "the App Store environment this database serves (overrides RECON_ENVIRONMENT)", default: "production"),
            rootCertificateOption,
        ] + ServerAPISettings.options

    /// Shared with `inspect`, which needs no other Apple setting.
    static let rootCertificateOption = OptionSpec(
        "apple-root-certificate", .repeatable(placeholder: "PATH"),
        "trust this root (DER or PEM) instead of the built-in ones (Apple Root CA - G3 for signed data, Apple "
            + "Inc. Root CA for app receipts); repeatable; staging and tests only (overrides APPLE_ROOT_CERTIFICATES)",
        default: "built in")

    /// Reads the configuration; what deserves a warning is in `warnings`, for the command to log.
    /// - Throws: a usage error (64) for a bad flag value, a configuration error (78) for a bad
    ///   environment variable or an unreadable/empty shared-secret file.
    public static func load(
        _ arguments: ParsedArguments,
        environment variables: [String: String],
        needsApple: Bool
    ) throws(CommandError) -> Configuration {
        let read = arguments.read
        func variable(_ name: String) -> String? {
            variables[name].flatMap { $0.isEmpty ? nil : $0 }
        }

        var configuration = Configuration(
            databaseURL: arguments.value("database-url") ?? variable("DATABASE_URL"),
            sharedSecret: nil,
            bundleIDs: [],
            productionURL: defaultProductionURL,
            sandboxURL: defaultSandboxURL,
            environment: .production
        )
        guard needsApple else { return configuration }

        if let path = arguments.value("shared-secret-file") {
            configuration.sharedSecret = try Secret.read(fromFile: path)
        } else if let secret = variable("APPLE_SHARED_SECRET") {
            configuration.sharedSecret = Secret(secret.trimmingCharacters(in: .whitespacesAndNewlines))
        }

        configuration.bundleIDs = bundleIDs(arguments, variable("APPLE_BUNDLE_IDS"))

        for (flag, name, keyPath) in [
            ("production-url", "APPLE_VERIFY_URL_PRODUCTION", \Configuration.productionURL),
            ("sandbox-url", "APPLE_VERIFY_URL_SANDBOX", \Configuration.sandboxURL),
        ] {
            if let url = try read.url(flag) {
                configuration[keyPath: keyPath] = url
            } else if let text = variable(name) {
                do {
                    configuration[keyPath: keyPath] = try read.parse.url(flag, text)
                } catch {
                    throw .configuration("\(name) is not an http:// or https:// URL: '\(text)'")
                }
            }
        }

        configuration.rootCertificateFiles = rootCertificateFiles(arguments, variable("APPLE_ROOT_CERTIFICATES"))
        // Read now, so an unusable root file stops the command before it touches the database.
        _ = try configuration.signedDataVerifier()
        configuration.serverAPI = try ServerAPISettings.load(
            arguments, variable: variable, warnings: &configuration.warnings)
        // Every request's JWT names an app (`bid`), and only the apps the key is meant for may be named
        // (CONTRACT §9): a row's bundle id is never trusted for it.
        if configuration.serverAPI.backend == .serverAPI, configuration.bundleIDs.isEmpty {
            throw .configuration(
                "the server-api backend needs APPLE_BUNDLE_IDS (or --bundle-id): the apps the API key asks "
                    + "about; the first is the JWT's bid for rows that name no app")
        }
        if configuration.bundleIDs.isEmpty { configuration.warnings.append(.noBundleCheck) }

        configuration.environment = try environment(arguments, variable("RECON_ENVIRONMENT")) ?? .production
        return configuration
    }

    /// `--apple-root-certificate` (repeatable), else `APPLE_ROOT_CERTIFICATES` (comma-separated).
    static func rootCertificateFiles(_ arguments: ParsedArguments, _ variable: String?) -> [String] {
        repeatedOrListed(arguments.all("apple-root-certificate"), variable)
    }

    /// `--bundle-id` (repeatable), else `APPLE_BUNDLE_IDS` (comma-separated).
    static func bundleIDs(_ arguments: ParsedArguments, _ variable: String?) -> [String] {
        repeatedOrListed(arguments.all("bundle-id"), variable)
    }

    /// `--environment`, else `RECON_ENVIRONMENT`; nil when neither is given.
    /// - Throws: a usage error (64) for a bad flag, a configuration error (78) for a bad variable.
    static func environment(_ arguments: ParsedArguments, _ variable: String?) throws(CommandError)
        -> AppStoreEnvironment?
    {
        if let text = try arguments.read.choice("environment", ["production", "sandbox"]) {
            return AppStoreEnvironment(rawValue: text)
        }
        guard let text = variable else { return nil }
        guard let value = AppStoreEnvironment(rawValue: text) else {
            throw .configuration("RECON_ENVIRONMENT must be 'production' or 'sandbox', not '\(text)'")
        }
        return value
    }

    /// A repeatable flag's values, else its variable's comma-separated ones.
    private static func repeatedOrListed(_ flags: [String], _ variable: String?) -> [String] {
        guard flags.isEmpty else { return flags }
        return (variable ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The verifier of the job's signed data rows: signatures and chains only, the bundle id and
    /// environment being the rules' to judge.
    /// - Throws: a configuration error (78) naming a root certificate file that cannot be used.
    func signedDataVerifier() throws(CommandError) -> SignedDataVerifier {
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
