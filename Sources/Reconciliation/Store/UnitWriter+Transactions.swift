import AppStoreReceipts
import Foundation
import Postgres

extension UnitWriter {
    /// `recon_transactions`, upserted by transaction id: the latest answer's fields win.
    ///
    /// `refund_run_id` (not in the contract) keeps the run that first recorded the transaction
    /// refunded, through later runs that see the same refund again and through its reversal;
    /// `refund_reversed_run_id` the run that recorded the reversal. A refund after a reversal is
    /// recorded anew (and counts again). Each run that records a refund or a reversal adds a
    /// `recon_refund_events` row in the same statement, with the money fields as counted: a
    /// reversal's copied from the refund it reverses (`RefundedAmount`).
    func writeTransactions(_ users: [(userID: String, plan: UnitPlan)], runID: Int64) throws {
        // One original transaction restored on two accounts puts the same transaction id in two users
        // of a batch: the later user's row wins, as it would written one user after the other. Sorted
        // by id, so two writers upserting the same ids lock them in the same order (no deadlock).
        // Records read in place (a copy of one retains and releases its every string).
        let planned = users.map(\.plan.transactions)
        let userIDList = users.map(\.userID)
        var all: [RecordIndex] = []
        var ids: [String] = []
        for (user, records) in planned.enumerated() {
            records.withUnsafeBufferPointer { records in
                for index in records.indices {
                    all.append((user, index))
                    ids.append(records[index].transactionID)
                }
            }
        }
        let kept = Self.lastPerKeySorted(keys: ids).map { all[$0] }
        let n = kept.count
        var transactionIDs = PostgresArrayColumn<String>("transaction_id", expectedCount: n)
        var originalIDs = PostgresArrayColumn<String>("original_transaction_id", expectedCount: n)
        var productIDs = PostgresArrayColumn<String>("product_id", expectedCount: n)
        var userIDs = PostgresArrayColumn<String>("user_id", expectedCount: n)
        var receiptIDs = PostgresArrayColumn<Int64>("receipt_id", expectedCount: n)
        var environments = PostgresArrayColumn<String>("environment", expectedCount: n)
        var purchasedAts = PostgresArrayColumn<Date>("purchased_at", expectedCount: n)
        var originalPurchasedAts = PostgresArrayColumn<Date>("original_purchased_at", expectedCount: n)
        var expiresAts = PostgresArrayColumn<Date>("expires_at", expectedCount: n)
        var cancelledAts = PostgresArrayColumn<Date>("cancelled_at", expectedCount: n)
        var cancellationReasons = PostgresArrayColumn<Int>("cancellation_reason", expectedCount: n)
        var isTrials = PostgresArrayColumn<Bool>("is_trial", expectedCount: n)
        var isIntroOffers = PostgresArrayColumn<Bool>("is_intro_offer", expectedCount: n)
        var isUpgradeds = PostgresArrayColumn<Bool>("is_upgraded", expectedCount: n)
        var ownershipTypes = PostgresArrayColumn<String>("ownership_type", expectedCount: n)
        var quantities = PostgresArrayColumn<Int>("quantity", expectedCount: n)
        var webOrderLineItemIDs = PostgresArrayColumn<String>("web_order_line_item_id", expectedCount: n)
        var firstRunIDs = PostgresArrayColumn<Int64>("first_run_id", expectedCount: n)
        var lastRunIDs = PostgresArrayColumn<Int64>("last_run_id", expectedCount: n)
        var prices = PostgresArrayColumn<CurrencyAmount>("price", expectedCount: n)
        var currencies = PostgresArrayColumn<String>("currency", expectedCount: n)
        var storefronts = PostgresArrayColumn<String>("storefront", expectedCount: n)
        var offerTypes = PostgresArrayColumn<Int>("offer_type", expectedCount: n)
        var offerDiscountTypes = PostgresArrayColumn<String>("offer_discount_type", expectedCount: n)
        var transactionReasons = PostgresArrayColumn<String>("transaction_reason", expectedCount: n)
        var revocationTypes = PostgresArrayColumn<String>("revocation_type", expectedCount: n)
        var revocationPercentages = PostgresArrayColumn<Percentage>("revocation_percentage", expectedCount: n)
        var sources = PostgresArrayColumn<String>("source", expectedCount: n)
        var refundRunIDs = PostgresArrayColumn<Int64>("refund_run_id", expectedCount: n)
        for (user, index) in kept {
            planned[user].withUnsafeBufferPointer { records in
                transactionIDs.append(records[index].transactionID)
                originalIDs.append(records[index].originalTransactionID)
                productIDs.append(records[index].productID)
                receiptIDs.append(records[index].receiptID)
                environments.append(records[index].environment?.rawValue)
                purchasedAts.append(records[index].purchasedAt)
                originalPurchasedAts.append(records[index].originalPurchasedAt)
                expiresAts.append(records[index].expiresAt)
                cancelledAts.append(records[index].cancelledAt)
                cancellationReasons.append(records[index].cancellationReason)
                isTrials.append(records[index].isTrial)
                isIntroOffers.append(records[index].isIntroOffer)
                isUpgradeds.append(records[index].isUpgraded)
                ownershipTypes.append(records[index].ownershipType)
                quantities.append(records[index].quantity)
                webOrderLineItemIDs.append(records[index].webOrderLineItemID)
                prices.append(records[index].price)
                currencies.append(records[index].currency)
                storefronts.append(records[index].storefront)
                offerTypes.append(records[index].offerType)
                offerDiscountTypes.append(records[index].offerDiscountType)
                transactionReasons.append(records[index].transactionReason)
                revocationTypes.append(records[index].revocationType)
                revocationPercentages.append(records[index].revocationPercentage)
                sources.append(records[index].source.rawValue)
                refundRunIDs.append(records[index].cancelledAt == nil ? nil : runID)
            }
            userIDs.append(userIDList[user])
            firstRunIDs.append(runID)
            lastRunIDs.append(runID)
        }
        try connection.insert(
            into: "recon_transactions",
            columns: [
                transactionIDs, originalIDs, productIDs, userIDs, receiptIDs, environments, purchasedAts,
                originalPurchasedAts,
                expiresAts, cancelledAts, cancellationReasons, isTrials, isIntroOffers, isUpgradeds, ownershipTypes,
                quantities, webOrderLineItemIDs, firstRunIDs, lastRunIDs, prices, currencies, storefronts, offerTypes,
                offerDiscountTypes, transactionReasons, revocationTypes, revocationPercentages, sources, refundRunIDs,
            ],
            prefix: "WITH written AS (",
            suffix: """
                ON CONFLICT (transaction_id) DO UPDATE SET
                    original_transaction_id = EXCLUDED.original_transaction_id, product_id = EXCLUDED.product_id,
                    user_id = EXCLUDED.user_id, receipt_id = EXCLUDED.receipt_id, environment = EXCLUDED.environment,
                    purchased_at = EXCLUDED.purchased_at, original_purchased_at = EXCLUDED.original_purchased_at,
                    expires_at = EXCLUDED.expires_at, cancelled_at = EXCLUDED.cancelled_at,
                    cancellation_reason = EXCLUDED.cancellation_reason, is_trial = EXCLUDED.is_trial,
                    is_intro_offer = EXCLUDED.is_intro_offer, is_upgraded = EXCLUDED.is_upgraded,
                    ownership_type = EXCLUDED.ownership_type, quantity = EXCLUDED.quantity,
                    web_order_line_item_id = EXCLUDED.web_order_line_item_id, last_run_id = EXCLUDED.last_run_id,
                    price = EXCLUDED.price, currency = EXCLUDED.currency, storefront = EXCLUDED.storefront,
                    offer_type = EXCLUDED.offer_type, offer_discount_type = EXCLUDED.offer_discount_type,
                    transaction_reason = EXCLUDED.transaction_reason, revocation_type = EXCLUDED.revocation_type,
                    revocation_percentage = EXCLUDED.revocation_percentage, source = EXCLUDED.source,
                    refund_run_id = CASE WHEN EXCLUDED.cancelled_at IS NULL THEN recon_transactions.refund_run_id
                        WHEN recon_transactions.cancelled_at IS NULL THEN EXCLUDED.refund_run_id
                        ELSE coalesce(recon_transactions.refund_run_id, EXCLUDED.refund_run_id) END,
                    refund_reversed_run_id = CASE WHEN EXCLUDED.cancelled_at IS NOT NULL THEN NULL
                        WHEN recon_transactions.cancelled_at IS NOT NULL THEN EXCLUDED.last_run_id
                        ELSE recon_transactions.refund_reversed_run_id END,
                    updated_at = now()
                RETURNING transaction_id, cancelled_at, refund_run_id, refund_reversed_run_id, price, currency,
                    environment, is_upgraded, ownership_type, revocation_type, revocation_percentage)
                \(Self.refundEventsSQL(runID: runID))
                """)
    }

