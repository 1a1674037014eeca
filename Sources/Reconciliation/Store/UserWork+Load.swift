import Postgres

extension UserWork {
    /// `verify-user`: every stored receipt of one user, oldest first, whether the user is a sandbox
    /// tester and the transactions already recorded for them; nil when the user has neither receipts
    /// nor entitlements.
    static func load(userID: String, on connection: PostgresConnection) throws -> UserWork? {
        let rows = try connection.query(
            """
            SELECT r.id, r.receipt_data, EXISTS (SELECT 1 FROM sandbox_testers t WHERE t.user_id = \(userID)) AS tester
            FROM receipts r WHERE r.user_id = \(userID) ORDER BY r.id
            """)
        let anyEntitlement: Bool = try connection.query(
            "SELECT EXISTS (SELECT 1 FROM entitlements WHERE user_id = \(userID)) AS present"
        ).first!.decode("present")
        if rows.isEmpty && !anyEntitlement { return nil }
        return UserWork(
            userID: userID,
            receipts: try rows.map { StoredReceipt(id: try $0.decode("id"), data: try $0.decode("receipt_data")) },
            isSandboxTester: try rows.first?.decode("tester") ?? false,
            knownTransactionIDs: try UserWork.knownTransactionIDs(of: [userID], on: connection)[userID] ?? [])
    }

    /// The transaction ids `recon_transactions` holds for each of `userIDs`.
    static func knownTransactionIDs(of userIDs: [String], on connection: PostgresConnection) throws
        -> [String: Set<String>]
    {
        var known: [String: Set<String>] = [:]
        for row in try connection.query(
            "SELECT user_id, transaction_id FROM recon_transactions WHERE user_id = ANY(\(userIDs))")
        {
            known[try row.decode("user_id"), default: []].insert(try row.decode("transaction_id"))
        }
        return known
    }
}
