import Foundation
import Postgres

/// The finance exports of CONTRACT §8 and §9: one view, a half-open UTC range, streamed in keyset pages
/// so memory stays flat however many rows there are.
public struct ReconciliationExport: Sendable {
    public enum View: String, Sendable, CaseIterable {
        case transactions, corrections, flags
        /// Refunded transactions by when Apple says the refund happened (`cancelled_at`), whenever they
        /// were bought: `transactions` is by purchase date, so a refund of an earlier month is in no
        /// file of its own month there.
        case refunds
        /// Notifications about a transaction no stored row holds: purchases the app never stored.
        case notificationsUnmatched = "notifications_unmatched"
    }

    enum Kind { case text, number, boolean, instant }

    /// The file's format: CSV (CONTRACT §8), or an xlsx workbook whose cells keep their type, so a
    /// spreadsheet keeps 16-digit ids as they are (`XLSXWriter`).
    public enum Format: String, Sendable, CaseIterable {
        case csv, xlsx
    }

    /// More rows than a worksheet holds (`XLSXWriter.maxDataRows`).
    public struct TooManyRowsForASheet: Error, Equatable {
        public let limit: Int
    }

    struct Column {
        let name: String
        let expression: String
        let kind: Kind
    }

    /// Which runs' rows a corrections or flags export holds. Dry runs write corrections (never applied)
    /// and flags like a real run, and the docs recommend one before every switch: mixed into finance's
    /// file they would be counted as what happened.
    public enum Runs: Sendable, Equatable {
        /// Every run's rows except those of dry runs (the default).
        case excludingDryRuns
        /// Every run's rows, dry runs included (`--include-dry-runs`).
        case includingDryRuns
        /// One run's rows, whether or not it was a dry run (`--run ID`).
        case one(Int64)
    }

    public let view: View
    /// The half-open range `[from, to)`; both nil only when one run is exported whole.
    public let from: Date?
    public let to: Date?
    /// `production`, `sandbox` or `all`; transactions and refunds only.
    public let environment: String
    /// Corrections and flags only: dry runs never write transactions.
    public let runs: Runs
    public let pageSize: Int
    public let format: Format

    public init(
        view: View, from: Date?, to: Date?, environment: String = "production", runs: Runs = .excludingDryRuns,
        pageSize: Int = 5_000, format: Format = .csv
    ) {
        self.view = view
        self.from = from
        self.to = to
        self.environment = environment
        self.runs = runs
        self.pageSize = pageSize
        self.format = format
    }

    /// Whether the view holds transactions, filtered by environment.
    var isTransactional: Bool { view == .transactions || view == .refunds }

    /// Whether rows carry a run whose dry-run flag matters (corrections and flags; a dry run stores no
    /// notification).
    var isPerRun: Bool { view == .corrections || view == .flags }

    /// The columns, in the contract's order.
    var columns: [Column] {
        func c(_ name: String, _ kind: Kind, _ expression: String? = nil) -> Column {
            Column(name: name, expression: expression ?? "x.\(name)", kind: kind)
        }
        switch view {
        case .transactions, .refunds:
            let transaction = [
                c("transaction_id", .text), c("original_transaction_id", .text), c("user_id", .text),
                c("product_id", .text), c("product_kind", .text, "p.kind"), c("entitlement", .text, "p.entitlement"),
                c("environment", .text), c("ownership_type", .text), c("purchased_at", .instant),
                c("original_purchased_at", .instant), c("expires_at", .instant), c("cancelled_at", .instant),
                c("cancellation_reason", .number), c("is_trial", .boolean), c("is_intro_offer", .boolean),
                c("is_upgraded", .boolean), c("quantity", .number), c("web_order_line_item_id", .text),
                c("last_run_id", .number), c("price", .number), c("currency", .text), c("storefront", .text),
                c("offer_type", .number), c("offer_discount_type", .text), c("transaction_reason", .text),
                c("revocation_type", .text), c("source", .text), c("revocation_percentage", .number),
            ]
            guard view == .refunds else { return transaction }
            // After the transaction's own: the run that recorded the refund first and when, and the
            // amount refunded as the runs' refundedAmount counts it (filled in by `refundedAmount(_:)`).
            return transaction + [
                c("refund_run_id", .number), c("refund_recorded_at", .instant, "e.recorded_at"),
                c("refunded_amount", .number, "NULL::text"),
            ]
        case .corrections:
            return [
                c("id", .number), c("run_id", .number), c("created_at", .instant), c("user_id", .text),
                c("entitlement", .text), c("action", .text), c("reason", .text), c("applied", .boolean),
                c("before_active", .boolean), c("before_expires_at", .instant), c("after_active", .boolean),
                c("after_expires_at", .instant), c("product_id", .text), c("original_transaction_id", .text),
                // After the contract's columns (CONTRACT §8 fixes those): how reverts show. A `reverted` row
                // names the correction it undoes; an undone correction names the revert run that undid it.
                c("reverts_correction_id", .number), c("reverted_by_run_id", .number, "rv.run_id"),
            ]
        case .flags:
            return [
                c("id", .number), c("run_id", .number), c("created_at", .instant), c("user_id", .text),
                c("receipt_id", .number), c("kind", .text), c("detail", .text),
            ]
        case .notificationsUnmatched:
            return [
                c("notification_uuid", .text), c("notification_type", .text), c("subtype", .text),
                c("signed_at", .instant), c("environment", .text), c("transaction_id", .text),
                c("original_transaction_id", .text), c("product_id", .text), c("run_id", .number),
            ]
        }
    }
}
