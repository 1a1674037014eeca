import AppStoreReceipts
import Foundation

extension JobTables {
    /// `recon_transactions`, upserted by transaction id: the latest answer's fields win
    /// (`UnitWriter.writeTransactions`), in the `transactions` export's order.
    ///
    /// `refund_run_id` (not in the contract) keeps the run that first recorded the transaction
    /// refunded, through later runs that see the same refund again and through its reversal;
    /// `refund_reversed_run_id` the run that recorded the reversal. A refund after a reversal is
    /// recorded anew (and counts again).
    static let transactions = ColumnTable<TransactionRecord>(
        name: "recon_transactions",
        columns: [
            .written("transaction_id", { r, _ in r.transactionID }, onConflict: .kept, export: .text),
            .written("original_transaction_id", { r, _ in r.originalTransactionID }, export: .text),
            .written("user_id", { _, row in row.userID }, export: .text),
            .written("product_id", { r, _ in r.productID }, export: .text),
            .joined("product_kind", .text, "p.kind"),
            .joined("entitlement", .text, "p.entitlement"),
            .written("receipt_id", { r, _ in r.receiptID }),
            .written("environment", { r, _ in r.environment?.rawValue }, export: .text),
            .written("ownership_type", { r, _ in r.ownershipType }, export: .text),
            .written("purchased_at", { r, _ in r.purchasedAt }, export: .instant),
            .written("original_purchased_at", { r, _ in r.originalPurchasedAt }, export: .instant),
            .written("expires_at", { r, _ in r.expiresAt }, export: .instant),
            .written("cancelled_at", { r, _ in r.cancelledAt }, export: .instant),
            .written("cancellation_reason", { r, _ in r.cancellationReason }, export: .number),
            .written("is_trial", { r, _ in r.isTrial }, export: .boolean),
            .written("is_intro_offer", { r, _ in r.isIntroOffer }, export: .boolean),
            .written("is_upgraded", { r, _ in r.isUpgraded }, export: .boolean),
            .written("quantity", { r, _ in r.quantity }, export: .number),
            .written("web_order_line_item_id", { r, _ in r.webOrderLineItemID }, export: .text),
            .written("first_run_id", { _, row in row.runID }, onConflict: .kept),
            .written("last_run_id", { _, row in row.runID }, export: .number),
            .written("price", { r, _ in r.price }, export: .number),
            .written("currency", { r, _ in r.currency }, export: .text),
            .written("storefront", { r, _ in r.storefront }, export: .text),
            .written("offer_type", { r, _ in r.offerType }, export: .number),
            .written("offer_discount_type", { r, _ in r.offerDiscountType }, export: .text),
            .written("transaction_reason", { r, _ in r.transactionReason }, export: .text),
            .written("revocation_type", { r, _ in r.revocationType }, export: .text),
            .written("source", { r, _ in r.source.rawValue }, export: .text),
            .written("revocation_percentage", { r, _ in r.revocationPercentage }, export: .number),
            .written(
                "refund_run_id", { r, row in r.cancelledAt == nil ? nil : row.runID },
                onConflict: .set(
                    """
                    CASE WHEN EXCLUDED.cancelled_at IS NULL THEN recon_transactions.refund_run_id
                            WHEN recon_transactions.cancelled_at IS NULL THEN EXCLUDED.refund_run_id
                            ELSE coalesce(recon_transactions.refund_run_id, EXCLUDED.refund_run_id) END
                    """)),
            .unwritten(
                "refund_reversed_run_id",
                onConflict: .set(
                    """
                    CASE WHEN EXCLUDED.cancelled_at IS NOT NULL THEN NULL
                            WHEN recon_transactions.cancelled_at IS NOT NULL THEN EXCLUDED.last_run_id
                            ELSE recon_transactions.refund_reversed_run_id END
                    """)),
            .unwritten("updated_at", onConflict: .set("now()")),
        ],
        conflict: .update(key: ["transaction_id"]))
}
