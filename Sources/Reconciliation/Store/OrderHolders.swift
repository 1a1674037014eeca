import CivilTime
import Foundation
import Postgres

/// Whose stored rows hold an order's transactions.
public struct OrderHolders: Sendable {
    /// In user id order.
    public var users: [String]
    /// nil when every place a holder can be was searched; else what was.
    public var searched: String?

    public init(users: [String], searched: String? = nil) {
        self.users = users
        self.searched = searched
    }
}

extension OrderHolders {
    /// The users whose recorded transactions (`recon_transactions`) are one of `ids`, by transaction id or
    /// original transaction id, in user id order.
    static func recordedUsers(of ids: [String], on connection: PostgresConnection) throws -> [String] {
        try connection.query(
            """
            SELECT DISTINCT user_id FROM recon_transactions
            WHERE transaction_id = ANY(\(ids)) OR original_transaction_id = ANY(\(ids))
            ORDER BY user_id
            """
        ).map { try $0.decode("user_id", as: String.self) }
    }

    /// The most stored receipts `ReconciliationEngine.orderHolders` reads for one order.
    static let scanLimit = 200_000

    /// The users of the receipts stored since `since` that name one of `ids`, read a page at a time, at
    /// most `limit` rows.
    static func stored(
        of ids: Set<String>, since: Date, on connection: PostgresConnection, limit: Int,
        namedIDs: (StoredReceipt) -> Set<String>
    ) throws -> OrderHolders {
        var users = Set<String>()
        var last: Int64 = 0
        var read = 0
        while read < limit {
            let rows = try connection.query(
                """
                SELECT id, user_id, receipt_data FROM receipts
                WHERE created_at >= \(since) AND id > \(last) ORDER BY id LIMIT 500
                """)
            for row in rows {
                let receipt = StoredReceipt(id: try row.decode("id"), data: try row.decode("receipt_data"))
                last = receipt.id
                if !namedIDs(receipt).isDisjoint(with: ids) { users.insert(try row.decode("user_id")) }
            }
            read += rows.count
            if rows.count < 500 { return OrderHolders(users: users.sorted()) }
        }
        let from = Instant.formatSeconds(since)
        return OrderHolders(
            users: users.sorted(),
            searched: "the recorded transactions and the first \(read) receipts stored since \(from) (receipt ids "
                + "up to \(last)); later ones were not read")
    }
}
