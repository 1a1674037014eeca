import AppStoreReceipts

extension ReceiptOutcomeRule {
    /// The outcome of a history the App Store Server API found: `invalid`, `bundle_mismatch` for another
    /// app (`bundleIDRule`, the first transaction's bundle id); `misrouted` when found only in the other
    /// environment; else `valid`.
    static func classifyHistory(
        environment: AppStoreEnvironment, bundleID: String?, transactions: Int, context: ReceiptOutcomeContext
    ) -> ReceiptClassification {
        vouched(
            bundleID: bundleID, misrouted: environment == context.servedEnvironment.other, environment: environment,
            context: context,
            misroutedDetail: {
                "found by the App Store Server API in \(environment) only; this database serves \(context.servedEnvironment)"
            },
            validDetail: { "App Store Server API: \(transactions) transaction(s) in \(environment)" })
    }
}
