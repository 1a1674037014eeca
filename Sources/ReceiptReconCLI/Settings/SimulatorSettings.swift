import AppStoreReceipts
import AppStoreSimulator
import CommandLineOptions
import Foundation

/// The options of `simulator seed` and `simulator serve`: the world's (the same values give the same
/// world), then each subcommand's own.
enum SimulatorSettings {
    static let users = Setting<Int?>(
        option: OptionSpec("users", .value(placeholder: "N"), "users in the world", default: "2000"), default: nil,
        parse: { parse, text throws(OptionError) in try parse.integer("users", text, in: 1...10_000_000) })

    static let receipts = Setting<Int?>(
        option: OptionSpec(
            "receipts", .value(placeholder: "N"), "instead of --users: about N receipt rows (benchmarks)"),
        default: nil,
        parse: { parse, text throws(OptionError) in try parse.integer("receipts", text, in: 1...20_000_000) })

    static let seed = Setting<UInt64>(
        option: OptionSpec(
            "seed", .value(placeholder: "S"), "random seed; the same seed gives the same world", default: "1"),
        default: 1, parse: { parse, text throws(OptionError) in try parse.unsignedInteger("seed", text) })

    /// nil: the world is seen now.
    static let asOf = Setting<Date?>(
        option: OptionSpec(
            "as-of", .value(placeholder: "T"),
            "the instant the world is seen at (ISO 8601); give the same T to seed and serve", default: "now"),
        default: nil, parse: { parse, text throws(OptionError) in try parse.instant("as-of", text) })

    static let environment = Setting(
        option: OptionSpec(
            "environment", .value(placeholder: "production|sandbox"),
            "the environment the app's database serves: production (a live app) or sandbox (a staging backend)",
            default: "production"),
        default: AppStoreEnvironment.production,
        parse: { parse, text throws(OptionError) in
            AppStoreEnvironment(rawValue: try parse.choice("environment", text, ["production", "sandbox"]))!
        })

    static let changedFraction = Setting<Double?>(
        option: OptionSpec(
            "changed-fraction", .value(placeholder: "F"),
            "an incremental world (needs --pki-dir): StoreKit 2 users the job verified at --changed-since, F of them "
                + "changed at Apple since; give the same incremental options to seed and serve"),
        default: nil, parse: { parse, text throws(OptionError) in try parse.ratio("changed-fraction", text) })

    /// Seconds.
    static let changedSince = Setting(
        option: OptionSpec(
            "changed-since", .value(placeholder: "AGE"),
            "with --changed-fraction: the previous run, this long before --as-of (at most 20d)", default: "1d"),
        default: 86_400, parse: { parse, text throws(OptionError) in try parse.age("changed-since", text) })

    static let missedFraction = Setting(
        option: OptionSpec(
            "missed-fraction", .value(placeholder: "M"),
            "with --changed-fraction: the share of changed users whose notifications the app missed", default: "0.5"),
        default: 0.5, parse: { parse, text throws(OptionError) in try parse.ratio("missed-fraction", text) })

    static let lastVerifiedNights = Setting(
        option: OptionSpec(
            "last-verified-nights", .value(placeholder: "D"),
            "with --changed-fraction: users were last verified 0 to D-1 days before --changed-since", default: "30"),
        default: 30,
        parse: { parse, text throws(OptionError) in try parse.integer("last-verified-nights", text, in: 1...3650) })

    /// The world's options, in the order the help lists them.
    static let world: [any SettingDeclaration] = [
        users, receipts, seed, asOf, environment, changedFraction, changedSince, missedFraction, lastVerifiedNights,
    ]
}

/// The options of `simulator serve` beside the world's.
enum SimulatorServeSettings {
    static let port = Setting(
        option: OptionSpec(
            "port", .value(placeholder: "P"), "TCP port on 127.0.0.1 (0 picks a free one)", default: "0"),
        default: 0, parse: { parse, text throws(OptionError) in try parse.integer("port", text, in: 0...65535) })

    static let latency = Setting(
        option: OptionSpec("latency-ms", .value(placeholder: "L"), "fixed latency added to every answer", default: "0"),
        default: 0, parse: { parse, text throws(OptionError) in try parse.integer("latency-ms", text, in: 0...600_000) }
    )

    static let jitter = Setting(
        option: OptionSpec(
            "jitter-ms", .value(placeholder: "J"), "random extra latency, uniform in [0, J]", default: "0"),
        default: 0, parse: { parse, text throws(OptionError) in try parse.integer("jitter-ms", text, in: 0...600_000) })

    static let rateLimit = Setting<Double?>(
        option: OptionSpec(
            "rate-limit", .value(placeholder: "R"), "answer 429 with Retry-After above R requests/s", default: "none"),
        default: nil, parse: { parse, text throws(OptionError) in try parse.positiveNumber("rate-limit", text) })

