extension ExpectedHelp {
    /// `receipt-recon inspect --help`, whole.
    static let inspect = #"""
        USAGE: receipt-recon inspect FILE|- [options]

        Decode one receipt (base64 app receipt or iOS 6 transaction receipt), or verify Apple's signed data (a JWS: StoreKit 2 transaction, renewal info, notification, app transaction), and print it as JSON.

        Reads FILE, or stdin with '-'; surrounding whitespace is ignored. No network. Signed data is verified as the job verifies it (ES256, x5c chain to Apple Root CA - G3 with Apple's OIDs, checked at the payload's signedDate) and printed with the verdict; it exits 65 when the verdict is invalid. The bundle id and environment are checked only when given (flags or APPLE_BUNDLE_IDS, RECON_ENVIRONMENT). An app receipt's PKCS#7 signature is verified as '--backend server-api' verifies it (signer chain to Apple Inc. Root CA, checked at the receipt's creation date) and printed as 'signature' (verified, failed with a 'reason', or not_applicable for an iOS 6 receipt) with 'checked_at' and the signer 'chain'; it exits 65 after printing when the signature failed. --apple-root-certificate replaces both built-in roots. The output is described in docs/signed-data.md.

        OPTIONS:
          --apple-root-certificate PATH     trust this root (DER or PEM) instead of the built-in ones (Apple Root CA - G3 for signed data, Apple Inc. Root CA for app receipts); repeatable; staging and tests only (overrides APPLE_ROOT_CERTIFICATES) (default: built in)
          --bundle-id ID                    signed data must carry one of these bundle ids (overrides APPLE_BUNDLE_IDS) (default: no check)
          --environment production|sandbox  signed data must be for this environment (overrides RECON_ENVIRONMENT) (default: no check)
          --env-file PATH                   read configuration variables from PATH: KEY=VALUE lines in the nightly wrapper's format (cron/env.example), read as data; a variable set in the environment, and a flag, override the file's
          --help                            show this help

        CONFIGURATION (environment; a flag of the same meaning overrides it):
          APPLE_ROOT_CERTIFICATES  root certificate files (DER or PEM, comma-separated) that replace the built-in roots (Apple Root CA - G3 for signed data, Apple Inc. Root CA for app receipts); staging and tests only (--apple-root-certificate)
          APPLE_BUNDLE_IDS         accepted bundle ids, comma-separated; others are flagged bundle_mismatch; required by server-api, whose JWT names the first for rows naming none (--bundle-id)
          RECON_ENVIRONMENT        production or sandbox: the App Store environment this database serves (--environment)

        EXIT CODES:
          0    completed; every selected receipt was answered conclusively (permanently unverified ones are flagged and counted apart), or the night's request budget ran out (the reason says so)
          64   usage error (bad flag, bad value, bad date)
          65   data error (verify-user: user has no receipts and no entitlements; inspect: not a receipt, or a signature that fails; revert: an unknown run, a dry run or a revert)
          70   internal error
          78   configuration error: missing/invalid configuration, database not migrated or of the wrong shape, a products kind none of the four (or NULL) or products the receipts name that it lacks, an empty receipts beside active app_store entitlements, Apple status 21004 or 21000

        """#
}
