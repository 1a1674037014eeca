import Postgres

extension UserWork {
    /// The users `userIDs` names, in that order, each whole: every stored receipt (oldest first), the
    /// tester flag and the known transaction ids. `receiptBudget` is `--limit` in receipts, spent as the
    /// users are taken: whole users only, but never zero users on a page. A user with no receipt left
    /// is skipped. Every selection pages through here, so `--limit` means the same in all of them.
    /// - Returns: the users, and whether the budget ended the selection (a user did not fit, or none is left).
    static func page(of userIDs: [String], receiptBudget: inout Int?, on connection: PostgresConnection) throws
        -> (users: [UserWork], budgetSpent: Bool)
    {
        let rows = try connection.query(
            """
            SELECT r.user_id, r.id, r.receipt_data, (t.user_id IS NOT NULL) AS tester
            FROM receipts r LEFT JOIN sandbox_testers t ON t.user_id = r.user_id
            WHERE r.user_id = ANY(\(userIDs))
            ORDER BY r.user_id, r.id
            """)
        var stored: [String: (receipts: [StoredReceipt], tester: Bool)] = [:]
        for row in rows {
            let receipt = StoredReceipt(id: try row.decode("id"), data: try row.decode("receipt_data"))
            let userID: String = try row.decode("user_id")
            if stored[userID] == nil {
                stored[userID] = ([receipt], try row.decode("tester"))
            } else {
                stored[userID]?.receipts.append(receipt)
            }
        }
        var users: [UserWork] = []
        var spent = false
        for userID in userIDs {
            guard let user = stored[userID] else { continue }
            if let budget = receiptBudget {
                if user.receipts.count > budget, !users.isEmpty || budget == 0 {
                    spent = true
                    break
                }
                receiptBudget = max(0, budget - user.receipts.count)
            }
            users.append(UserWork(userID: userID, receipts: user.receipts, isSandboxTester: user.tester))
        }
        if receiptBudget == 0 { spent = true }
        let known = try UserWork.knownTransactionIDs(of: users.map(\.userID), on: connection)
        for index in users.indices { users[index].knownTransactionIDs = known[users[index].userID] ?? [] }
        return (users, spent)
    }
}
