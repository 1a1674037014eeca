import AppStoreReceipts

/// The configuration a receipt's outcome depends on.
public struct ReceiptOutcomeContext: Hashable, Sendable {
    /// `RECON_ENVIRONMENT`: the environment this database serves.
    public var servedEnvironment: AppStoreEnvironment
    /// `APPLE_BUNDLE_IDS`; empty means no bundle id check.
    public var acceptedBundleIDs: Set<String>

    public init(servedEnvironment: AppStoreEnvironment, acceptedBundleIDs: Set<String> = []) {
        self.servedEnvironment = servedEnvironment
        self.acceptedBundleIDs = acceptedBundleIDs
    }
}
