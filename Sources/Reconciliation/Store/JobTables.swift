import AppStoreReceipts
import Foundation

/// The column table of each job table a batch writes (`UnitWriter.write`), in the export's order where
/// an export reads the table. A column the writer fills, an upsert sets or the export shows is one entry
/// of its table; `ColumnTableSchemaTests` checks each table against the migrated schema.
enum JobTables {
    /// `recon_results`: one row per receipt per run, the run's latest answer winning.
    static let results = ColumnTable<ResultRecord>(
        name: "recon_results",
        columns: [
            .written("run_id", { _, row in row.runID }, onConflict: .kept),
            .written("receipt_id", { r, _ in r.receiptID }, onConflict: .kept),
            .written("user_id", { _, row in row.userID }, onConflict: .kept),
            .written("outcome", { r, _ in r.outcome.rawValue }),
            .written("apple_status", { r, _ in r.appleStatus }),
            .written("environment", { r, _ in r.environment?.rawValue }),
            .written("attempts", { r, _ in r.attempts }),
            .written("verified_at", { _, row in row.verifiedAt }),
            .written("detail", { r, _ in r.detail }),
        ],
        conflict: .update(key: ["run_id", "receipt_id"]))

    /// `recon_receipt_state`: each receipt's latest answer; the first verification and the last known
    /// bundle id are kept.
    static let receiptState = ColumnTable<ResultRecord>(
        name: "recon_receipt_state",
        columns: [
            .written("receipt_id", { r, _ in r.receiptID }, onConflict: .kept),
            .written("last_verified_at", { _, row in row.verifiedAt }),
            .written("last_outcome", { r, _ in r.outcome.rawValue }),
            .written("last_apple_status", { r, _ in r.appleStatus }),
            .written("last_environment", { r, _ in r.environment?.rawValue }),
            .written("last_run_id", { _, row in row.runID }),
            .written(
                "bundle_id", { r, _ in r.bundleID },
                onConflict: .set("coalesce(EXCLUDED.bundle_id, recon_receipt_state.bundle_id)")),
            .written("first_verified_at", { _, row in row.verifiedAt }, onConflict: .kept),
        ],
        conflict: .update(key: ["receipt_id"]))

    /// `recon_flags`, in the `flags` export's order: a flag already written by the run is left as it is.
    static let flags = ColumnTable<PlannedFlag>(
        name: "recon_flags",
        columns: perRunRow() + [
            .written("receipt_id", { f, _ in f.receiptID }, export: .number),
            .written("kind", { f, _ in f.kind.rawValue }, export: .text),
            .written("detail", { f, _ in f.detail }, export: .text),
            .written("evidence", { f, row in f.evidence?.storedJSON }),
        ],
        conflict: .nothing)

    /// `recon_corrections` as a batch and a revert (`RevertStore.write`) write them, in the `corrections`
    /// export's order.
    static let corrections = ColumnTable<CorrectionRecord>(
        name: "recon_corrections",
        columns: perRunRow() + [
            .written("entitlement", { c, _ in c.entitlement }, export: .text),
            .written("action", { c, _ in c.action.rawValue }, export: .text),
            .written("reason", { c, _ in c.reason.rawValue }, export: .text),
            .written("applied", { _, row in !row.dryRun }, export: .boolean),
            .written("before_active", { c, _ in c.beforeActive }, export: .boolean),
            .written("before_expires_at", { c, _ in c.beforeExpiresAt }, export: .instant),
            .written("after_active", { c, _ in c.afterActive }, export: .boolean),
            .written("after_expires_at", { c, _ in c.afterExpiresAt }, export: .instant),
            .written("product_id", { c, _ in c.productID }, export: .text),
            .written("original_transaction_id", { c, _ in c.originalTransactionID }, export: .text),
            // After the contract's columns (CONTRACT §8 fixes those): how reverts show. A `reverted` row
            // names the correction it undoes; an undone correction names the revert run that undid it.
            .written("reverts_correction_id", { c, _ in c.revertsCorrectionID }, export: .number),
            .joined("reverted_by_run_id", .number, "rv.run_id"),
            .written("evidence", { c, row in c.evidence?.storedJSON }),
        ],
        conflict: .none)

    /// The first columns of a per-run row a batch adds (flags, corrections), as their exports begin: the
    /// row's id, its run, when it was written and its user.
    private static func perRunRow<Record>() -> [TableColumn<Record>] {
        [
            .unwritten("id", export: .number),
            .written("run_id", { _, row in row.runID }, export: .number),
            .unwritten("created_at", export: .instant),
            .written("user_id", { _, row in row.userID }, export: .text),
        ]
    }

    /// `recon_run_transactions`: the scratch rows of the run's `shared_transaction` scan.
    static let runTransactions = ColumnTable<(receiptID: Int64, originalTransactionID: String)>(
        name: "recon_run_transactions",
        columns: [
            .written("run_id", { _, row in row.runID }),
            .written("user_id", { _, row in row.userID }),
            .written("receipt_id", { s, _ in s.receiptID }),
            .written("original_transaction_id", { s, _ in s.originalTransactionID }),
        ],
        conflict: .nothing)

    /// Every table, for the schema check.
    static var all: [(name: String, columns: [String])] {
        [
            (results.name, results.own), (receiptState.name, receiptState.own), (flags.name, flags.own),
            (corrections.name, corrections.own), (runTransactions.name, runTransactions.own),
            (transactions.name, transactions.own),
        ]
    }
}

extension ColumnTable {
    /// The names of the table's own columns (not the export's joined ones).
    var own: [String] { columns.filter(\.isOwn).map(\.name) }
}
