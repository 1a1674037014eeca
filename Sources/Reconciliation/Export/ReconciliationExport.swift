import Foundation
import Postgres

/// The finance exports of CONTRACT §8: one view, a half-open UTC range, streamed in keyset pages so
/// memory stays flat however many rows there are.
public struct ReconciliationExport: Sendable {
    public enum View: String, Sendable, CaseIterable {
        case transactions, corrections, flags
    }

    enum Kind { case text, number, boolean, instant }

    struct Column {
        let name: String
        let expression: String
        let kind: Kind
    }

    public let view: View
    public let from: Date
    public let to: Date
    /// `production`, `sandbox` or `all`; transactions only.
    public let environment: String
    public let pageSize: Int

    public init(view: View, from: Date, to: Date, environment: String = "production", pageSize: Int = 5_000) {
        self.view = view
        self.from = from
        self.to = to
        self.environment = environment
        self.pageSize = pageSize
    }

    /// The columns, in the contract's order.
    public var columnNames: [String] { columns.map(\.name) }

    var columns: [Column] {
        func c(_ name: String, _ kind: Kind, _ expression: String? = nil) -> Column {
            Column(name: name, expression: expression ?? "x.\(name)", kind: kind)
        }
        switch view {
        case .transactions:
            return [
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
        case .corrections:
            return [
                c("id", .number), c("run_id", .number), c("created_at", .instant), c("user_id", .text),
                c("entitlement", .text), c("action", .text), c("reason", .text), c("applied", .boolean),
                c("before_active", .boolean), c("before_expires_at", .instant), c("after_active", .boolean),
                c("after_expires_at", .instant), c("product_id", .text), c("original_transaction_id", .text),
            ]
        case .flags:
            return [
                c("id", .number), c("run_id", .number), c("created_at", .instant), c("user_id", .text),
                c("receipt_id", .number), c("kind", .text), c("detail", .text),
            ]
        }
    }

    /// Table, time column and the stable key that orders rows within one instant.
    private var source: (from: String, time: String, key: String, keyType: String) {
        switch view {
        case .transactions:
            return (
                "recon_transactions x LEFT JOIN products p ON p.product_id = x.product_id", "purchased_at",
                "transaction_id", "text"
            )
        case .corrections: return ("recon_corrections x", "created_at", "id", "bigint")
        case .flags: return ("recon_flags x", "created_at", "id", "bigint")
        }
    }

    /// Writes the header and every row through `write`, page by page; returns the number of data rows.
    @discardableResult
    public func stream(from connection: PostgresConnection, to write: (String) throws -> Void) throws -> Int {
        let columns = self.columns
        let source = self.source
        try write(CSVWriter.header(columns.map(\.name)))
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
        let environmentFilter = view == .transactions && environment != "all"
        var cursor: (time: String, key: String)?
        var count = 0
        while true {
            var binds: [PostgresBind] = [from.postgresBind, to.postgresBind]
            func bind(_ value: String) -> String {
                binds.append(value.postgresBind)
                return "$\(binds.count)"
            }
            var sql =
                "SELECT \(select), x.\(source.time)::text AS cursor_time, x.\(source.key)::text AS cursor_key"
                + " FROM \(source.from) WHERE x.\(source.time) >= $1 AND x.\(source.time) < $2"
            if environmentFilter {
                sql += " AND x.environment = \(bind(environment))"
            }
            if let cursor {
                sql +=
                    " AND (x.\(source.time), x.\(source.key)) > (\(bind(cursor.time))::timestamptz, "
                    + "\(bind(cursor.key))::\(source.keyType))"
            }
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
                try write(CSVWriter.row(cells))
            }
            count += rows.count
            guard rows.count == pageSize, let last = rows.last else { break }
            cursor = (try last.decode("cursor_time", as: String.self), try last.decode("cursor_key", as: String.self))
        }
        return count
    }
}
