import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// A run that did not finish normally (killed, its connection lost, stopped) has a `recon_runs` row
/// whose figures are what its own rows say it did: the results, corrections and flags written under
/// its id, whatever its counters in memory claimed or whether its process lived to write them.
@Suite struct RunRowRebuildTests {
    static let asOf = Date(timeIntervalSince1970: 1_793_491_200)

    /// Five users written for `runID`: outcomes of every kind, a grant, two revokes (one user with two
    /// revoked entitlements), an extend, flags, and the scratch rows of the shared-transaction scan.
    static func writeUsers(runID: Int64, on connection: PostgresConnection) throws {
        var users: [(userID: String, plan: UnitPlan)] = []
        let outcomes: [[ReceiptOutcome]] = [
            [.valid, .valid], [.misrouted], [.invalid], [.unverified, .valid], [.valid],
        ]
        let corrections: [[(String, CorrectionAction, CorrectionReason)]] = [
            [("pro", .grant, .purchaseNotGranted)], [("pro", .revoke, .wrongEnvironment)],
            [("pro", .revoke, .invalidReceipt), ("premium", .revoke, .invalidReceipt)], [],
            [("premium", .extend, .renewal)],
        ]
        for (u, userOutcomes) in outcomes.enumerated() {
            let userID = "user-\(u)"
            var plan = UnitPlan()
            for outcome in userOutcomes {
                let receiptID: Int64 = try connection.query(
                    "INSERT INTO receipts (user_id, receipt_data) VALUES (\(userID), 'x') RETURNING id"
                ).first!.decode("id")
                plan.results.append(
                    ResultRecord(
                        receiptID: receiptID, outcome: outcome, appleStatus: outcome == .unverified ? nil : 0,
                        environment: .production, attempts: 1, detail: "", bundleID: nil))
                if outcome != .valid {
                    plan.flags.append(
                        PlannedFlag(
                            kind: outcome == .unverified ? .unverified : .invalidReceipt, receiptID: receiptID,
                            detail: "test"))
                }
                plan.sharedScan.append((receiptID, "o-\(receiptID)"))
            }
            plan.corrections = corrections[u].map { entitlement, action, reason in
                let active = action != .revoke
                return CorrectionRecord(
                    entitlement: entitlement, action: action, reason: reason, beforeActive: action != .grant,
                    beforeExpiresAt: nil, afterActive: active, afterExpiresAt: nil, productID: "p",
                    originalTransactionID: "o")
            }
            for correction in plan.corrections where correction.action != .grant {
                try connection.execute(
                    """
                    INSERT INTO entitlements (user_id, entitlement, active) VALUES (\(userID), \(correction.entitlement), true)
                    """)
            }
            users.append((userID, plan))
        }
        _ = try UnitWriter(connection: connection).write(
            runID: runID, dryRun: false, verifiedAt: Date(),
            units: users.map { user in UnitWriter.Unit(userID: user.userID) { _ in user.plan } })
    }

    /// The figures counted straight from the run's rows, in the row's column names.
    static func counted(runID: Int64, on connection: PostgresConnection) throws -> [String: Int] {
        try connection.query(
            """
            SELECT (SELECT count(*) FROM recon_results WHERE run_id = \(runID)) AS receipts_processed,
                   (SELECT count(DISTINCT user_id) FROM recon_results WHERE run_id = \(runID)) AS users_processed,
                   (SELECT count(*) FROM recon_results WHERE run_id = \(runID) AND outcome = 'valid') AS valid,
                   (SELECT count(*) FROM recon_results WHERE run_id = \(runID) AND outcome = 'misrouted') AS misrouted,
                   (SELECT count(*) FROM recon_results WHERE run_id = \(runID) AND outcome = 'invalid') AS invalid,
                   (SELECT count(*) FROM recon_results WHERE run_id = \(runID) AND outcome = 'unverified') AS unverified,
                   (SELECT count(*) FROM recon_corrections WHERE run_id = \(runID)) AS corrections,
                   (SELECT count(DISTINCT user_id) FROM recon_corrections WHERE run_id = \(runID) AND action = 'revoke')
                       AS revoked_users,
                   (SELECT count(*) FROM recon_flags WHERE run_id = \(runID)) AS flags
            """
        ).first.map { row in
            try Dictionary(uniqueKeysWithValues: Self.columns.map { ($0, try row.decode($0, as: Int.self)) })
        } ?? [:]
    }

