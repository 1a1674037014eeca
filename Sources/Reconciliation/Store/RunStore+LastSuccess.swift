import Foundation
import Postgres

extension RunStore {
    /// When the last nightly run of `shard` that was not a dry run completed (exit 0 or 1) ended: what
    /// `receipt_recon_last_success_timestamp_seconds` says when no metrics file remembers it (a first
    /// file, a fresh container). Nil when there was none.
    public func lastSuccess(shard: String) throws -> Date? {
        try connection.query(
            """
            SELECT max(finished_at) AS finished_at FROM recon_runs
            WHERE kind = 'nightly' AND NOT dry_run AND shard = \(shard) AND status IN ('completed', 'partial')
            """
        ).first?.decode("finished_at")
    }

    /// Apple requests per user of the last nightly run of `shard` that was not a dry run and ran to the
    /// end (`apple_requests / users_processed`): what a user has cost lately, for the night's budget
    /// estimate. Every endpoint's requests count, so the estimate leans towards warning. Nil when there
    /// was none, or it took nobody.
    public func lastRequestsPerUser(shard: String) throws -> Double? {
        try connection.query(
            """
            SELECT apple_requests::float8 / users_processed AS per_user FROM recon_runs
            WHERE kind = 'nightly' AND NOT dry_run AND shard = \(shard) AND status IN ('completed', 'partial')
              AND users_processed > 0
            ORDER BY id DESC LIMIT 1
            """
        ).first?.decode("per_user")
    }

    /// The streaks of `shard`'s last nights (`NightStreaks`), from the summaries of its last nightly runs
    /// that were not dry runs and ran to the end, newest first. One that no longer decodes is skipped.
    public func nightStreaks(shard: String) throws -> NightStreaks {
        let summaries = try connection.query(
            """
            SELECT summary FROM recon_runs
            WHERE kind = 'nightly' AND NOT dry_run AND shard = \(shard) AND status IN ('completed', 'partial')
              AND summary IS NOT NULL
            ORDER BY id DESC LIMIT \(NightStreaks.window)
            """
        ).compactMap { row -> RunSummary? in
            guard let text: PostgresJSON = try row.decode("summary") else { return nil }
            return try? JSONDecoder.sorted.decode(RunSummary.self, from: Data(text.text.utf8))
        }
        return NightStreaks(newestFirst: summaries)
    }
}
