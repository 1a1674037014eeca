extension ExpectedHelp {
    /// `receipt-recon mapping --help`, whole.
    static let mapping = #"""
        USAGE: receipt-recon mapping FILE [--part admin|schema|grants]...

        Print the views, sync triggers and GRANTs that map your own tables onto the job's, from a mapping file.

        FILE says which of your tables and columns are the contract's products, receipts, entitlements and sandbox_testers, the kind of each product (no default: a kind the file does not state reads as NULL, which migrate --check and run refuse naming the product), how user ids and receipt keys convert (bigint, integer, uuid or text; a uuid receipt key gets a stable bigint id), and the job's schema and roles (docs/mapping.md). The SQL comes in three parts, printed in order unless --part picks: 'admin' (an administrator, once: the schema, the owner's privileges on your tables, both roles' search path, an index), 'schema' (the owner, before 'receipt-recon migrate', in one transaction: views, the entitlements table and its sync triggers), 'grants' (the owner, after migrate: the nightly role's privileges). Nothing is executed: pipe each part to psql as its role. 'receipt-recon migrate --check --mapping FILE' then says whether the database holds what FILE maps.

        OPTIONS:
          --part admin|schema|grants  print only this part (repeat for several), in the order above (default: all three)
          --env-file PATH             read configuration variables from PATH: KEY=VALUE lines in the nightly wrapper's format (cron/env.example), read as data; a variable set in the environment, and a flag, override the file's
          --help                      show this help

        EXIT CODES:
          0    completed; every selected receipt was answered conclusively (permanently unverified ones are flagged and counted apart), or the night's request budget ran out (the reason says so)
          64   usage error (bad flag, bad value, bad date)
          78   configuration error: missing/invalid configuration, database not migrated or of the wrong shape, a products kind none of the four (or NULL) or products the receipts name that it lacks, an empty receipts beside active app_store entitlements, Apple status 21004 or 21000

        """#
}
