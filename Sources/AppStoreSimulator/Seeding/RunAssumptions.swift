import AppStoreReceipts

/// The `receipt-recon run` an expected file is for: `run --older-than 0 --as-of T` on the freshly seeded
/// database, against this world's simulator, with these settings.
public struct RunAssumptions: Sendable, Hashable {
    public enum SandboxPolicy: String, Sendable, Hashable {
        case revoke, flag
    }

    /// `--backend`: how the run re-verifies users (CONTRACT §9).
    public enum Backend: String, Sendable, Hashable {
        case verifyReceipt = "verify-receipt"
        case serverAPI = "server-api"
    }

    /// `RECON_ENVIRONMENT` / `--environment`: the environment the database serves.
    public var environment: AppStoreEnvironment
    /// `APPLE_BUNDLE_IDS` / `--bundle-id`; nil runs without a bundle check.
    public var bundleIDs: [String]?
    /// `--sandbox-policy`.
    public var sandboxPolicy: SandboxPolicy
    /// What the client sends as `exclude-old-transactions` (the project's client sends true). The world
    /// is built so that the expectation is the same either way; a test holds it to that.
    public var excludeOldTransactions: Bool
    /// `--apple-root-certificate`: the root the run trusts for StoreKit 2 rows instead of Apple's (the
    /// `apple-root.der` of the seeding's `--pki-dir`); nil trusts Apple Root CA - G3.
    public var appleRootCertificate: String?
    /// `--backend`. For receipt rows the two backends' expectations are identical (CONTRACT §9); they
    /// differ only in what StoreKit 2 rows prove (`ExpectationDeriver+SignedRows`).
    public var backend: Backend

    /// The default expectation: a production run with `APPLE_BUNDLE_IDS` set to the app's bundle id (so
    /// `bundle_mismatch` can occur) and the default `--sandbox-policy revoke`. The shared secret, if any,
    /// is the one the simulator expects.
    public init(
        environment: AppStoreEnvironment = .production,
        bundleIDs: [String]? = [WorldCatalog.appBundleID],
        sandboxPolicy: SandboxPolicy = .revoke,
        excludeOldTransactions: Bool = true,
        appleRootCertificate: String? = nil,
        backend: Backend = .verifyReceipt
    ) {
        self.environment = environment
        self.bundleIDs = bundleIDs
        self.sandboxPolicy = sandboxPolicy
        self.excludeOldTransactions = excludeOldTransactions
        self.appleRootCertificate = appleRootCertificate
        self.backend = backend
    }
}