    static let columns = [
        "receipts_processed", "users_processed", "valid", "misrouted", "invalid", "unverified", "corrections",
        "revoked_users", "flags",
    ]

    /// The run row's figures: its columns, and its `summary` decoded.
    static func recorded(runID: Int64, on connection: PostgresConnection) throws -> (
        columns: [String: Int], status: String, summary: RunSummary?
    ) {
        let row = try connection.query(
            """
            SELECT status, summary, \(unescaped: columns.joined(separator: ", ")) FROM recon_runs WHERE id = \(runID)
            """
        ).first!
        let columns = try Dictionary(uniqueKeysWithValues: Self.columns.map { ($0, try row.decode($0, as: Int.self)) })
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let summary = try row.decode("summary", as: PostgresJSON?.self).map {
            try decoder.decode(RunSummary.self, from: Data($0.text.utf8))
        }
        return (columns, try row.decode("status"), summary)
    }

    /// Corrections by action and reason, and flags by kind, as `recon_corrections` and `recon_flags` say.
    static func breakdowns(runID: Int64, on connection: PostgresConnection) throws -> (
        corrections: [CorrectionAction: [CorrectionReason: Int]], flags: [FlagKind: Int]
    ) {
        var corrections: [CorrectionAction: [CorrectionReason: Int]] = [:]
        for row in try connection.query(
            "SELECT action, reason, count(*) AS n FROM recon_corrections WHERE run_id = \(runID) GROUP BY 1, 2")
        {
            corrections[CorrectionAction(rawValue: try row.decode("action"))!, default: [:]][
                CorrectionReason(rawValue: try row.decode("reason"))!] = try row.decode("n")
        }
        var flags: [FlagKind: Int] = [:]
        for row in try connection.query(
            "SELECT kind, count(*) AS n FROM recon_flags WHERE run_id = \(runID) GROUP BY 1")
        {
            flags[FlagKind(rawValue: try row.decode("kind"))!] = try row.decode("n")
        }
        return (corrections, flags)
    }

