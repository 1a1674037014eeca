/// `recon_transactions.source` (CONTRACT §9, "Finance"): what told the job about a transaction.
///
/// Finance needs it because the sources carry different fields: only signed data has prices,
/// and a signed row is evidence as of its `signedDate`, not Apple's current word.
public enum TransactionSource: String, ContractVocabulary {
    /// Apple's verifyReceipt answer for a stored receipt: no price, currency or storefront.
    case verifyReceipt = "verify_receipt"
    /// The App Store Server API's signed transactions, fetched for this run.
    case serverAPI = "server_api"
    /// A StoreKit 2 row of `receipts` holding Apple's signed transaction, verified locally.
    case signedRow = "signed_row"
}
