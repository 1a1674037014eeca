import AppStoreReceipts
import Postgres

/// The set-based steps at the end of a run: flags that need every user of the run, and the figures
/// read back from what was actually written.
public struct RunFinalizer {
    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Deletes the run's scratch rows (`recon_run_transactions`, `recon_run_queue`): once the run is over,
    /// however it ended, nobody reads them again.
    public func deleteScratchRows(runID: Int64) throws {
        try connection.execute("DELETE FROM recon_run_transactions WHERE run_id = \(runID)")
        try connection.execute("DELETE FROM recon_run_queue WHERE run_id = \(runID)")
    }

    /// `shared_transaction`: one original transaction on receipts of two or more users, in this run's
    /// answers or in what earlier runs recorded. One flag per receipt; its evidence names the original
    /// transaction and (at most ten of) the other users. Deletes the run's scratch rows.
    @discardableResult
    public func flagSharedTransactions(runID: Int64) throws -> Int {
        // The shared ids first, by a read-only statement, then the flags for those ids alone: PostgreSQL
        // runs no part of a data-modifying statement in parallel, and these two scans read the whole run
        // (and every recorded transaction) to find the few ids two users hold. The ids as two sets (ids two
        // users hold in the run; ids of the run that another user holds in `recon_transactions`), not an
        // `OR` of two `EXISTS` per row, which PostgreSQL never plans as a semi-join. "Two users" is
        // `min <> max` rather than `count(DISTINCT) > 1`, which sorts every row of the run to count.
        let shared: [String] = try connection.query(
            """
            SELECT original_transaction_id FROM recon_run_transactions WHERE run_id = \(runID)
            GROUP BY original_transaction_id HAVING min(user_id) <> max(user_id)
            UNION
            SELECT r.original_transaction_id FROM recon_run_transactions r
            WHERE r.run_id = \(runID)
              AND EXISTS (SELECT 1 FROM recon_transactions t
                          WHERE t.original_transaction_id = r.original_transaction_id AND t.user_id <> r.user_id)
            """
        ).map { try $0.decode("original_transaction_id") }
        // One flag per receipt; the evidence's `other_users` probes the indexes, for the flagged rows only.
        let flagged =
            shared.isEmpty
            ? 0
            : try connection.execute(
                """
                INSERT INTO recon_flags (run_id, receipt_id, user_id, kind, detail, evidence)
                SELECT DISTINCT ON (s.user_id, s.receipt_id) \(runID), s.receipt_id, s.user_id, 'shared_transaction',
                       'original transaction ' || s.original_transaction_id || ' is also on receipts of another user',
                       jsonb_strip_nulls(jsonb_build_object(
                           'rule', 'shared_transaction',
                           'as_of', \(unescaped: Self.instantText("(SELECT as_of FROM recon_runs WHERE id = \(runID))")),
                           'original_transaction_id', s.original_transaction_id,
                           'other_users', (SELECT jsonb_agg(u.user_id ORDER BY u.user_id) FROM (
                               SELECT o.user_id FROM recon_run_transactions o
                               WHERE o.run_id = \(runID) AND o.original_transaction_id = s.original_transaction_id
                                 AND o.user_id <> s.user_id
                               UNION
                               SELECT t.user_id FROM recon_transactions t
                               WHERE t.original_transaction_id = s.original_transaction_id AND t.user_id <> s.user_id
                               ORDER BY 1 LIMIT 10) u)))
                FROM recon_run_transactions s
                WHERE s.run_id = \(runID) AND s.original_transaction_id = ANY(\(shared))
                ORDER BY s.user_id, s.receipt_id, s.original_transaction_id
                ON CONFLICT DO NOTHING
                """)
        try deleteScratchRows(runID: runID)
        return flagged
    }

