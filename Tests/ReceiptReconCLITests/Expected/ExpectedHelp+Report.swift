extension ExpectedHelp {
    /// `receipt-recon report --help`, whole.
    static let report = #"""
        USAGE: receipt-recon report [--run ID | --last] [--json | --html FILE]
               receipt-recon report --list [--limit N] [--json]
               receipt-recon report --compare RUN_A RUN_B [--json]
               receipt-recon report --user USER_ID [--json]

        Print a past run's summary (text, --json), or write it as a self-contained HTML page.

        Without --run, the last complete nightly run is reported: the newest nightly run of any shard that finished with status completed or partial (every due user handled; partial: some receipts stayed unverified) and was not a dry run. Runs stopped by a breaker, an error or a signal, runs still going, dry runs, verify-user runs and reverts are reported with --run ID; --list shows them all, newest first: id, kind, dry run, status, backend, shard, start, corrections, exit code and why it stopped (cut to one line; --json and --run ID give the whole reason). --compare lists every user whose corrections (entitlement, action, reason; applied or planned) or flag kinds differ between two runs, one line per user with what each run has and the other lacks, then the count: run one backend with --dry-run beside a run of the other, and compare them before switching.

        OPTIONS:
          --run ID               the run to report (recon_runs.id)
          --last                 the last complete nightly run that was not a dry run, of any shard (the default)
          --list                 list the recorded runs, newest first (--json: one array)
          --limit N              with --list: how many runs (default: 20)
          --json                 one JSON object on stdout
          --html FILE            write an HTML report with a chart of the last 30 runs
          --compare RUN_A RUN_B  the users two runs decided differently about
          --user USER_ID         as verify-user USER_ID --explain: show why the user's access changed, from the job's records only (no Apple request, nothing written): the last 10 corrections across runs, newest first, and the flags of the last run that judged the user, each with the Apple fact behind it; --json for the structured evidence
          --database-url URL     libpq conninfo string or postgresql:// URI (overrides DATABASE_URL) (default: libpq defaults)
          --env-file PATH        read configuration variables from PATH: KEY=VALUE lines in the nightly wrapper's format (cron/env.example), read as data; a variable set in the environment, and a flag, override the file's
          --help                 show this help

        CONFIGURATION (environment; a flag of the same meaning overrides it):
          DATABASE_URL  libpq conninfo string or postgresql:// URI (--database-url); default: libpq's PG* defaults

        EXIT CODES:
          0    printed (or the HTML page written); two runs that differ are findings, not a failure
          64   usage error (bad flag, bad value, bad date)
          65   no such run, a run without a summary yet (still going), no complete nightly run for --last, a --user the database knows nothing of, or an HTML file that cannot be written
          69   unavailable: the database is unreachable
          70   internal error
          77   permission denied: the database role lacks a privilege (the message names the GRANT)
          78   configuration error: DATABASE_URL is invalid, or the database is not migrated ('receipt-recon migrate') or its job tables have another shape

        """#
}
