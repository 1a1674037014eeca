extension ExpectedHelp {
    /// `receipt-recon --help`, whole.
    static let topLevel = #"""
        receipt-recon 0.1.0: re-verifies stored App Store receipts with Apple's verifyReceipt and
        corrects the entitlements that drifted from what was really bought, renewed or refunded.

        USAGE: receipt-recon COMMAND [options]

        COMMANDS:
          migrate       Create or update the job's tables: apply pending SQL/NNNN_*.sql migrations in order.
          mapping       Print the views, sync triggers and GRANTs that map your own tables onto the job's, from a mapping file.
          run           The nightly batch: re-verify due receipts with Apple and correct entitlements that drifted.
          verify-user   Re-verify all of one user's receipts now and apply (or, with --dry-run, show) corrections.
          export        Write a reconciliation CSV or xlsx for finance: transactions, refunds, corrections, flags or notifications_unmatched.
          report        Print a past run's summary (text, --json), or write it as a self-contained HTML page.
          revert        Undo what one run changed: put its entitlements back as they were before it.
          demo          Run the whole job end to end on a throwaway PostgreSQL and the built-in App Store simulator.
          inspect       Decode one receipt (base64 app receipt or iOS 6 transaction receipt), or verify Apple's signed data (a JWS: StoreKit 2 transaction, renewal info, notification, app transaction), and print it as JSON.
          simulator     The local App Store simulator: 'seed' a drifted database, 'serve' Apple's answers (verifyReceipt and, with --pki-dir, the App Store Server API).

        CONFIGURATION (environment; a flag of the same meaning overrides it):
          DATABASE_URL                  libpq conninfo string or postgresql:// URI (--database-url); default: libpq's PG* defaults
          APPLE_SHARED_SECRET           app-specific shared secret, sent as 'password' (or --shared-secret-file PATH)
          APPLE_BUNDLE_IDS              accepted bundle ids, comma-separated; others are flagged bundle_mismatch; required by server-api, whose JWT names the first for rows naming none (--bundle-id)
          APPLE_APP_APPLE_IDS           each app's Apple ID as bundle_id=apple_id pairs, comma-separated; checked against production notifications' appAppleId; required for server-api production nights (--app-apple-id)
          APPLE_VERIFY_URL_PRODUCTION   verifyReceipt production endpoint (--production-url)
          APPLE_VERIFY_URL_SANDBOX      verifyReceipt sandbox endpoint (--sandbox-url)
          RECON_ENVIRONMENT             production or sandbox: the App Store environment this database serves (--environment)
          APPLE_ROOT_CERTIFICATES       root certificate files (DER or PEM, comma-separated) that replace the built-in roots (Apple Root CA - G3 for signed data, Apple Inc. Root CA for app receipts); staging and tests only (--apple-root-certificate)
          RECON_HTTP_CLIENT             curl or urlsession: how requests reach Apple (--http-client); default: curl
          RECON_DB_RECONNECT_WINDOW     seconds to keep reconnecting when the database drops mid-run (--db-reconnect-window); default: 120
          RECON_MAX_ANSWER_BYTES        abandon an Apple answer larger than this many bytes (--max-answer-bytes); default: 8388608 (8 MiB)
          RECON_MAX_RETRY_WAIT          longest wait before a retry, seconds; a longer Retry-After leaves the receipt unverified (--max-retry-wait); default: 300
          RECON_BACKEND                 verify-receipt or server-api: how receipts are re-verified (--backend); default: server-api when any of the three APPLE_API_KEY_* / APPLE_API_ISSUER_ID settings is set (all three are then required), else verify-receipt
          APPLE_API_KEY_FILE            App Store Connect In-App Purchase key (SubscriptionKey_KEYID.p8, PKCS#8 P-256, unencrypted, mode 0600) for the App Store Server API (--api-key-file)
          APPLE_API_KEY_ID              the API key's id, the JWT kid: 10 upper-case letters and digits (--api-key-id)
          APPLE_API_ISSUER_ID           the API key's issuer id, the JWT iss: a UUID (--api-issuer-id)
          APPLE_SERVER_API_URL_PRODUCTION  base URL of the production App Store Server API (--server-api-production-url)
          APPLE_SERVER_API_URL_SANDBOX  base URL of the sandbox App Store Server API (--server-api-sandbox-url)
          RECON_PROGRESS_INTERVAL       seconds between two event=run.progress log lines when stderr is not a terminal or with --json; default: 30
          RECON_SWEEP_DAYS              re-verify every user at least every this many days (--sweep-days); default: 30
          RECON_MAX_REQUESTS_PER_HOUR   most Apple requests per endpoint per hour, all shards together (--max-requests-per-hour); default: 90000
          RECON_SANDBOX_MAX_REQUESTS_PER_HOUR  most Apple requests per endpoint per hour in the sandbox, all shards together (--sandbox-max-requests-per-hour); default: a tenth of --max-requests-per-hour (9000)
          RECON_BUDGET_HOURS            hours a run keeps waiting for the next hour's request budget (--budget-hours); default: 8

        EXIT CODES:
          0    completed; every selected receipt was answered conclusively (permanently unverified ones are flagged and counted apart), or the night's request budget ran out (the reason says so)
          1    completed, but some receipts stayed transiently unverified (below the breaker threshold); the next night asks again
          64   usage error (bad flag, bad value, bad date)
          65   data error (verify-user: user has no receipts and no entitlements; inspect: not a receipt, or a signature that fails; revert: an unknown run, a dry run or a revert)
          69   unavailable: database or Apple unreachable (a night of nearly only transient failures, at any size), a circuit breaker tripped (nothing taken away), or verify-user found the hour's request budget spent
          70   internal error
          75   another run holds the lock, or the run was interrupted; nothing more was done
          77   permission denied: the database role lacks a privilege (the message names the GRANT)
          78   configuration error: missing/invalid configuration, database not migrated or of the wrong shape, a products kind none of the four (or NULL) or products the receipts name that it lacks, an empty receipts beside active app_store entitlements, Apple status 21004 or 21000

        Run 'receipt-recon COMMAND --help' for a command's options. --version prints the version.

        """#
}
