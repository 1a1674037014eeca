import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

/// Apple's limits in the sandbox are a tenth of production's, per endpoint (CONTRACT §9 "Limits per
/// environment"): the built binary against a scripted App Store Server API and a real database. A
/// sandbox database's requests, and a production database's hops to the sandbox, are paced by
/// `--sandbox-rate` and counted against `--sandbox-max-requests-per-hour`, each a tenth of production's
/// figure unless given, in rows of `recon_request_budget` of their own.
@Suite struct SandboxLimitsRunTests {
    typealias World = VerdictWorld

    /// `users` users (`s01`, …), each with a lifetime purchase (transaction `5001`, …) stored as Apple
    /// signed it in `stored`, which Apple finds only in `found`.
    static func world(
        _ users: Int, stored: AppStoreEnvironment, found: AppStoreEnvironment,
        _ body: (TestDatabase, PostgresConnection, ScriptedServerAPI) throws -> Void
    ) throws {
        try World.seeded { api, database, db in
            for index in 1...users {
                let (user, id) = (String(format: "s%02d", index), String(5000 + index))
                let bought = World.lifetime(id, purchased: World.day(-30))
                try World.holder(
                    db, user, api.sign(bought, environment: stored == .sandbox ? "Sandbox" : "Production"), "pro",
                    expires: nil)
                for environment in AppStoreEnvironment.allCases {
                    api.script(
                        environment, .transactionHistory, id: id,
                        [environment == found ? .history([bought]) : .error(4_040_010, status: 404)])
                }
            }
            try body(database, db, api)
        }
    }

    /// A night of `database` (`RECON_ENVIRONMENT=environment`) without notifications.
    static func run(
        _ database: TestDatabase, _ api: ScriptedServerAPI, environment: AppStoreEnvironment, _ extra: [String]
    ) throws -> (result: ReceiptReconBinary.Result, summary: [String: Any]) {
        let result = try ReceiptReconBinary.run(
            [
                "run", "--backend", "server-api", "--no-notifications", "--older-than", "0", "--as-of", World.asOf,
                "--json", "--max-attempts", "2",
            ] + extra,
            environment: api.environment.merging([
                "DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example",
                "RECON_ENVIRONMENT": environment.rawValue,
            ]) { $1 })
        let summary = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
        return (result, summary)
    }

    /// Tokens leased per `environment/endpoint` over every window of `recon_request_budget` (a lease is
    /// a few requests' worth: at least what was sent, never past the ceiling).
    static func ledger(_ db: PostgresConnection) throws -> [String: Int] {
        var sums: [String: Int] = [:]
        for row in try db.query(
            "SELECT environment || '/' || endpoint AS key, sum(granted)::int8 AS n FROM recon_request_budget GROUP BY 1"
        ) {
            sums[try row.decode("key", as: String.self)] = Int(try row.decode("n", as: Int64.self))
        }
        return sums
    }

    /// Get Transaction History requests the scripted server received from `environment`.
    static func history(_ api: ScriptedServerAPI, _ environment: AppStoreEnvironment) -> [ScriptedServerAPI.Received] {
        api.received.filter { $0.endpoint == .transactionHistory && $0.environment == environment }
    }

    /// The run's grants by limit (`budget.grantedByEndpoint`): one per request sent.
    static func granted(_ summary: [String: Any]) -> [String: Int] {
        (summary["budget"] as? [String: Any])?["grantedByEndpoint"] as? [String: Int] ?? [:]
    }

    /// The `key=value` fields of the run's `run.started` line.
    static func started(_ result: ReceiptReconBinary.Result) -> Set<String> {
        let line = result.stderr.split(separator: "\n").first { $0.contains("event=run.started") } ?? ""
        return Set(line.split(separator: " ").map(String.init))
    }

    /// `--rate 50` paces production at 50 a second; the sandbox database's requests go at a tenth of it,
    /// 5 a second, and are counted in the sandbox's rows of the budget. That the driver keeps to that pace
    /// is proved on a scripted clock (SandboxLimitsTests); here, that the run hands it the tenth.
    @Test func aSandboxDatabaseIsPacedAtATenthOfTheRate() throws {
        try Self.world(16, stored: .sandbox, found: .sandbox) { database, db, api in
            let night = try Self.run(database, api, environment: .sandbox, ["--rate", "50"])
            #expect(night.result.status == 0, "\(night.result.output)")
            #expect(night.summary["usersProcessed"] as? Int == 16, "\(night.summary)")
            let sandbox = Self.history(api, .sandbox)
            #expect(sandbox.count == 16 && Self.history(api, .production).isEmpty)
            #expect(Self.started(night.result).contains("sandbox_rate=5"), "\(night.result.stderr)")
            #expect(Self.granted(night.summary) == ["sandbox/transaction_history": 16], "\(night.summary)")
            let ledger = try Self.ledger(db)
            #expect((ledger["sandbox/transaction_history"] ?? 0) >= 16, "\(ledger)")
            #expect(ledger["production/transaction_history"] == nil, "\(ledger)")
        }
    }

