/// Whether a nightly run would be a night over nothing: `receipts` empty while `entitlements` holds
/// active `app_store` rows. Such a night verifies nobody and would report success for ever, while the
/// users holding those rows keep their access unchecked; it is what a mapping left pointing at an
/// empty table looks like (`migrate` created the contract's `receipts` beside the app's own).
///
/// The whole table decides, not the shard's part of it: a shard with no users of its own while the
/// others have some is a normal night. An empty `receipts` with no active `app_store` row is a new
/// app's first nights, and normal too. Pure; `Store/EmptyNightCheck+Query.swift` reads the figures.
public struct EmptyNightCheck: Sendable, Equatable {
    /// Whether `receipts` holds no row at all.
    public var receiptsEmpty: Bool
    /// Active `app_store` rows of `entitlements`; counted only when `receipts` is empty.
    public var activeAppStoreEntitlements: Int
    /// The relation the job reads as `receipts`, as `schema.name, a view`, for the message.
    public var receiptsRelation: String

    public init(receiptsEmpty: Bool, activeAppStoreEntitlements: Int, receiptsRelation: String) {
        self.receiptsEmpty = receiptsEmpty
        self.activeAppStoreEntitlements = activeAppStoreEntitlements
        self.receiptsRelation = receiptsRelation
    }

    /// What is wrong, as `migrate --check` lists it after `receipts: `; nil when nothing is.
    public var problem: String? {
        guard receiptsEmpty, activeAppStoreEntitlements > 0 else { return nil }
        return "empty, while entitlements holds \(activeRows): 'receipt-recon run' refuses a night over nothing"
    }

    var activeRows: String {
        activeAppStoreEntitlements == 1
            ? "1 active app_store row" : "\(activeAppStoreEntitlements) active app_store rows"
    }

    /// One line saying why the night does not start, and the way out; nil when it may.
    /// - Parameter guide: where the operator's documentation says how to map `receipts`.
    public func refusal(guide: String) -> String? {
        guard receiptsEmpty, activeAppStoreEntitlements > 0 else { return nil }
        return "receipts (\(receiptsRelation)) is empty, but entitlements holds \(activeRows): "
            + "a night over no receipts would verify nobody and look like a success; make receipts your app's "
            + "stored receipts (a view of your table: \(guide)), then check with 'receipt-recon migrate --check'"
    }
}
