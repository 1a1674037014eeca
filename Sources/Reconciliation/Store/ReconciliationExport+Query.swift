import Foundation
import Postgres

/// The export's SQL: which table each view reads, the conditions its rows meet, the keyset pages it
/// streams and the dry runs it leaves out.
extension ReconciliationExport {
    /// Table, time column and the stable key that orders rows within one instant.
    var source: (from: String, time: String, key: String, keyType: String) {
        switch view {
        case .transactions:
            return (
                "recon_transactions x LEFT JOIN products p ON p.product_id = x.product_id", "purchased_at",
                "transaction_id", "text"
            )
        case .refunds:
            // The event of the run that recorded the refund first: (run_id, transaction_id, kind) is its
            // key, so the join adds no row.
            return (
                "recon_transactions x LEFT JOIN products p ON p.product_id = x.product_id "
                    + "LEFT JOIN recon_refund_events e ON e.run_id = x.refund_run_id "
                    + "AND e.transaction_id = x.transaction_id AND e.kind = 'refund'",
                "cancelled_at", "transaction_id", "text"
            )
        case .corrections:
            // An applied revert undoes a correction at most once (a unique index): the join adds no row.
            return (
                "recon_corrections x JOIN recon_runs r ON r.id = x.run_id "
                    + "LEFT JOIN recon_corrections rv ON rv.reverts_correction_id = x.id AND rv.applied",
                "created_at", "id", "bigint"
            )
        case .flags: return ("recon_flags x JOIN recon_runs r ON r.id = x.run_id", "created_at", "id", "bigint")
        case .notificationsUnmatched: return ("recon_notifications x", "received_at", "notification_uuid", "text")
        }
    }

    /// The conditions every row of this export meets (range, environment, runs), with their binds
    /// appended to `binds`; `x` is the view's table and, for corrections and flags, `r` its run (and, for
    /// corrections, `rv` the applied revert that undid the row, if any).
    func conditions(binds: inout [PostgresBind]) -> [String] {
        func bind(_ value: PostgresBind) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        let time = source.time
        var conditions: [String] = []
        if let from { conditions.append("x.\(time) >= \(bind(from.postgresBind))") }
        if let to { conditions.append("x.\(time) < \(bind(to.postgresBind))") }
        if isTransactional, environment != "all" {
            conditions.append("x.environment = \(bind(environment.postgresBind))")
        }
        if view == .notificationsUnmatched {
            conditions.append(NotificationStore.unmatched("x"))
        }
        if isPerRun {
            switch runs {
            case .excludingDryRuns: conditions.append("NOT r.dry_run")
            case .includingDryRuns: break
            case .one(let id): conditions.append("x.run_id = \(bind(id.postgresBind))")
            }
        }
        return conditions
    }

    /// Writes the header and every row through `write`, page by page; returns the number of data rows.
    @discardableResult
    public func stream(from connection: PostgresConnection, to write: (String) throws -> Void) throws -> Int {
        try streamTallying(from: connection, to: write).rows
    }

    /// Writes the header and every row through `write`, page by page; returns the rows written, per run
    /// for corrections and flags.
    public func streamTallying(from connection: PostgresConnection, to write: (String) throws -> Void) throws
        -> ExportTally
    {
        let columns = self.columns
        let source = self.source
        switch format {
        case .csv: try write(CSVWriter.header(columns.map(\.name)))
        case .xlsx:
            let instants = Set(columns.indices.filter { columns[$0].kind == .instant })
            try write(XLSXWriter.sheetStart(header: columns.map(\.name), instantColumns: instants))
        }
        let refundedAmountIndex = view == .refunds ? columns.firstIndex { $0.name == "refunded_amount" } : nil
        let select = columns.map { column -> String in
            switch column.kind {
            case .instant:
                // Whole seconds, UTC, whatever the session time zone.
                return
                    "to_char(\(column.expression) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') AS \(column.name)"
            case .text, .number, .boolean:
                return "\(column.expression)::text AS \(column.name)"
            }
        }.joined(separator: ", ")
        // Beside the CSV's columns, never in it: which run each row came from, for the manifest.
        let tallyColumns = isPerRun ? ", x.run_id AS tally_run_id, r.dry_run AS tally_dry_run" : ""
        var cursor: (time: String, key: String)?
        var tally = ExportTally()
        while true {
            var binds: [PostgresBind] = []
            var conditions = self.conditions(binds: &binds)
            if let cursor {
                binds.append(cursor.time.postgresBind)
                binds.append(cursor.key.postgresBind)
                conditions.append(
                    "(x.\(source.time), x.\(source.key)) > ($\(binds.count - 1)::timestamptz, "
                        + "$\(binds.count)::\(source.keyType))")
            }
            var sql =
                "SELECT \(select), x.\(source.time)::text AS cursor_time, x.\(source.key)::text AS cursor_key"
                + tallyColumns + " FROM \(source.from)"
            if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
            sql += " ORDER BY x.\(source.time), x.\(source.key) LIMIT \(pageSize)"
            let query = PostgresQuery(unsafeSQL: sql, binds: binds)
            let rows = try connection.query(query)
            for row in rows {
                var cells: [CSVCell] = []
                cells.reserveCapacity(columns.count)
                for (index, column) in columns.enumerated() {
                    guard let value = row.values[index] else {
                        cells.append(.null)
                        continue
                    }
                    switch column.kind {
                    case .text: cells.append(.text(value))
                    case .number: cells.append(.number(value))
                    case .instant: cells.append(.instant(value))
                    case .boolean: cells.append(.boolean(value == "t" || value == "true"))
                    }
                }
                if let refundedAmountIndex {
                    let byName = Dictionary(uniqueKeysWithValues: zip(columns.map(\.name), cells))
                    let amount = RefundedAmount.amount(of: RefundedAmount.refund(cells: byName))
                    cells[refundedAmountIndex] = amount.map { .number($0.description) } ?? .null
                }
                switch format {
                case .csv: try write(CSVWriter.row(cells))
                case .xlsx:
                    guard tally.rows < XLSXWriter.maxDataRows else {
                        throw TooManyRowsForASheet(limit: XLSXWriter.maxDataRows)
                    }
                    try write(XLSXWriter.row(cells, number: tally.rows + 2))
                }
                if isPerRun {
                    tally.count(run: try row.decode("tally_run_id"), dryRun: try row.decode("tally_dry_run"))
                } else {
                    tally.rows += 1
                }
            }
            guard rows.count == pageSize, let last = rows.last else { break }
            cursor = (try last.decode("cursor_time", as: String.self), try last.decode("cursor_key", as: String.self))
        }
        if format == .xlsx { try write(XLSXWriter.sheetEnd) }
        return tally
    }

    /// The dry runs whose rows in this export's range were left out (the default for corrections and
    /// flags), with how many rows each had; empty otherwise.
    public func excludedDryRuns(on connection: PostgresConnection) throws -> [ExportTally.Run] {
        guard isPerRun, runs == .excludingDryRuns else { return [] }
        var binds: [PostgresBind] = []
        var conditions = ReconciliationExport(
            view: view, from: from, to: to, environment: environment, runs: .includingDryRuns, format: format
        ).conditions(binds: &binds)
        conditions.append("r.dry_run")
        let sql =
            "SELECT x.run_id AS id, count(*)::int AS rows FROM \(source.from) WHERE "
            + conditions.joined(separator: " AND ") + " GROUP BY x.run_id ORDER BY x.run_id"
        return try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds)).map {
            ExportTally.Run(id: try $0.decode("id"), dryRun: true, rows: try $0.decode("rows"))
        }
    }
}
