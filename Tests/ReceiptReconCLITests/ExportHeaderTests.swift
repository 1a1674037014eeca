import Foundation
import TestSupport
import Testing

/// Each export view's header, whole: the columns and their order are the contract finance's
/// spreadsheets are built on (CONTRACT §8, §9), so an empty export is exactly the header line.
@Suite struct ExportHeaderTests {
    /// CONTRACT §8's `transactions` columns, in order.
    static let transactions = [
        "transaction_id", "original_transaction_id", "user_id", "product_id", "product_kind", "entitlement",
        "environment", "ownership_type", "purchased_at", "original_purchased_at", "expires_at", "cancelled_at",
        "cancellation_reason", "is_trial", "is_intro_offer", "is_upgraded", "quantity", "web_order_line_item_id",
        "last_run_id", "price", "currency", "storefront", "offer_type", "offer_discount_type", "transaction_reason",
        "revocation_type", "source", "revocation_percentage",
    ]

    /// Each view's header line: CONTRACT §8's lists, `corrections` with the revert columns after them,
    /// `refunds` the transactions with the refund's run, instant and amount, and §9's
    /// `notifications_unmatched`.
    static let headers: [String: [String]] = [
        "transactions": transactions,
        "corrections": [
            "id", "run_id", "created_at", "user_id", "entitlement", "action", "reason", "applied", "before_active",
            "before_expires_at", "after_active", "after_expires_at", "product_id", "original_transaction_id",
            "reverts_correction_id", "reverted_by_run_id",
        ],
        "flags": ["id", "run_id", "created_at", "user_id", "receipt_id", "kind", "detail"],
        "refunds": transactions + ["refund_run_id", "refund_recorded_at", "refunded_amount"],
        "notifications_unmatched": [
            "notification_uuid", "notification_type", "subtype", "signed_at", "environment", "transaction_id",
            "original_transaction_id", "product_id", "run_id",
        ],
    ]

    /// `view`'s header line, CRLF included.
    static func header(_ view: String) -> String { headers[view]!.joined(separator: ",") + "\r\n" }

    @Test func anEmptyExportOfEachViewIsExactlyItsHeaderLine() throws {
        try TestDatabase.with { database in
            for view in Self.headers.keys.sorted() {
                let result = try ReceiptReconBinary.run(
                    ["export", view, "--from", "2026-01-01", "--to", "2026-02-01"],
                    environment: ["DATABASE_URL": database.conninfo])
                #expect(result.status == 0, "\(view): \(result.output)")
                #expect(result.stdout == Self.header(view), "\(view)")
            }
        }
    }
}
