extension ExpectedHelp {
    /// `receipt-recon demo --help`, whole.
    static let demo = #"""
        USAGE: receipt-recon demo [--users N] [--output-dir DIR] [--backend verify-receipt|server-api] [--database-url URL]

        Run the whole job end to end on a throwaway PostgreSQL and the built-in App Store simulator.

        Starts a temporary PostgreSQL cluster and removes it afterwards, unless --database-url names an empty database; DATABASE_URL is never used, since the demo seeds and changes its database. Seeds a drifted world, runs the nightly job, writes the CSVs and the HTML report to DIR, and re-verifies one user the way support would.

        OPTIONS:
          --users N                           users in the seeded world, at least 1000 (a smaller world is mostly drift scenarios, and the revoke breaker would rightly stop the run) (default: 2000)
          --output-dir DIR                    where the CSVs and the report go (default: ./demo-output)
          --backend verify-receipt|server-api  the backend the demo's run uses: the simulator answers both APIs (default: verify-receipt)
          --database-url URL                  use this empty database instead of a throwaway cluster (DATABASE_URL is ignored) (default: a throwaway cluster)
          --env-file PATH                     read configuration variables from PATH: KEY=VALUE lines in the nightly wrapper's format (cron/env.example), read as data; a variable set in the environment, and a flag, override the file's
          --help                              show this help

        EXIT CODES:
          0    completed; every selected receipt was answered conclusively (permanently unverified ones are flagged and counted apart), or the night's request budget ran out (the reason says so)
          64   usage error (bad flag, bad value, bad date)
          65   data error (verify-user: user has no receipts and no entitlements; inspect: not a receipt, or a signature that fails; revert: an unknown run, a dry run or a revert)
          69   unavailable: database or Apple unreachable (a night of nearly only transient failures, at any size), a circuit breaker tripped (nothing taken away), or verify-user found the hour's request budget spent
          70   internal error
          77   permission denied: the database role lacks a privilege (the message names the GRANT)

        """#
}