    /// The sandbox's hour is spent at a tenth of `--max-requests-per-hour` while production's is not:
    /// the night ends completed, naming the sandbox's setting, and Apple saw no more than it allows.
    @Test func aSandboxDatabaseSpendsTheSandboxBudgetNotProductions() throws {
        try Self.world(12, stored: .sandbox, found: .sandbox) { database, db, api in
            let night = try Self.run(
                database, api, environment: .sandbox,
                ["--rate", "100", "--max-requests-per-hour", "50", "--budget-hours", "0"])
            #expect(night.result.status == 0, "\(night.result.output)")
            #expect(night.summary["status"] as? String == "completed")
            let reason = night.summary["reason"] as? String ?? ""
            #expect(
                reason.hasPrefix("budget: --sandbox-max-requests-per-hour 5 spent for sandbox/transaction_history"),
                "\(reason)")
            #expect(Self.history(api, .sandbox).count <= 5, "Apple's sandbox saw \(Self.history(api, .sandbox).count)")
            let processed = night.summary["usersProcessed"] as? Int ?? 0
            #expect(processed < 12)
            let ledger = try Self.ledger(db)
            #expect((ledger["sandbox/transaction_history"] ?? 0) <= 5, "\(ledger)")
            #expect(ledger["production/transaction_history"] == nil, "\(ledger)")
            let budget = night.summary["budget"] as? [String: Any] ?? [:]
            #expect(budget["sandboxMaxRequestsPerHour"] as? Int == 5, "\(budget)")
            #expect(budget["maxRequestsPerHour"] as? Int == 50, "\(budget)")
        }
    }

    /// A production database whose rows Apple finds only in the sandbox: each hop is charged to the
    /// sandbox's budget, never production's, and the sandbox's ceiling is what stops the night. (Every
    /// user here needs a hop, so the users in flight when it is spent end transiently unverified, and
    /// every purchase found is a sandbox one in production, revoked: the breakers are set aside to look
    /// at the budget alone.)
    @Test func hopsToTheSandboxChargeTheSandboxBudget() throws {
        try Self.world(12, stored: .production, found: .sandbox) { database, db, api in
            let night = try Self.run(
                database, api, environment: .production,
                [
                    "--rate", "100", "--max-requests-per-hour", "50", "--budget-hours", "0",
                    "--max-unverified-ratio", "1", "--max-revoke-ratio", "1",
                ])
            #expect(night.result.status == 0, "\(night.result.output)")
            let reason = night.summary["reason"] as? String ?? ""
            #expect(
                reason.hasPrefix("budget: --sandbox-max-requests-per-hour 5 spent for sandbox/transaction_history"),
                "\(reason)")
            let (production, sandbox) = (Self.history(api, .production).count, Self.history(api, .sandbox).count)
            #expect(sandbox <= 5 && sandbox > 0, "Apple's sandbox saw \(sandbox) hops")
            #expect(
                Self.granted(night.summary)
                    == ["transaction_history": production, "sandbox/transaction_history": sandbox],
                "production saw \(production), the sandbox \(sandbox): \(night.summary)")
            let ledger = try Self.ledger(db)
            #expect((ledger["sandbox/transaction_history"] ?? 0) >= sandbox, "\(ledger)")
            #expect((ledger["sandbox/transaction_history"] ?? 0) <= 5, "\(ledger)")
            // Users whose hop was not made keep what they have: only a purchase Apple's sandbox answered for
            // is revoked (`wrong_environment`), nothing for a question not asked.
            let corrections = try World.corrections(db)
            #expect(corrections.count <= sandbox, "\(corrections)")
            #expect(corrections.allSatisfy { $0.hasSuffix("wrong_environment") }, "\(corrections)")
        }
    }

    /// Given, the settings replace the tenth; `RECON_SANDBOX_MAX_REQUESTS_PER_HOUR` does as the flag.
    @Test func theSandboxSettingsOverrideTheTenth() throws {
        try Self.world(6, stored: .sandbox, found: .sandbox) { database, db, api in
            let night = try Self.run(
                database, api, environment: .sandbox,
                ["--sandbox-rate", "40", "--sandbox-max-requests-per-hour", "3", "--budget-hours", "0"])
            #expect(Self.started(night.result).contains("sandbox_rate=40"), "\(night.result.stderr)")
            #expect(
                (night.summary["reason"] as? String ?? "").hasPrefix("budget: --sandbox-max-requests-per-hour 3 "),
                "\(night.summary)")
            let options = try db.query(
                "SELECT options->>'sandboxRate' AS r, options->>'sandboxMaxRequestsPerHour' AS n FROM recon_runs")
            #expect(try options.first?.decode("r", as: String.self) == "40")
            #expect(try options.first?.decode("n", as: String.self) == "3")
        }
    }
}
