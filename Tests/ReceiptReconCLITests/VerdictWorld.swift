import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// What the acceptance tests of Apple-faithful verdicts (issue 25) share: a scripted App Store Server
/// API, a real database seeded with the app's tables, the built binary run against both, and the
/// tables a user would look at afterwards, read back as short strings.
///
/// The expectations in those tests come from the rules (the lead's spec), never from the job's code.
enum VerdictWorld {
    /// Now, to the second: the scripted server signs its answers now, so they speak for this `--as-of`
    /// and subscription statuses are used (CONTRACT §9, "As of").
    static let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    static let asOf = iso(now)
    static func day(_ offset: Double) -> Date { now.addingTimeInterval(offset * 86_400) }
    static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
    typealias Transaction = ServerAPIScriptTransaction

    /// When the app last wrote a seeded entitlement row: a world instant before every `--as-of` used.
    static let appWrote = day(-70)

    /// A server whose chain covers the rows' signing dates and its own answers'.
    static func server() throws -> ScriptedServerAPI {
        try ScriptedServerAPI(chainValidity: day(-400)...day(400))
    }

    /// The arrange block of a night: a scripted server (`server()`), a fresh database with the app's
    /// tables and `seedProducts`, and a connection to it, handed to `body`.
    static func seeded<T>(
        _ body: (ScriptedServerAPI, TestDatabase, PostgresConnection) throws -> T
    ) throws -> T {
        let api = try server()
        return try TestDatabase.with { database in
            let db = try database.connect()
            try seedProducts(db)
            return try body(api, database, db)
        }
    }

    /// `monthly` and `yearly` unlock `premium` (two subscription groups: two chains of one entitlement);
    /// `lifetime` unlocks `pro`.
    static func seedProducts(_ db: PostgresConnection) throws {
        try db.executeScript(
            """
            INSERT INTO products VALUES ('monthly', 'auto_renewable', 'premium', NULL),
                                        ('yearly', 'auto_renewable', 'premium', NULL),
                                        ('lifetime', 'non_consumable', 'pro', NULL);
            """)
    }

    /// A stored row of `user`; its `receipts.id`.
    @discardableResult
    static func row(_ db: PostgresConnection, _ user: String, _ data: String) throws -> Int64 {
        try db.query("INSERT INTO receipts (user_id, receipt_data) VALUES (\(user), \(data)) RETURNING id")
            .first!.decode("id", as: Int64.self)
    }

    /// An `app_store` entitlement row as the app last wrote it (`updated_at` a world instant).
    static func entitlement(
        _ db: PostgresConnection, _ user: String, _ name: String, active: Bool = true, expires: Date?,
        updated: Date = appWrote
    ) throws {
        try db.execute(
            """
            INSERT INTO entitlements (user_id, entitlement, active, expires_at, source, updated_at)
            VALUES (\(user), \(name), \(active), \(expires), 'app_store', \(updated))
            """)
    }

    /// The arrange step of most users: a stored row of `user` holding `data` and the `app_store`
    /// entitlement row the app wrote for it; the row's `receipts.id`.
    @discardableResult
    static func holder(
        _ db: PostgresConnection, _ user: String, _ data: String, _ name: String, active: Bool = true,
        expires: Date?, updated: Date = appWrote
    ) throws -> Int64 {
        let id = try row(db, user, data)
        try entitlement(db, user, name, active: active, expires: expires, updated: updated)
        return id
    }

    /// A subscription period as Apple signs it.
    static func monthly(
        _ id: String, original: String? = nil, product: String = "monthly", purchased: Date, expires: Date,
        revoked: Date? = nil
    ) -> Transaction {
        Transaction(
            id: id, originalID: original, product: product, purchased: purchased, expires: expires, revoked: revoked)
    }

    /// A non-consumable (`pro`) as Apple signs it.
    static func lifetime(_ id: String, purchased: Date, revoked: Date? = nil) -> Transaction {
        Transaction(id: id, product: "lifetime", type: "Non-Consumable", purchased: purchased, revoked: revoked)
    }

    /// `user` holding a `monthly` period `id` (`purchased` to `expires`) with the app's `premium` row to
    /// `expires`, which Apple's production history says was refunded yesterday; the row's `receipts.id`.
    @discardableResult
    static func refundedSubscriber(
        _ db: PostgresConnection, _ api: ScriptedServerAPI, _ user: String, _ id: String, purchased: Date,
        expires: Date
    ) throws -> Int64 {
        let period = monthly(id, purchased: purchased, expires: expires)
        let row = try holder(db, user, api.sign(period), "premium", expires: expires)
        api.script(.production, .transactionHistory, id: id, [.history([refunded(period, on: day(-1))])])
        return row
    }

    /// A `pro` bought for EUR 4.99: the purchase the money tests refund whole.
    static func euroLifetime(_ id: String, purchased: Date) -> Transaction {
        var bought = lifetime(id, purchased: purchased)
        bought.price = 4990
        bought.currency = "EUR"
        return bought
    }

    /// `transaction` as Apple signs it once refunded (whole, as Apple says it with no percentage) on `day`.
    static func refunded(_ transaction: Transaction, on day: Date) -> Transaction {
        var refunded = transaction
        refunded.revoked = day
        return refunded
    }