    /// Waits until the server has ended the backend `pid` (its session locks are released only then).
    static func waitUntilGone(_ pid: Int32, on connection: PostgresConnection) throws {
        let deadline = Date().addingTimeInterval(10)
        while try connection.query("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = \(Int(pid))").first!
            .decode("n", as: Int.self) > 0
        {
            guard Date() < deadline else {
                Issue.record("backend \(pid) did not end")
                return
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    @Test func anAbandonedRunIsMarkedInterruptedWithTheFiguresOfItsOwnRows() throws {
        try TestDatabase.with { database in
            let db = try database.connect()
            let runID: Int64
            do {
                // The dead run: its row and liveness lock on one connection, its writes on another.
                let owner = try database.connect()
                runID = try RunStore(connection: owner).start(
                    kind: .nightly, options: RunOptions(asOf: Self.asOf, startedAt: Self.asOf))
                try Self.writeUsers(runID: runID, on: try database.connect())
                // PostgreSQL restarted under it: the session ends, and with it the liveness lock.
                try db.execute("SELECT pg_terminate_backend(\(Int(owner.backendPID))::int)")
                try Self.waitUntilGone(owner.backendPID, on: db)
            }
            let expected = try Self.counted(runID: runID, on: db)
            #expect(expected["corrections"] == 5 && expected["revoked_users"] == 2 && expected["users_processed"] == 5)

            #expect(try RunStore(connection: db).interruptAbandonedRuns() == [runID])
            let recorded = try Self.recorded(runID: runID, on: db)
            #expect(recorded.status == "interrupted")
            #expect(recorded.columns == expected)
            let summary = try #require(recorded.summary, "an interrupted run's row carries a summary for report")
            let breakdowns = try Self.breakdowns(runID: runID, on: db)
            #expect(summary.status == .interrupted)
            #expect(summary.corrections == breakdowns.corrections)
            #expect(summary.flags == breakdowns.flags)
            #expect(summary.outcomes == [.valid: 4, .misrouted: 1, .invalid: 1, .unverified: 1])
            #expect(summary.appleStatuses == ["0": 6, "none": 1])
            #expect(summary.receiptsProcessed == 7 && summary.usersProcessed == 5 && summary.revokedUsers == 2)
            #expect(summary.exitCode == nil, "no process lived to exit")
            #expect(summary.abortReason?.contains("ended without finishing") == true)
            // The shared-transaction scan it never ran leaves no scratch rows behind.
            #expect(
                try db.query("SELECT count(*) AS n FROM recon_run_transactions WHERE run_id = \(runID)").first!
                    .decode("n", as: Int.self) == 0)
            // Recovered once: a second look finds nothing to do.
            #expect(try RunStore(connection: db).interruptAbandonedRuns().isEmpty)
        }
    }

    @Test func aRunThatStopsRecordsWhatItsRowsSayNotWhatItsCountersClaim() throws {
        try TestDatabase.with { database in
            let db = try database.connect()
            let store = RunStore(connection: try database.connect())
            let options = RunOptions(asOf: Self.asOf, startedAt: Self.asOf)
            let runID = try store.start(kind: .nightly, options: options)
            try Self.writeUsers(runID: runID, on: try database.connect())
            // The counters are ahead of what committed: a batch they counted never reached the database.
            let counters = RunCounters(summary: RunSummary())
            counters.addSelected(users: 40, receipts: 60)
            for _ in 0..<30 {
                counters.addUser(outcomes: [.valid, .unverified], appleStatuses: [0, nil], revoked: true)
            }
            let control = RunControl(
                breaker: CircuitBreaker(maxUnverifiedRatio: 1, maxRevokeRatio: 1), writerCount: 1)
            control.stop(.failed(reason: "database error while writing user results: gone", exitCode: .unavailable))

            let outcome = try RunFinish(
                runID: runID, kind: .nightly, options: options, log: EventLog(enabled: false)
            ).finish(counters: counters, control: control, store: store, subjectUserID: nil)
            let expected = try Self.counted(runID: runID, on: db)
            let recorded = try Self.recorded(runID: runID, on: db)
            #expect(outcome.exitCode == .unavailable)
            #expect(recorded.status == "failed")
            #expect(recorded.columns == expected)
            #expect(outcome.summary.receiptsProcessed == 7 && outcome.summary.usersProcessed == 5)
            #expect(outcome.summary.outcomes == [.valid: 4, .misrouted: 1, .invalid: 1, .unverified: 1])
            #expect(outcome.summary.revokedUsers == 2)
            #expect(recorded.summary?.outcomes == outcome.summary.outcomes)
            #expect(try recorded.summary?.corrections == Self.breakdowns(runID: runID, on: db).corrections)
            // What only the process knew stays: what it selected.
            #expect(outcome.summary.receiptsSelected == 60 && outcome.summary.usersSelected == 40)
        }
    }
}

extension RunRowRebuildTests {
    @Test func aRunAnErrorEndedIsRecordedFailedWithItsRowsFiguresOnce() throws {
        try TestDatabase.with { database in
            let db = try database.connect()
            let store = RunStore(connection: try database.connect())
            let runID = try store.start(
                kind: .user, options: RunOptions(asOf: Self.asOf, startedAt: Self.asOf), subjectUserID: "user-0")
            try Self.writeUsers(runID: runID, on: try database.connect())
            var known = RunSummary()
            known.runID = runID
            known.kind = .user
            known.receiptsSelected = 9
            let failure = RunFailure(
                PostgresError(kind: .connection, message: "server closed the connection unexpectedly"),
                summary: known, reason: "the run failed: server closed the connection unexpectedly")
            #expect(failure.exitCode == .unavailable)

            let recorded = try store.recordFailure(failure.summary)
            let row = try Self.recorded(runID: runID, on: db)
            #expect(row.status == "failed")
            #expect(try row.columns == Self.counted(runID: runID, on: db))
            #expect(recorded.receiptsProcessed == 7 && recorded.receiptsSelected == 9)
            #expect(row.summary?.abortReason == "the run failed: server closed the connection unexpectedly")
            let exitCode: Int? = try db.query("SELECT exit_code FROM recon_runs WHERE id = \(runID)").first!
                .decode("exit_code")
            #expect(exitCode == 69)

            // A row already finished keeps what it says; the caller gets that back.
            var later = failure.summary
            later.abortReason = "another error"
            #expect(try store.recordFailure(later).abortReason == recorded.abortReason)
            #expect(try Self.recorded(runID: runID, on: db).summary?.abortReason == recorded.abortReason)
        }
    }

    @Test func theTextOfARecoveredRunSaysItsSelectionIsUnknown() {
        var summary = RunSummary()
        summary.receiptsProcessed = 7
        summary.usersProcessed = 5
        #expect(summary.text.contains("Receipts: 7 processed, 5 users (the selection was not recorded)"))
        summary.receiptsSelected = 9
        summary.usersSelected = 6
        #expect(summary.text.contains("Receipts: 7 of 9 selected, 5 of 6 users"))
    }
}
