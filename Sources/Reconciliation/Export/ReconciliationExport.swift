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
}
