extension ExpectedHelp {
    /// `receipt-recon simulator seed --help`, whole.
    static let simulatorSeed = #"""
        USAGE: receipt-recon simulator seed --database-url URL --users N --seed S --as-of T --expected FILE [--pki-dir DIR [--new-pki]] [--schema NAME]

        Seed products, receipts and entitlements that drifted from the simulated App Store in known ways.

        Migrates the database if needed, then fills the app's empty tables (products, receipts, entitlements, sandbox_testers) in one transaction. FILE receives, as JSON, the corrections and flags a correct 'receipt-recon run --older-than 0 --as-of T' must produce against 'simulator serve' with the same --users/--receipts, --seed, --as-of and --environment. The file states the run it is for: by default a run with --bundle-id com.example.recon (APPLE_BUNDLE_IDS), --sandbox-policy revoke and --backend verify-receipt; with --backend server-api, StoreKit 2 rows are judged by Apple's state at T (receipt rows expect the same under both backends, deleted Apple accounts aside: 21010 is invalid, 4040001 a permanent unverified), and the file also states the run's refunded amount per currency. With --pki-dir DIR, seeding signs with a throwaway chain with Apple's OIDs kept in DIR (apple-root.der, apple-intermediate.der, apple-leaf.der, apple-leaf-key.p8, and the RSA receipt leaf apple-receipt-leaf.der, apple-receipt-leaf-key.p8 that signs app receipts) beside an App Store Server API key (api-key.p8, api-key-id, api-issuer-id) for --backend server-api and 'simulator serve', and adds StoreKit 2 users whose rows hold JWS signed by it; the run must then trust DIR/apple-root.der (--apple-root-certificate), and 'simulator serve' be given the same --pki-dir. A DIR that already holds all nine files is reused as it is, so databases seeded into one DIR stay valid together; an empty or missing DIR gets a new set; --new-pki mints a new set over what is there (databases seeded with the old one then fail to verify). A DIR holding only some of the files (one seeded before the receipt leaf existed among them) is refused. For staging and tests only: never point a production run at that root. With --changed-fraction F (needs --pki-dir and --backend server-api; give serve the same options), the world is incremental: one StoreKit 2 user per row, verified by a correct previous run at --changed-since before --as-of (its recon_runs, recon_receipt_state, recon_user_state, recon_transactions and recon_notification_cursor rows are seeded too), F of them changed at Apple since, the app having missed the notifications of --missed-fraction of those; FILE then expects 'run --backend server-api' without --older-than to correct exactly the missed users. With --schema NAME, only the four contract-shaped application tables are created, in schema NAME (created if missing), and seeded there: a staging copy of the world to fill one's own tables from, and rehearse one's own mapping against (docs/simulator.md, "Rehearsing your own mapping"). A database whose products is a view (one mapped onto an app's own tables) is refused without --schema: seeding writes the contract's tables, never an app's.

        OPTIONS:
          --users N                           users in the world (default: 2000)
          --receipts N                        instead of --users: about N receipt rows (benchmarks)
          --seed S                            random seed; the same seed gives the same world (default: 1)
          --as-of T                           the instant the world is seen at (ISO 8601); give the same T to seed and serve (default: now)
          --environment production|sandbox    the environment the app's database serves: production (a live app) or sandbox (a staging backend) (default: production)
          --changed-fraction F                an incremental world (needs --pki-dir): StoreKit 2 users the job verified at --changed-since, F of them changed at Apple since; give the same incremental options to seed and serve
          --changed-since AGE                 with --changed-fraction: the previous run, this long before --as-of (at most 20d) (default: 1d)
          --missed-fraction M                 with --changed-fraction: the share of changed users whose notifications the app missed (default: 0.5)
          --last-verified-nights D            with --changed-fraction: users were last verified 0 to D-1 days before --changed-since (default: 30)
          --expected FILE                     where to write the expected corrections and flags (JSON)
          --bundle-id ID                      expectation: the run's accepted bundle ids (default: com.example.recon)
          --no-bundle-check                   expectation: the run has no APPLE_BUNDLE_IDS
          --sandbox-policy revoke|flag        expectation: the run's --sandbox-policy (default: revoke)
          --backend verify-receipt|server-api  expectation: the run's --backend (default: verify-receipt)
          --pki-dir DIR                       sign StoreKit 2 users with the throwaway chain in DIR, minted there if DIR has none (staging only)
          --new-pki                           with --pki-dir: mint a new chain and API key, replacing those in DIR
          --schema NAME                       create the contract's four application tables in schema NAME and seed them there, nothing else (a staging copy to rehearse a mapping against)
          --database-url URL                  libpq conninfo string or postgresql:// URI (overrides DATABASE_URL) (default: libpq defaults)
          --env-file PATH                     read configuration variables from PATH: KEY=VALUE lines in the nightly wrapper's format (cron/env.example), read as data; a variable set in the environment, and a flag, override the file's
          --help                              show this help

        CONFIGURATION (environment; a flag of the same meaning overrides it):
          DATABASE_URL  libpq conninfo string or postgresql:// URI (--database-url); default: libpq's PG* defaults

        EXIT CODES:
          0    seeded; the expected file written when --expected was given
          64   usage error (bad flag, bad value, bad date)
          65   the app's tables are not empty (seed a fresh database), or the expected file or the signing chain cannot be written
          69   unavailable: the database is unreachable
          70   internal error
          77   permission denied: the database role lacks a privilege (the message names the GRANT)
          78   configuration error: DATABASE_URL is invalid, or the database is not migrated ('receipt-recon migrate') or its job tables have another shape; a --pki-dir holding only some of its files, or files it cannot read

        """#
}
