extension ExpectedHelp {
    /// `receipt-recon migrate --help`, whole.
    static let migrate = #"""
        USAGE: receipt-recon migrate [--check [--mapping FILE] | --create-app-tables] [--database-url URL]

        Create or update the job's tables: apply pending SQL/NNNN_*.sql migrations in order.

        Each migration runs once, in its own transaction, and is recorded in recon_schema_migrations. Running it again is a no-op. Application tables that already exist (products, receipts, entitlements, sandbox_testers; tables or views) are kept with their rows, and must have the columns the job reads and writes: before changing anything, migrate compares them with what the job needs and exits 78 naming each missing or mistyped column. Absent ones are created, empty, where the search path holds no other tables (a new database); where it holds an app's own tables, migrate exits 78 naming the missing ones and changes nothing, unless --create-app-tables says to create them: an app's data is mapped onto the contract's names, not copied into new tables (docs/integration.md#mapping-an-existing-schema-a-walk). --check also reads what run and verify-user would refuse to start on: a products.kind none of the four (NULL included), an empty receipts beside active app_store entitlements, and a missing privilege. migrate itself needs CREATE on the schema and ownership of the job's tables: run it as their owner (recon_owner in docs/integration.md); as a role without them it exits 77 naming who can.

        OPTIONS:
          --check              change nothing: compare the application tables with what the job needs, check every products.kind and that receipts is not empty beside active app_store entitlements, and list pending migrations; test every privilege the job's statements need, for this role and for the owners of the views and trigger functions it writes through; exit 0 when the job can run, 78 naming each problem, 77 printing every missing privilege as one GRANT script
          --create-app-tables  create the missing application tables (empty) even though the search path holds other tables; for an app that has none of them yet, not for one whose data is in tables of its own (map those instead)
          --mapping FILE       with --check: also check that the views, tables and sync triggers FILE maps are there ('receipt-recon mapping FILE', docs/mapping.md)
          --database-url URL   libpq conninfo string or postgresql:// URI (overrides DATABASE_URL) (default: libpq defaults)
          --env-file PATH      read configuration variables from PATH: KEY=VALUE lines in the nightly wrapper's format (cron/env.example), read as data; a variable set in the environment, and a flag, override the file's
          --help               show this help

        CONFIGURATION (environment; a flag of the same meaning overrides it):
          DATABASE_URL  libpq conninfo string or postgresql:// URI (--database-url); default: libpq's PG* defaults

        EXIT CODES:
          0    completed; every selected receipt was answered conclusively (permanently unverified ones are flagged and counted apart), or the night's request budget ran out (the reason says so)
          64   usage error (bad flag, bad value, bad date)
          69   unavailable: database or Apple unreachable (a night of nearly only transient failures, at any size), a circuit breaker tripped (nothing taken away), or verify-user found the hour's request budget spent
          70   internal error
          77   permission denied: the database role lacks a privilege (the message names the GRANT)
          78   configuration error: missing/invalid configuration, database not migrated or of the wrong shape, a products kind none of the four (or NULL) or products the receipts name that it lacks, an empty receipts beside active app_store entitlements, Apple status 21004 or 21000

        """#
}
