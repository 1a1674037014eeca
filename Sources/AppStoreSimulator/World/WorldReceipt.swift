/// What one receipt in the world is: a genuine receipt of an account, or something that only looks like one.
///
/// Receipts are identified by their slot in `WorldUnit.receipts`; users' receipt rows point at slots, so
/// the same receipt data can sit on one user twice (a duplicate) or on two users (never done: a restore
/// on a second app account issues a receipt of its own).
public enum WorldReceipt: Sendable, Hashable {
    /// An iOS 7+ app receipt of `account` issued at `createdMs`: every transaction purchased by then.
    case app(account: Int, createdMs: Int64)
    /// The app receipt above with a forged purchase added after Apple issued it: it decodes, but Apple
    /// cannot authenticate it (21003).
    case tamperedApp(account: Int, createdMs: Int64)
    /// An iOS 6 transaction receipt (`SKPaymentTransaction.transactionReceipt`) of one transaction.
    case transaction(account: Int, transactionID: String)
    /// An iOS 6 transaction receipt someone made for `account`'s app: a yearly subscription bought at
    /// `purchaseMs` under a transaction id no App Store issues (`WorldUnit.craftedTransactionID`, twenty
    /// digits, beyond Apple's 64-bit ids). verifyReceipt cannot authenticate it (21003); the Server API
    /// refuses the id's format (4000006).
    case craftedTransaction(account: Int, purchaseMs: Int64)
    /// A receipt made by Xcode's StoreKit testing: never valid at the App Store (21002).
    case xcode(createdMs: Int64)
    /// Valid base64 of bytes that are no receipt (21002, and local decoding fails too).
    case garbage(byteCount: Int)
    /// An empty `receipt_data`: provably not a receipt, never sent.
    case empty
    /// Text that is not base64: provably not a receipt, never sent.
    case notBase64
    /// A StoreKit 2 `Transaction.jwsRepresentation` of one transaction of `account`, as the App Store
    /// signed it at `signedMs` (the transaction as it was then). With `tampered`, the payload was edited
    /// after signing (a year added to `expiresDate`), so the signature no longer matches. Written only with
    /// a signing chain (`WorldUnit.receiptData(_:signingChain:)`); never sent to verifyReceipt.
    case signedTransaction(account: Int, transactionID: String, signedMs: Int64, tampered: Bool)

    /// The account whose receipt this is, if any.
    public var account: Int? {
        switch self {
        case .app(let account, _), .tamperedApp(let account, _), .transaction(let account, _),
            .craftedTransaction(let account, _), .signedTransaction(let account, _, _, _):
            account
        case .xcode, .garbage, .empty, .notBase64: nil
        }
    }
}
