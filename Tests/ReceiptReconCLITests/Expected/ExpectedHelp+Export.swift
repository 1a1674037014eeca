extension ExpectedHelp {
    /// `receipt-recon export --help`, whole.
    static let export = #"""
        USAGE: receipt-recon export VIEW --from T --to T [--output FILE] [--format csv|xlsx] [--environment production|sandbox|all] [--include-dry-runs] | export corrections|flags --run ID [--from T --to T] [--output FILE] [--format csv|xlsx]

        Write a reconciliation CSV or xlsx for finance: transactions, refunds, corrections, flags or notifications_unmatched.

        Each VIEW's range filters one column: transactions on purchased_at (when bought); refunds on cancelled_at (when Apple says the refund happened, whenever the purchase was: the transaction's columns, then refund_run_id, refund_recorded_at and refunded_amount); corrections and flags on created_at (when the run wrote the row); notifications_unmatched on received_at (Apple's notifications about purchases no stored row holds). The range is half-open [from, to) in UTC; T is YYYY-MM-DD or an ISO 8601 instant. RFC 4180 CSV, UTF-8, CRLF, stable order; --format xlsx writes a workbook instead whose ids are text (a spreadsheet opening the CSV keeps 15 digits of a 16-digit transaction id), instants dates in UTC and prices numbers. Corrections and flags leave out dry runs unless --include-dry-runs; --run ID exports one run (a dry run too), the range then optional. With --output, FILE.manifest.json records rows, sha256, the runs included and the dry runs left out.

        OPTIONS:
          --from T                            start of the range, inclusive (required without --run)
          --to T                              end of the range, exclusive (required without --run)
          --output FILE                       write the export to FILE and a manifest beside it (default: stdout)
          --format csv|xlsx                   csv (CONTRACT §8) or an xlsx workbook that keeps 16-digit ids, dates and numbers as they are (default: csv)
          --environment production|sandbox|all  transactions and refunds: which App Store environment's rows (default: production)
          --include-dry-runs                  corrections and flags: keep the rows of dry runs (never applied) beside the real runs' (default: left out)
          --run ID                            corrections and flags: only the rows of run ID (recon_runs.id), dry run or not
          --database-url URL                  libpq conninfo string or postgresql:// URI (overrides DATABASE_URL) (default: libpq defaults)
          --env-file PATH                     read configuration variables from PATH: KEY=VALUE lines in the nightly wrapper's format (cron/env.example), read as data; a variable set in the environment, and a flag, override the file's
          --help                              show this help

        CONFIGURATION (environment; a flag of the same meaning overrides it):
          DATABASE_URL  libpq conninfo string or postgresql:// URI (--database-url); default: libpq's PG* defaults

        EXIT CODES:
          0    the CSV was written (to stdout, or to FILE with its manifest); an empty range is no error
          64   usage error (unknown VIEW, bad range, an option the view does not take)
          65   --run ID names no run in recon_runs
          69   unavailable: the database is unreachable
          70   internal error, or FILE cannot be written
          77   permission denied: the database role lacks a privilege (the message names the GRANT)
          78   configuration error: DATABASE_URL is invalid, or the database is not migrated ('receipt-recon migrate') or its job tables have another shape

        """#
}
