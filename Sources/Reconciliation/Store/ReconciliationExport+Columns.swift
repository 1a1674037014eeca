extension ReconciliationExport {
    /// The columns, in the contract's order: the exported columns of the view's table
    /// (`JobTables`), then what the view adds.
    var columns: [Column] {
        switch view {
        case .transactions: return JobTables.transactions.exported
        case .refunds:
            // After the transaction's own: the run that recorded the refund first and when, and the
            // amount refunded as the runs' refundedAmount counts it (filled in by `streamTallying`).
            return JobTables.transactions.exported + [
                Column(name: "refund_run_id", expression: "x.refund_run_id", kind: .number),
                Column(name: "refund_recorded_at", expression: "e.recorded_at", kind: .instant),
                Column(name: "refunded_amount", expression: "NULL::text", kind: .number),
            ]
        case .corrections: return JobTables.corrections.exported
        case .flags: return JobTables.flags.exported
        case .notificationsUnmatched:
            func c(_ name: String, _ kind: Kind) -> Column { Column(name: name, expression: "x.\(name)", kind: kind) }
            return [
                c("notification_uuid", .text), c("notification_type", .text), c("subtype", .text),
                c("signed_at", .instant), c("environment", .text), c("transaction_id", .text),
                c("original_transaction_id", .text), c("product_id", .text), c("run_id", .number),
            ]
        }
    }
}
