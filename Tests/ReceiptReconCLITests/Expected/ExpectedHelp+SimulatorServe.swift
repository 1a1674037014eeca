extension ExpectedHelp {
    /// `receipt-recon simulator serve --help`, whole.
    static let simulatorServe = #"""
        USAGE: receipt-recon simulator serve --port P --users N --seed S --as-of T [--latency-ms L] [--jitter-ms J] [--rate-limit R] [--fault-rate F]

        Serve POST /production/verifyReceipt, POST /sandbox/verifyReceipt, GET /stats and, with --pki-dir, the App Store Server API on loopback.

        Answers as Apple would at T for the world of the same --users/--receipts, --seed, --as-of and --environment as 'simulator seed'. Prints one line with the URLs once listening and ready (with --pki-dir: its notification history indexed); stops on SIGINT/SIGTERM. With a shared secret (APPLE_SHARED_SECRET or --shared-secret-file), receipts with subscriptions need it as 'password' (else status 21004). Give the --pki-dir given to 'simulator seed' when it had one: the world then includes its StoreKit 2 users (whose rows are never sent to verifyReceipt), and the App Store Server API is served for the same world under /production/inApps/... and /sandbox/inApps/... (Get Transaction History v2, Get All Subscription Statuses, Get Transaction Info), accepting only tokens signed with DIR/api-key.p8 (kid DIR/api-key-id, iss DIR/api-issuer-id) and signing every answer with DIR's chain; --rate-limit applies to each of its endpoints separately.

        OPTIONS:
          --users N                         users in the world (default: 2000)
          --receipts N                      instead of --users: about N receipt rows (benchmarks)
          --seed S                          random seed; the same seed gives the same world (default: 1)
          --as-of T                         the instant the world is seen at (ISO 8601); give the same T to seed and serve (default: now)
          --environment production|sandbox  the environment the app's database serves: production (a live app) or sandbox (a staging backend) (default: production)
          --changed-fraction F              an incremental world (needs --pki-dir): StoreKit 2 users the job verified at --changed-since, F of them changed at Apple since; give the same incremental options to seed and serve
          --changed-since AGE               with --changed-fraction: the previous run, this long before --as-of (at most 20d) (default: 1d)
          --missed-fraction M               with --changed-fraction: the share of changed users whose notifications the app missed (default: 0.5)
          --last-verified-nights D          with --changed-fraction: users were last verified 0 to D-1 days before --changed-since (default: 30)
          --port P                          TCP port on 127.0.0.1 (0 picks a free one) (default: 0)
          --latency-ms L                    fixed latency added to every answer (default: 0)
          --jitter-ms J                     random extra latency, uniform in [0, J] (default: 0)
          --rate-limit R                    answer 429 with Retry-After above R requests/s (default: none)
          --fault-rate F                    probability of an injected fault per request (21005, 21009, 21199, 503, resets, stalls) (default: 0)
          --fault-seed S                    seed of fault and jitter draws (default: --seed)
          --forged-notification-fraction F  the share of notification history records signed by a chain that is not Apple's (never to be believed) (default: 0)
          --stall-ms MS                     how long a stall holds a request before closing it (default: 60000)
          --shared-secret-file PATH         require this shared secret as 'password' (overrides APPLE_SHARED_SECRET)
          --pki-dir DIR                     the world of 'simulator seed --pki-dir DIR': with its StoreKit 2 users
          --env-file PATH                   read configuration variables from PATH: KEY=VALUE lines in the nightly wrapper's format (cron/env.example), read as data; a variable set in the environment, and a flag, override the file's
          --help                            show this help

        CONFIGURATION (environment; a flag of the same meaning overrides it):
          APPLE_SHARED_SECRET  app-specific shared secret, sent as 'password' (or --shared-secret-file PATH)

        EXIT CODES:
          0    served until SIGINT or SIGTERM stopped it
          64   usage error (bad flag, bad value, bad date)
          69   cannot listen on 127.0.0.1:P (the port is taken, or not allowed)
          70   internal error
          78   configuration error: no signing chain in --pki-dir, its files cannot be read, or the shared secret cannot be read

        """#
}
