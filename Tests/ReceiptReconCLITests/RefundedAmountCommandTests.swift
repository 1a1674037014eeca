import Foundation
import Postgres
import TestSupport
import Testing

/// The refunded amount through the built binary (CONTRACT §9, "Refunds and money"): `run --json` and
/// `report --json` carry `refundedAmount` in every summary, an empty list when nothing was refunded;
/// a database counts the refunds of its own environment only.
@Suite struct RefundedAmountCommandTests {
    typealias Rows = StoreKit2RowTests
    static let asOf = Rows.asOf
    static func day(_ offset: Double) -> Date { Rows.day(offset) }

    /// One refunded StoreKit 2 row (USD 9.99) made in production and two made in sandbox.
    static func seedRefunds(_ database: TestDatabase, _ pki: Rows.PKI) throws {
        let db = try database.connect()
        try db.execute("INSERT INTO products VALUES ('monthly', 'auto_renewable', 'premium', NULL)")
        for (user, id, environment) in [
            ("prod-refund", "2001", "Production"), ("sbx-refund-1", "2002", "Sandbox"),
            ("sbx-refund-2", "2003", "Sandbox"),
        ] {
            let jws = pki.transaction(
                id: id, product: "monthly", signed: day(-1), purchased: day(-20), expires: day(10), revoked: day(-2),
                environment: environment)
            try db.execute("INSERT INTO receipts (user_id, receipt_data) VALUES (\(user), \(jws))")
        }
    }

    static func run(_ environment: [String: String], _ extra: [String] = []) throws -> [String: Any] {
        let result = try ReceiptReconBinary.run(
            ["run", "--older-than", "0", "--as-of", asOf, "--json"] + extra, environment: environment)
        #expect(result.status == 0, "\(result.output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// `refundedAmount` as `currency amount transactions` lines; nil when the key is missing.
    static func figures(_ object: [String: Any]) -> [String]? {
        (object["refundedAmount"] as? [[String: Any]])?.map {
            "\($0["currency"] as? String ?? "?") \($0["amount"] as? String ?? "?") \($0["transactions"] as? Int ?? -1)"
        }
    }

    @Test func aProductionRunCountsProductionRefundsOnly() throws {
        let apple = try ScriptedAppleServer()
        let pki = try Rows.PKI()
        defer { pki.remove() }
        try TestDatabase.with { database in
            try Self.seedRefunds(database, pki)
            let object = try Self.run(Rows.environment(database, pki, apple))
            #expect(Self.figures(object) == ["USD 9.99 1"], "\(object)")
            #expect(object["refundedRevenue"] == nil)
            // The sandbox refunds were recorded all the same, with their environment.
            let recorded = try database.connect().query(
                "SELECT count(*) AS n FROM recon_transactions WHERE environment = 'sandbox' AND refund_run_id = 1"
            ).first!.decode("n", as: Int.self)
            #expect(recorded == 2)
        }
    }

    /// Two refunds of one currency in a sandbox database: summed; the production one is not its money.
    @Test func aSandboxRunCountsSandboxRefundsOnly() throws {
        let apple = try ScriptedAppleServer()
        let pki = try Rows.PKI()
        defer { pki.remove() }
        try TestDatabase.with { database in
            try Self.seedRefunds(database, pki)
            var environment = Rows.environment(database, pki, apple)
            environment["RECON_ENVIRONMENT"] = "sandbox"
            let object = try Self.run(environment)
            #expect(Self.figures(object) == ["USD 19.98 2"], "\(object)")
            let report = try ReceiptReconBinary.run(["report", "--run", "1"], environment: environment)
            #expect(report.stdout.contains("Refunded amount (customer prices): USD 19.98 (2)\n"), "\(report.output)")
        }
    }

    /// Nothing refunded, a dry run, and the report of each: the key is there, an empty list.
    @Test func aRunWithoutRefundsPrintsAnEmptyList() throws {
        let apple = try ScriptedAppleServer()
        let pki = try Rows.PKI()
        defer { pki.remove() }
        try TestDatabase.with { database in
            let db = try database.connect()
            try db.execute("INSERT INTO products VALUES ('monthly', 'auto_renewable', 'premium', NULL)")
            let jws = pki.transaction(
                id: "3001", product: "monthly", signed: Self.day(-1), purchased: Self.day(-1), expires: Self.day(29))
            try db.execute("INSERT INTO receipts (user_id, receipt_data) VALUES ('paying', \(jws))")
            let environment = Rows.environment(database, pki, apple)
            let dry = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--as-of", Self.asOf, "--json", "--dry-run"], environment: environment)
            #expect(dry.status == 0 && dry.stdout.contains(#""refundedAmount":[]"#), "\(dry.output)")
            let real = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--as-of", Self.asOf, "--json"], environment: environment)
            #expect(real.status == 0 && real.stdout.contains(#""refundedAmount":[]"#), "\(real.output)")
            for run in ["1", "2"] {
                let report = try ReceiptReconBinary.run(["report", "--run", run, "--json"], environment: environment)
                #expect(report.stdout.contains(#""refundedAmount":[]"#), "\(report.output)")
                #expect(!report.stdout.contains("refundedRevenue"))
            }
        }
    }
}