    /// The refund events of the rows `written` returns (a CTE of the upsert): a refund this run recorded
    /// first, and a reversal this run recorded of a refund an earlier run recorded, its money fields
    /// copied from that refund's event. A transaction written twice in one run (one original
    /// transaction restored on two accounts) adds its event once.
    static func refundEventsSQL(runID: Int64) -> String {
        """
        INSERT INTO recon_refund_events (run_id, transaction_id, kind, refund_run_id, price, currency, environment,
                                         is_upgraded, ownership_type, revocation_type, revocation_percentage)
        SELECT \(runID), w.transaction_id, 'refund', NULL, w.price, w.currency, w.environment, w.is_upgraded,
               w.ownership_type, w.revocation_type, w.revocation_percentage
        FROM written w WHERE w.cancelled_at IS NOT NULL AND w.refund_run_id = \(runID)
        UNION ALL
        SELECT \(runID), w.transaction_id, 'reversal', e.run_id, e.price, e.currency, e.environment, e.is_upgraded,
               e.ownership_type, e.revocation_type, e.revocation_percentage
        FROM written w
        JOIN recon_refund_events e
          ON e.run_id = w.refund_run_id AND e.transaction_id = w.transaction_id AND e.kind = 'refund'
        WHERE w.refund_reversed_run_id = \(runID)
        ON CONFLICT DO NOTHING
        """
    }
}
