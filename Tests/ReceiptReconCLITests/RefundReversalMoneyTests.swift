import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// Money nets reversals, through the built binary over several nights (issue 35, point 4; CONTRACT §9
/// "Refunds and money"; docs/operations.md "Refunded amount"): a night that finds a refund an earlier
/// night recorded reversed reports it (`reversedRefundAmount`), the nights' figures sum to the refunds
/// that still stand, and the SQL check docs/operations.md prints reproduces every night's stored figures.
@Suite struct RefundReversalMoneyTests {
    typealias World = VerdictWorld
    static func day(_ offset: Double) -> Date { World.day(offset) }

    /// `kind currency amount transactions` lines of a summary's two figures (amounts as exact decimals).
    static func figures(_ summary: [String: Any]) -> Set<String> {
        var lines: Set<String> = []
        for (key, kind) in [("refundedAmount", "refund"), ("reversedRefundAmount", "reversal")] {
            for entry in summary[key] as? [[String: Any]] ?? [] {
                let amount = Decimal(string: entry["amount"] as? String ?? "?").map { "\($0)" } ?? "?"
                lines.insert(
                    "\(kind) \(entry["currency"] as? String ?? "?") \(amount) \(entry["transactions"] as? Int ?? -1)")
            }
        }
        return lines
    }

    /// The SQL check of a past run as docs/operations.md prints it (the `sql` block that reads
    /// `recon_refund_events`), for run `runID` instead of the example's 42.
    static func documentedCheck() throws -> String {
        let text = try DeployDocuments.text("docs/operations.md")
        let blocks = text.components(separatedBy: "```sql\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        return try #require(blocks.first { $0.contains("recon_refund_events") }, "docs/operations.md has no such check")
    }

    static func runCheck(_ db: PostgresConnection, _ sql: String, runID: Int) throws -> Set<String> {
        #expect(sql.contains("run_id = 42"))
        let query = sql.replacingOccurrences(of: "run_id = 42", with: "run_id = \(runID)")
            .trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: ";"))
        return Set(
            try db.query(PostgresQuery(unsafeSQL: query, binds: [])).map { row in
                let amount = Decimal(string: try row.decode("amount", as: String.self)).map { "\($0)" } ?? "?"
                return "\(try row.decode("kind", as: String.self)) \(try row.decode("currency", as: String.self)) "
                    + "\(amount) \(try row.decode("transactions", as: Int.self))"
            })
    }

    /// The summary `report --run ID --json` prints: what the run stored.
    static func stored(_ database: TestDatabase, runID: Int) throws -> [String: Any] {
        let result = try ReceiptReconBinary.run(
            ["report", "--run", String(runID), "--json"], environment: ["DATABASE_URL": database.conninfo])
        #expect(result.status == 0, "\(result.output)")
        return try World.summary(result)
    }

    @Test func aReversedRefundIsReportedByTheNightThatFindsItAndTheNightsSumToWhatStands() throws {
        try World.seeded { api, database, db in
            // EUR 4.99 refunded whole, reversed by Apple the next night, refunded again the night after.
            let lifetime = World.euroLifetime("9201", purchased: Self.day(-100))
            try World.holder(db, "u-reversed", api.sign(lifetime), "pro", expires: nil)
            let refunded = World.refunded(lifetime, on: Self.day(-1))
            // A quarter of USD 9.99 given back, standing every night.
            let monthly = World.monthly("9301", purchased: Self.day(-20), expires: Self.day(10))
            try World.holder(db, "u-prorated", api.sign(monthly), "premium", expires: Self.day(10))
            api.script(.production, .transactionHistory, id: "9301", [.history([World.quarterRefunded(monthly)])])

            var nights: [(runID: Int, summary: [String: Any])] = []
            for apple in [refunded, lifetime, refunded] {
                api.script(.production, .transactionHistory, id: "9201", [.history([apple])])
                let result = try World.run(database, api)
                #expect(result.status == 0, "\(result.output)")
                let summary = try World.summary(result)
                nights.append((try #require(summary["runID"] as? Int), summary))
            }

            #expect(Self.figures(nights[0].summary) == ["refund EUR 4.99 1", "refund USD 2.498 1"])
            #expect(Self.figures(nights[1].summary) == ["reversal EUR 4.99 1"], "the night that finds it reversed")
            #expect(Self.figures(nights[2].summary) == ["refund EUR 4.99 1"], "refunded again: counts again")
            #expect(try World.corrections(db, run: nights[1].runID) == ["u-reversed pro grant refund_reversed"])

            // Summed over nights, refunded minus reversed is what stands after each night: what Apple's
            // answers of that night say was refunded (9301 every night; 9201 on nights 1 and 3).
            // 9301: 25 % of 9.99 = 2.4975, rounded once to 2.498; 9201: all of 4.99.
            let (eur, usd) = (Decimal(string: "4.99")!, Decimal(string: "2.498")!)
            let standing: [[String: Decimal]] = [
                ["EUR": eur, "USD": usd], ["EUR": 0, "USD": usd], ["EUR": eur, "USD": usd],
            ]
            var net: [String: Decimal] = ["EUR": 0, "USD": 0]
            for (night, expected) in zip(nights, standing) {
                for (key, sign) in [("refundedAmount", Decimal(1)), ("reversedRefundAmount", Decimal(-1))] {
                    for entry in night.summary[key] as? [[String: Any]] ?? [] {
                        let currency = entry["currency"] as? String ?? "?"
                        net[currency, default: 0] += sign * (Decimal(string: entry["amount"] as? String ?? "") ?? .nan)
                    }
                }
                #expect(net == expected, "after run \(night.runID)")
            }

            // The documented check reproduces every night's stored figures, the first one's included
            // (its refund was reversed and refunded again since).
            let check = try Self.documentedCheck()
            for night in nights {
                let stored = Self.figures(try Self.stored(database, runID: night.runID))
                #expect(stored == Self.figures(night.summary))
                #expect(try Self.runCheck(db, check, runID: night.runID) == stored, "run \(night.runID)")
            }
        }
    }
}
