import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// The nightly run's selection (CONTRACT §3): every user with a due receipt, whole, once, in order,
/// within the shard and `--limit`, whatever the page and step boundaries cut through.
@Suite struct DueUserReaderTests {
    static let cutoff = Date(timeIntervalSince1970: 1_800_000_000)

    /// 60 users; user i has i % 7 + 1 receipts, and user-00013 has 45 (longer than a step of 30).
    /// Receipts of users divisible by 3 were verified after the cutoff (not due), except each one's
    /// last receipt for users divisible by 9 (one due receipt makes the whole user due).
    static func seed(_ connection: PostgresConnection) throws -> (due: [String: [Int64]], all: [String: [Int64]]) {
        var due: [String: [Int64]] = [:]
        var all: [String: [Int64]] = [:]
        for user in 0..<60 {
            let id = String(format: "user-%05d", user)
            let count = user == 13 ? 45 : user % 7 + 1
            var ids: [Int64] = []
            for index in 0..<count {
                let receipt: Int64 = try connection.query(
                    "INSERT INTO receipts (user_id, receipt_data) VALUES (\(id), \("data-\(user)-\(index)")) RETURNING id"
                )
                .first!.decode("id")
                ids.append(receipt)
                let fresh = user % 3 == 0 && !(user % 9 == 0 && index == count - 1)
                if fresh {
                    try connection.execute(
                        """
                        INSERT INTO recon_receipt_state (receipt_id, last_verified_at, last_outcome)
                        VALUES (\(receipt), \(cutoff.addingTimeInterval(60)), 'valid')
                        """)
                } else if index == 0 {
                    // Verified before the cutoff: due again.
                    try connection.execute(
                        """
                        INSERT INTO recon_receipt_state (receipt_id, last_verified_at, last_outcome)
                        VALUES (\(receipt), \(cutoff.addingTimeInterval(-60)), 'valid')
                        """)
                }
            }
            all[id] = ids
            if user % 3 != 0 || user % 9 == 0 { due[id] = ids }
        }
        return (due, all)
    }

    static func readAll(_ reader: DueUserReader) throws -> [UserWork] {
        var users: [UserWork] = []
        while case let page = try reader.nextPage(), !page.isEmpty { users += page }
        return users
    }

    @Test(arguments: [1, 4, 200])
    func everyDueUserComesOnceWholeAndInOrder(pageSize: Int) throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let (due, _) = try Self.seed(connection)
            let reader = DueUserReader(
                connection: try database.connect(), cutoff: Self.cutoff, shardIndex: 0, shardCount: 1,
                limit: nil, pageSize: pageSize)
            let users = try Self.readAll(reader)
            #expect(users.map(\.userID) == due.keys.sorted())
            for user in users {
                #expect(user.receipts.map(\.id) == due[user.userID], "\(user.userID) not whole")
            }
        }
    }

    @Test func shardsSplitTheDueUsersDisjointlyAndCompletely() throws {
        try TestDatabase.with { database in
            let (due, _) = try Self.seed(try database.connect())
            var seen: [String] = []
            for shard in 0..<3 {
                let reader = DueUserReader(
                    connection: try database.connect(), cutoff: Self.cutoff, shardIndex: shard,
                    shardCount: 3, limit: nil, pageSize: 5)
                let users = try Self.readAll(reader).map(\.userID)
                #expect(!users.isEmpty)
                let expected: [String] = try database.connect().query(
                    """
                    SELECT DISTINCT user_id FROM receipts
                    WHERE \(unescaped: DueUserReader.shardPredicate(column: "user_id", count: 3, index: shard))
                    ORDER BY user_id
                    """
                ).map { try $0.decode("user_id") }
                #expect(users == expected.filter { due[$0] != nil })
                seen += users
            }
            #expect(seen.sorted() == due.keys.sorted())
        }
    }

    @Test func limitTakesWholeUsersUpToTheReceiptBudget() throws {
        try TestDatabase.with { database in
            let (due, _) = try Self.seed(try database.connect())
            let reader = DueUserReader(
                connection: try database.connect(), cutoff: Self.cutoff, shardIndex: 0, shardCount: 1,
                limit: 20, pageSize: 3)
            let users = try Self.readAll(reader)
            let receipts = users.map(\.receipts.count).reduce(0, +)
            #expect(receipts <= 20 && receipts > 20 - 8, "took \(receipts) receipts")
            #expect(users.map(\.userID) == Array(due.keys.sorted().prefix(users.count)))
            for user in users { #expect(user.receipts.map(\.id) == due[user.userID]) }
        }
    }
}