    static let faultRate = Setting(
        option: OptionSpec(
            "fault-rate", .value(placeholder: "F"),
            "probability of an injected fault per request (21005, 21009, 21199, 503, resets, stalls)", default: "0"),
        default: 0.0, parse: { parse, text throws(OptionError) in try parse.ratio("fault-rate", text) })

    /// nil: the world's `--seed`.
    static let faultSeed = Setting<UInt64?>(
        option: OptionSpec("fault-seed", .value(placeholder: "S"), "seed of fault and jitter draws", default: "--seed"),
        default: nil, parse: { parse, text throws(OptionError) in try parse.unsignedInteger("fault-seed", text) })

    static let forgedNotificationFraction = Setting(
        option: OptionSpec(
            "forged-notification-fraction", .value(placeholder: "F"),
            "the share of notification history records signed by a chain that is not Apple's (never to be believed)",
            default: "0"),
        default: 0.0,
        parse: { parse, text throws(OptionError) in try parse.ratio("forged-notification-fraction", text) })

    static let stall = Setting(
        option: OptionSpec(
            "stall-ms", .value(placeholder: "MS"), "how long a stall holds a request before closing it",
            default: "60000"),
        default: 60_000,
        parse: { parse, text throws(OptionError) in try parse.integer("stall-ms", text, in: 1...3_600_000) })

    /// The job's `AppleSettings.sharedSecret`, read by its rule; only the help says what the simulator does
    /// with it.
    static let sharedSecretFile = AppleSettings.sharedSecret.helped(
        OptionSpec(
            "shared-secret-file", .value(placeholder: "PATH"),
            "require this shared secret as 'password' (overrides APPLE_SHARED_SECRET)"))

    static let pkiDirectory = Setting(
        text: OptionSpec(
            "pki-dir", .value(placeholder: "DIR"),
            "the world of 'simulator seed --pki-dir DIR': with its StoreKit 2 users"))

    /// In the order the help lists them, after the world's.
    static let all: [any SettingDeclaration] = [
        port, latency, jitter, rateLimit, faultRate, faultSeed, forgedNotificationFraction, stall, sharedSecretFile,
        pkiDirectory,
    ]
}

/// The options of `simulator seed` beside the world's: the expectation's assumptions, the signing chain
/// and the staging schema.
enum SimulatorSeedSettings {
    static let expected = Setting(
        text: OptionSpec(
            "expected", .value(placeholder: "FILE"), "where to write the expected corrections and flags (JSON)"))

    /// Empty: the simulator's own app.
    static let bundleIDs = Setting<[String]>(
        option: OptionSpec(
            "bundle-id", .repeatable(placeholder: "ID"), "expectation: the run's accepted bundle ids",
            default: WorldCatalog.appBundleID),
        default: [], parse: { _, text in [text] }
    ).readingEveryFlag { _, texts in texts }

    static let noBundleCheck = Setting(
        flag: OptionSpec("no-bundle-check", .flag, "expectation: the run has no APPLE_BUNDLE_IDS"))

    static let sandboxPolicy = Setting(
        option: OptionSpec(
            "sandbox-policy", .value(placeholder: "revoke|flag"), "expectation: the run's --sandbox-policy",
            default: "revoke"),
        default: "revoke",
        parse: { parse, text throws(OptionError) in try parse.choice("sandbox-policy", text, ["revoke", "flag"]) })

    static let backend = Setting(
        option: OptionSpec(
            "backend", .value(placeholder: "verify-receipt|server-api"), "expectation: the run's --backend",
            default: "verify-receipt"),
        default: "verify-receipt",
        parse: { parse, text throws(OptionError) in
            try parse.choice("backend", text, ["verify-receipt", "server-api"])
        })

    static let pkiDirectory = Setting(
        text: OptionSpec(
            "pki-dir", .value(placeholder: "DIR"),
            "sign StoreKit 2 users with the throwaway chain in DIR, minted there if DIR has none (staging only)"))

    static let newPKI = Setting(
        flag: OptionSpec("new-pki", .flag, "with --pki-dir: mint a new chain and API key, replacing those in DIR"))

    static let schema = Setting(
        text: OptionSpec(
            "schema", .value(placeholder: "NAME"),
            "create the contract's four application tables in schema NAME and seed them there, nothing else "
                + "(a staging copy to rehearse a mapping against)"))

    /// In the order the help lists them, after the world's.
    static let all: [any SettingDeclaration] = [
        expected, bundleIDs, noBundleCheck, sandboxPolicy, backend, pkiDirectory, newPKI, schema,
    ]
}