    /// `period` refunded a quarter (`REFUND_PRORATED`, 25 %) yesterday.
    static func quarterRefunded(_ period: Transaction) -> Transaction {
        var prorated = refunded(period, on: day(-1))
        prorated.revocationType = "REFUND_PRORATED"
        prorated.revocationPercentage = 25_000
        return prorated
    }

    /// `run --backend server-api --json` at `asOf` (now unless given) for every row.
    static func run(
        _ database: TestDatabase, _ api: ScriptedServerAPI, _ extra: [String] = [],
        bundleIDs: String = "com.example", asOf: String = asOf
    ) throws -> ReceiptReconBinary.Result {
        try ReceiptReconBinary.run(
            ["run", "--backend", "server-api", "--older-than", "0", "--as-of", asOf, "--json", "--max-attempts", "2"]
                + extra,
            environment: api.environment.merging([
                "DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": bundleIDs,
                // Every app the run asks about has an Apple ID; the scripted notifications carry com.example's.
                "APPLE_APP_APPLE_IDS": bundleIDs.split(separator: ",").map {
                    "\($0)=\(ServerAPIScriptNotification.scriptedAppAppleID)"
                }.joined(separator: ","),
            ]) { $1 })
    }

    /// `verify-user USER --backend server-api` at `asOf` against `database` and the scripted server.
    static func verifyUser(
        _ user: String, _ database: TestDatabase, _ api: ScriptedServerAPI, maxAttempts: Int
    ) throws -> ReceiptReconBinary.Result {
        try ReceiptReconBinary.run(
            ["verify-user", user, "--backend", "server-api", "--as-of", asOf, "--max-attempts", String(maxAttempts)],
            environment: api.environment.merging([
                "DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example",
            ]) { $1 })
    }

    static func strings(_ db: PostgresConnection, _ sql: PostgresQuery) throws -> Set<String> {
        Set(try db.query(sql).map { try $0.decode("s", as: String.self) })
    }

    /// `user entitlement action reason` of every correction of every run.
    static func corrections(_ db: PostgresConnection, run: Int? = nil) throws -> Set<String> {
        let rows = try db.query(
            "SELECT run_id, user_id || ' ' || entitlement || ' ' || action || ' ' || reason AS s FROM recon_corrections"
        )
        return Set(
            try rows.filter { try run == nil || $0.decode("run_id", as: Int.self) == run }.map {
                try $0.decode("s", as: String.self)
            })
    }

    /// `user kind` of every flag of every run.
    static func flags(_ db: PostgresConnection, run: Int? = nil) throws -> Set<String> {
        let rows = try db.query("SELECT run_id, user_id || ' ' || kind AS s FROM recon_flags")
        return Set(
            try rows.filter { try run == nil || $0.decode("run_id", as: Int.self) == run }.map {
                try $0.decode("s", as: String.self)
            })
    }

    /// The outcome and detail of one stored row in the latest run that judged it.
    static func result(_ db: PostgresConnection, _ receipt: Int64) throws -> (outcome: String, detail: String)? {
        try db.query(
            """
            SELECT outcome, coalesce(detail, '') AS detail FROM recon_results WHERE receipt_id = \(receipt)
            ORDER BY run_id DESC LIMIT 1
            """
        ).first.map { (try $0.decode("outcome", as: String.self), try $0.decode("detail", as: String.self)) }
    }

    static func outcome(_ db: PostgresConnection, _ receipt: Int64) throws -> String? {
        try result(db, receipt)?.outcome
    }

    /// `user entitlement` of every active row.
    static func active(_ db: PostgresConnection) throws -> Set<String> {
        try strings(db, "SELECT user_id || ' ' || entitlement AS s FROM entitlements WHERE active")
    }

    /// The expiry of an active entitlement row; nil when inactive, missing or without expiry.
    static func activeUntil(_ db: PostgresConnection, _ user: String, _ entitlement: String) throws -> Date? {
        try db.query(
            "SELECT expires_at FROM entitlements WHERE user_id = \(user) AND entitlement = \(entitlement) AND active"
        ).first?.decode("expires_at", as: Date?.self)
    }

    /// `revocation_percentage` of a recorded transaction as a plain number (`25`; `-` for NULL); nil when not
    /// recorded.
    static func revocationPercentage(_ db: PostgresConnection, _ transaction: String) throws -> String? {
        try db.query(
            """
            SELECT coalesce(revocation_percentage::float8::text, '-') AS s FROM recon_transactions
            WHERE transaction_id = \(transaction)
            """
        ).first?.decode("s", as: String.self)
    }

    /// The requests the server received for `id` (any endpoint, any environment).
    static func requests(_ api: ScriptedServerAPI, _ id: String) -> Int {
        api.received.filter { $0.id == id }.count
    }

    /// The run's `--json` summary.
    static func summary(_ result: ReceiptReconBinary.Result) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.output)")
    }

    /// `refundedAmount` as `currency amount transactions` lines; nil when the key is missing.
    static func refundedAmount(_ summary: [String: Any]) -> [String]? {
        (summary["refundedAmount"] as? [[String: Any]])?.map {
            "\($0["currency"] as? String ?? "?") \($0["amount"] as? String ?? "?") \($0["transactions"] as? Int ?? -1)"
        }
    }

    /// Whether two instants are the same to the second (the database keeps microseconds).
    static func same(_ a: Date?, _ b: Date) -> Bool {
        a.map { abs($0.timeIntervalSince(b)) < 1 } == true
    }
}