    /// `entitlement_without_receipt`: an active `app_store` entitlement of a user with no receipt at
    /// all. Flagged, never revoked (CONTRACT §5). One flag per user, naming the entitlements; its
    /// evidence holds the rows as they stood.
    /// - Parameter userID: only this user (verify-user); nil for every user of the shard.
    @discardableResult
    public func flagEntitlementsWithoutReceipt(runID: Int64, shardIndex: Int, shardCount: Int, userID: String?) throws
        -> Int
    {
        // The user's id is bound as a parameter; the shard predicate is built from two integers.
        let scope =
            userID == nil
            ? DueUserReader.shardPredicate(column: "e.user_id", count: shardCount, index: shardIndex)
            : "e.user_id = $2"
        let sql = """
            INSERT INTO recon_flags (run_id, receipt_id, user_id, kind, detail, evidence)
            SELECT $1, NULL, e.user_id, 'entitlement_without_receipt',
                   'active app_store entitlement without any receipt: ' || string_agg(e.entitlement, ', ' ORDER BY e.entitlement),
                   jsonb_strip_nulls(jsonb_build_object(
                       'rule', 'entitlement_without_receipt',
                       'as_of', \(Self.instantText("(SELECT as_of FROM recon_runs WHERE id = $1)")),
                       'entitlements', jsonb_agg(jsonb_build_object(
                           'entitlement', e.entitlement, 'expires_at', \(Self.instantText("e.expires_at")),
                           'product_id', e.product_id, 'original_transaction_id', e.original_transaction_id,
                           'updated_at', \(Self.instantText("e.updated_at"))) ORDER BY e.entitlement)))
            FROM entitlements e
            WHERE e.source = 'app_store' AND e.active
              AND NOT EXISTS (SELECT 1 FROM receipts r WHERE r.user_id = e.user_id)
              AND \(scope)
            GROUP BY e.user_id
            ON CONFLICT DO NOTHING
            """
        let binds = [runID.postgresBind] + (userID.map { [$0.postgresBind] } ?? [])
        return try connection.execute(PostgresQuery(unsafeSQL: sql, binds: binds))
    }

    /// SQL for a `timestamptz` expression as evidence writes instants (`Evidence+JSON`): ISO 8601 UTC,
    /// `.SSS` only when there are milliseconds. `expression` is SQL from this program's code.
    static func instantText(_ expression: String) -> String {
        "regexp_replace(to_char(\(expression) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), '\\.000Z$', 'Z')"
    }

    /// Everything the run's own rows say it did: results by outcome and Apple status, corrections by
    /// action and reason, flags by kind, the users touched and revoked, the refunds it recorded first.
    public func writtenFigures(runID: Int64) throws -> WrittenFigures {
        var figures = WrittenFigures()
        for row in try connection.query(
            """
            SELECT outcome, apple_status, count(*) AS n FROM recon_results WHERE run_id = \(runID)
            GROUP BY outcome, apple_status
            """)
        {
            let n: Int = try row.decode("n")
            let status: Int? = try row.decode("apple_status")
            figures.outcomes[try ReceiptOutcome(contractName: row.decode("outcome")), default: 0] += n
            figures.appleStatuses[status.map(String.init) ?? "none", default: 0] += n
        }
        for row in try connection.query(
            """
            SELECT action, reason, count(*) AS n FROM recon_corrections WHERE run_id = \(runID) GROUP BY action, reason
            """)
        {
            let action = try CorrectionAction(contractName: row.decode("action"))
            figures.corrections[action, default: [:]][try CorrectionReason(contractName: row.decode("reason"))] =
                try row.decode("n")
        }
        for row in try connection.query(
            "SELECT kind, count(*) AS n FROM recon_flags WHERE run_id = \(runID) GROUP BY kind")
        {
            figures.flags[try FlagKind(contractName: row.decode("kind"))] = try row.decode("n")
        }
        figures.refundedAmount = try refundedAmount(runID: runID, kind: .refund)
        figures.reversedRefundAmount = try refundedAmount(runID: runID, kind: .reversal)
        (figures.permanentlyUnverified, figures.newlyPermanentlyUnverified) = try permanentlyUnverified(runID: runID)
        // A user whose receipts were all written has results; corrections are unioned in for
        // verify-user's user without receipts.
        let totals = try connection.query(
            """
            SELECT (SELECT count(*) FROM (SELECT user_id FROM recon_results WHERE run_id = \(runID)
                                          UNION SELECT user_id FROM recon_corrections WHERE run_id = \(runID)) u) AS users,
                   (SELECT count(DISTINCT user_id) FROM recon_corrections
                    WHERE run_id = \(runID) AND action = 'revoke') AS revoked,
                   greatest((SELECT max(verified_at) FROM recon_results WHERE run_id = \(runID)),
                            (SELECT max(created_at) FROM recon_corrections WHERE run_id = \(runID)),
                            (SELECT max(created_at) FROM recon_flags WHERE run_id = \(runID))) AS last_written_at
            """
        ).first!
        figures.users = try totals.decode("users")
        figures.revokedUsers = try totals.decode("revoked")
        figures.lastWrittenAt = try totals.decode("last_written_at")
        return figures
    }

