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
}
