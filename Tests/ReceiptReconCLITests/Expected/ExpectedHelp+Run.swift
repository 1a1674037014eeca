extension ExpectedHelp {
    /// `receipt-recon run --help`, whole.
    static let run = #"""
        USAGE: receipt-recon run [options]

        The nightly batch: re-verify due receipts with Apple and correct entitlements that drifted.

        Selects receipts not verified within --older-than (with --backend server-api: the users Apple's notification history names, the users never verified and a sweep of the longest-unverified), verifies them under the rate limit and --max-requests-per-hour for every shard together (production first, sandbox on 21007; requests to the sandbox are paced and budgeted apart, by --sandbox-rate and --sandbox-max-requests-per-hour, a tenth of production's by default as Apple's sandbox limits are), computes each user's truth from all their receipts and writes results, flags and corrections per user in one transaction. Safe to repeat, safe to kill; one run per shard at a time. Circuit breakers stop it before a bad night at Apple can revoke paying users.

        OPTIONS:
          --dry-run                           compute and record everything, change no entitlement
          --as-of T                           judge every user at instant T (ISO 8601); default: each user when Apple answers (default: live)
          --rate R                            most requests per second to each Apple endpoint, retries and re-routes included; without --rate, --shard I/N (N > 1) divides the default by N so that all N shards together keep to it (default: 20, or 20/N with --shard I/N)
          --sandbox-rate R                    most requests per second to each Apple endpoint in the sandbox (a sandbox database, or hops to the sandbox), paced apart from production; Apple's sandbox limits are a tenth of production's (default: a tenth of the production rate in effect: 2, or 2/N with --shard I/N)
          --concurrency N                     most requests in flight (default: 8)
          --timeout S                         per-request timeout, seconds (default: 30)
          --max-attempts N                    attempts per endpoint for retryable failures (default: 4)
          --sandbox-policy revoke|flag        what a receipt from the wrong environment does to entitlements (default: revoke)
          --max-unverified-ratio X            circuit breaker: stop when unverified/processed exceeds X (after 100 receipts) (default: 0.10)
          --max-revoke-ratio X                circuit breaker: stop when revoked users/processed users exceeds X (after 100 receipts) (default: 0.20)
          --json                              print the summary as one JSON object on stdout; on failure too, with status, exitCode and reason
          --metrics-file PATH                 write Prometheus text-format metrics for node_exporter's textfile collector (atomically) at every end of the run once its options were understood, a run that never started included; the last success is carried forward, a dry run's series kept apart
          --http-client curl|urlsession       how requests reach Apple: libcurl, or Foundation's URLSession at about ten times the CPU per request (overrides RECON_HTTP_CLIENT) (default: curl)
          --db-reconnect-window S             when the database connection drops mid-run, keep reconnecting for S seconds before giving up with 69 (overrides RECON_DB_RECONNECT_WINDOW) (default: 120)
          --max-answer-bytes N                abandon an Apple answer larger than N bytes (retried, then unverified; overrides RECON_MAX_ANSWER_BYTES) (default: 8388608)
          --max-retry-wait S                  longest wait before a retry, seconds; a Retry-After beyond it leaves the receipt unverified for this run (overrides RECON_MAX_RETRY_WAIT) (default: 300)
          --max-requests-per-hour N           most Apple requests per endpoint per clock hour for all shards together, kept through PostgreSQL (overrides RECON_MAX_REQUESTS_PER_HOUR) (default: 90000)
          --sandbox-max-requests-per-hour N   most Apple requests per endpoint per clock hour in the sandbox (a sandbox database, or hops to the sandbox), all shards together, counted apart from production's (overrides RECON_SANDBOX_MAX_REQUESTS_PER_HOUR) (default: a tenth of --max-requests-per-hour: 9000)
          --older-than D                      re-verify receipts last verified before now minus D (90m, 20h, 7d, 0); with --backend server-api and notifications, only when given (default: 20h)
          --limit N                           at most N receipts this run (default: none)
          --shard I/N                         handle only users in part I (0-based) of N disjoint hash parts; the nightly lock is per shard (default: 0/1)
          --notifications-since DURATION      with --backend server-api, a first run (no cursor yet) reads Apple's notification history from now minus DURATION (3 days, 72h) (default: 3 days)
          --no-notifications                  do not read Apple's notification history: select by --older-than alone, as with verifyReceipt
          --sweep-days D                      with --backend server-api, besides the notified users take enough of the longest-unverified users that everyone is re-verified at least every D days (overrides RECON_SWEEP_DAYS) (default: 30)
          --budget-hours H                    the night's budget: a run whose hour of --max-requests-per-hour is spent waits for the next hour until it is H hours old, then ends completed (overrides RECON_BUDGET_HOURS) (default: 8)
          --database-url URL                  libpq conninfo string or postgresql:// URI (overrides DATABASE_URL) (default: libpq defaults)
          --shared-secret-file PATH           read the App Store shared secret from PATH (overrides APPLE_SHARED_SECRET)
          --bundle-id ID                      accepted bundle id; repeatable (overrides APPLE_BUNDLE_IDS) (default: no check)
          --app-apple-id BUNDLE_ID=APPLE_ID   an app's Apple ID (App Store Connect > App Information > Apple ID), checked against production notifications' appAppleId; repeatable (overrides APPLE_APP_APPLE_IDS) (default: none)
          --production-url URL                verifyReceipt production endpoint (default: https://buy.itunes.apple.com/verifyReceipt)
          --sandbox-url URL                   verifyReceipt sandbox endpoint (default: https://sandbox.itunes.apple.com/verifyReceipt)
          --environment production|sandbox    the App Store environment this database serves (overrides RECON_ENVIRONMENT) (default: production)
          --apple-root-certificate PATH       trust this root (DER or PEM) instead of the built-in ones (Apple Root CA - G3 for signed data, Apple Inc. Root CA for app receipts); repeatable; staging and tests only (overrides APPLE_ROOT_CERTIFICATES) (default: built in)
          --backend verify-receipt|server-api  how receipts are re-verified (overrides RECON_BACKEND) (default: server-api with any API key setting, else verify-receipt)
          --api-key-file PATH                 App Store Connect In-App Purchase key (.p8) for the App Store Server API (overrides APPLE_API_KEY_FILE)
          --api-key-id ID                     the API key's id (overrides APPLE_API_KEY_ID)
          --api-issuer-id ID                  the API key's issuer id (overrides APPLE_API_ISSUER_ID)
          --server-api-production-url URL     production App Store Server API base URL (default: https://api.storekit.apple.com)
          --server-api-sandbox-url URL        sandbox App Store Server API base URL (default: https://api.storekit-sandbox.apple.com)
          --env-file PATH                     read configuration variables from PATH: KEY=VALUE lines in the nightly wrapper's format (cron/env.example), read as data; a variable set in the environment, and a flag, override the file's
          --help                              show this help

        CONFIGURATION (environment; a flag of the same meaning overrides it):
          DATABASE_URL                         libpq conninfo string or postgresql:// URI (--database-url); default: libpq's PG* defaults
          APPLE_SHARED_SECRET                  app-specific shared secret, sent as 'password' (or --shared-secret-file PATH)
          APPLE_BUNDLE_IDS                     accepted bundle ids, comma-separated; others are flagged bundle_mismatch; required by server-api, whose JWT names the first for rows naming none (--bundle-id)
          APPLE_APP_APPLE_IDS                  each app's Apple ID as bundle_id=apple_id pairs, comma-separated; checked against production notifications' appAppleId; required for server-api production nights (--app-apple-id)
          APPLE_VERIFY_URL_PRODUCTION          verifyReceipt production endpoint (--production-url)
          APPLE_VERIFY_URL_SANDBOX             verifyReceipt sandbox endpoint (--sandbox-url)
          RECON_ENVIRONMENT                    production or sandbox: the App Store environment this database serves (--environment)
          APPLE_ROOT_CERTIFICATES              root certificate files (DER or PEM, comma-separated) that replace the built-in roots (Apple Root CA - G3 for signed data, Apple Inc. Root CA for app receipts); staging and tests only (--apple-root-certificate)
          RECON_HTTP_CLIENT                    curl or urlsession: how requests reach Apple (--http-client); default: curl
          RECON_DB_RECONNECT_WINDOW            seconds to keep reconnecting when the database drops mid-run (--db-reconnect-window); default: 120
          RECON_MAX_ANSWER_BYTES               abandon an Apple answer larger than this many bytes (--max-answer-bytes); default: 8388608 (8 MiB)
          RECON_MAX_RETRY_WAIT                 longest wait before a retry, seconds; a longer Retry-After leaves the receipt unverified (--max-retry-wait); default: 300
          RECON_BACKEND                        verify-receipt or server-api: how receipts are re-verified (--backend); default: server-api when any of the three APPLE_API_KEY_* / APPLE_API_ISSUER_ID settings is set (all three are then required), else verify-receipt
          APPLE_API_KEY_FILE                   App Store Connect In-App Purchase key (SubscriptionKey_KEYID.p8, PKCS#8 P-256, unencrypted, mode 0600) for the App Store Server API (--api-key-file)
          APPLE_API_KEY_ID                     the API key's id, the JWT kid: 10 upper-case letters and digits (--api-key-id)
          APPLE_API_ISSUER_ID                  the API key's issuer id, the JWT iss: a UUID (--api-issuer-id)
          APPLE_SERVER_API_URL_PRODUCTION      base URL of the production App Store Server API (--server-api-production-url)
          APPLE_SERVER_API_URL_SANDBOX         base URL of the sandbox App Store Server API (--server-api-sandbox-url)
          RECON_PROGRESS_INTERVAL              seconds between two event=run.progress log lines when stderr is not a terminal or with --json; default: 30
          RECON_SWEEP_DAYS                     re-verify every user at least every this many days (--sweep-days); default: 30
          RECON_MAX_REQUESTS_PER_HOUR          most Apple requests per endpoint per hour, all shards together (--max-requests-per-hour); default: 90000
          RECON_SANDBOX_MAX_REQUESTS_PER_HOUR  most Apple requests per endpoint per hour in the sandbox, all shards together (--sandbox-max-requests-per-hour); default: a tenth of --max-requests-per-hour (9000)
          RECON_BUDGET_HOURS                   hours a run keeps waiting for the next hour's request budget (--budget-hours); default: 8

        EXIT CODES:
          0    completed; every selected receipt was answered conclusively (permanently unverified ones are flagged and counted apart), or the night's request budget ran out (the reason says so)
          1    completed, but some receipts stayed transiently unverified (below the breaker threshold); the next night asks again
          64   usage error (bad flag, bad value, bad date)
          69   unavailable: database or Apple unreachable (a night of nearly only transient failures, at any size), a circuit breaker tripped (nothing taken away), or verify-user found the hour's request budget spent
          70   internal error
          75   another run holds the lock, or the run was interrupted; nothing more was done
          77   permission denied: the database role lacks a privilege (the message names the GRANT)
          78   configuration error: missing/invalid configuration, database not migrated or of the wrong shape, a products kind none of the four (or NULL) or products the receipts name that it lacks, an empty receipts beside active app_store entitlements, Apple status 21004 or 21000

        """#
}