    /// The run's `unverified` results that are permanent (`recon_results.detail` ends with a permanent
    /// kind's explanation), and of those the ones whose receipt no earlier run found permanently unverified:
    /// what the summary reports the night they first appear.
    func permanentlyUnverified(runID: Int64) throws -> (all: Int, new: Int) {
        let suffixes = UnverifiedKind.permanentSuffixes
        let row = try connection.query(
            """
            SELECT count(*) AS n,
                   count(*) FILTER (WHERE NOT EXISTS (
                       SELECT 1 FROM recon_results p
                       WHERE p.receipt_id = r.receipt_id AND p.run_id < r.run_id AND p.outcome = 'unverified'
                         AND EXISTS (SELECT 1 FROM unnest(\(suffixes)::text[]) AS s(x)
                                     WHERE right(p.detail, length(s.x)) = s.x))) AS new
            FROM recon_results r
            WHERE r.run_id = \(runID) AND r.outcome = 'unverified'
              AND EXISTS (SELECT 1 FROM unnest(\(suffixes)::text[]) AS s(x) WHERE right(r.detail, length(s.x)) = s.x)
            """
        ).first!
        return (try row.decode("n"), try row.decode("new"))
    }

    /// The refunds the run recorded first, or the reversals it recorded of refunds earlier runs recorded
    /// (`recon_refund_events`, with the money fields as the refund was counted), summed for the
    /// environment the run's database serves: the run's own `RECON_ENVIRONMENT`, read from its row so
    /// that a run finished by another process (recovered, or recorded after a failure) is counted the
    /// same way.
    func refundedAmount(runID: Int64, kind: RefundedAmount.Event) throws -> [RefundedAmount] {
        let served: String? =
            try connection.query("SELECT options->>'environment' AS environment FROM recon_runs WHERE id = \(runID)")
            .first?.decode("environment", as: String?.self)
        // RunOptions' default; only a run row written by hand lacks it.
        let environment = served.flatMap(AppStoreEnvironment.init(rawValue:)) ?? .production
        let refunds = try connection.query(
            """
            SELECT price::text AS price, currency, environment, is_upgraded, ownership_type, revocation_type,
                   revocation_percentage::text AS revocation_percentage
            FROM recon_refund_events WHERE run_id = \(runID) AND kind = \(kind.rawValue)
            """
        ).map { row in
            let price: String? = try row.decode("price")
            let madeIn: String? = try row.decode("environment")
            let percentage: String? = try row.decode("revocation_percentage")
            return RefundedAmount.Refund(
                price: price.flatMap { CurrencyAmount(decimal: $0) }, currency: try row.decode("currency"),
                environment: madeIn.flatMap(AppStoreEnvironment.init(rawValue:)),
                isUpgraded: try row.decode("is_upgraded"), ownershipType: try row.decode("ownership_type"),
                revocationType: try row.decode("revocation_type"),
                revocationPercentage: percentage.flatMap { Percentage(decimal: $0) })
        }
        return RefundedAmount.figures(refunds, environment: environment)
    }
}
