extension ExpectedHelp {
    /// `receipt-recon revert --help`, whole.
    static let revert = #"""
        USAGE: receipt-recon revert --run ID [--dry-run] [--json]

        Undo what one run changed: put its entitlements back as they were before it.

        Restores every entitlement run ID changed (its applied corrections) to its state before the run: active and expires_at as the correction's before_* recorded them; a row the run created is made inactive. An entitlement that changed since (a later run or verify-user corrected it, the app rewrote it, its row is gone or no longer app_store) is listed and left alone. The revert is a run of its own (kind revert) whose corrections have reason reverted and name the correction they undo; one transaction writes it all, so a kill leaves nothing half done. A second revert of the same run changes nothing. It takes the reverted night's shard lock (exit 75 while a night of that shard is going) and refuses a run still going (75), a dry run and a revert (65). --dry-run records the revert's corrections with applied = false and changes no entitlement.

        OPTIONS:
          --run ID            the run to undo (recon_runs.id; 'report --list' lists them)
          --dry-run           change no entitlement: record the corrections the revert would write, applied = false
          --json              print one JSON object on stdout (status, exitCode, reason, runID, revertedRunID, restored, leftAlone, alreadyReverted); on failure too
          --database-url URL  libpq conninfo string or postgresql:// URI (overrides DATABASE_URL) (default: libpq defaults)
          --env-file PATH     read configuration variables from PATH: KEY=VALUE lines in the nightly wrapper's format (cron/env.example), read as data; a variable set in the environment, and a flag, override the file's
          --help              show this help

        CONFIGURATION (environment; a flag of the same meaning overrides it):
          DATABASE_URL  libpq conninfo string or postgresql:// URI (--database-url); default: libpq's PG* defaults

        EXIT CODES:
          0    completed; every selected receipt was answered conclusively (permanently unverified ones are flagged and counted apart), or the night's request budget ran out (the reason says so)
          64   usage error (bad flag, bad value, bad date)
          65   data error (verify-user: user has no receipts and no entitlements; inspect: not a receipt, or a signature that fails; revert: an unknown run, a dry run or a revert)
          69   unavailable: database or Apple unreachable (a night of nearly only transient failures, at any size), a circuit breaker tripped (nothing taken away), or verify-user found the hour's request budget spent
          70   internal error
          75   another run holds the lock, or the run was interrupted; nothing more was done
          77   permission denied: the database role lacks a privilege (the message names the GRANT)
          78   configuration error: missing/invalid configuration, database not migrated or of the wrong shape, a products kind none of the four (or NULL) or products the receipts name that it lacks, an empty receipts beside active app_store entitlements, Apple status 21004 or 21000

        """#
}
