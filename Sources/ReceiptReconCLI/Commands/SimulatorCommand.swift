import AppStoreReceipts
import AppStoreSimulator
import CommandLineOptions
import Foundation
import Reconciliation

/// Options common to `simulator seed` and `simulator serve`: the same values give the same world.
let simulatorWorldOptions: [OptionSpec] = [
    OptionSpec("users", .value(placeholder: "N"), "users in the world", default: "2000"),
    OptionSpec("receipts", .value(placeholder: "N"), "instead of --users: about N receipt rows (benchmarks)"),
    OptionSpec("seed", .value(placeholder: "S"), "random seed; the same seed gives the same world", default: "1"),
    OptionSpec(
        "as-of", .value(placeholder: "T"),
        "the instant the world is seen at (ISO 8601); give the same T to seed and serve",
        default: "now"),
    OptionSpec(
        "environment", .value(placeholder: "production|sandbox"),
        "the environment the app's database serves: production (a live app) or sandbox (a staging backend)",
        default: "production"),
    OptionSpec(
        "changed-fraction", .value(placeholder: "F"),
        "an incremental world (needs --pki-dir): StoreKit 2 users the job verified at --changed-since, F of them "
            + "changed at Apple since; give the same incremental options to seed and serve"),
    OptionSpec(
        "changed-since", .value(placeholder: "AGE"),
        "with --changed-fraction: the previous run, this long before --as-of (at most 20d)", default: "1d"),
    OptionSpec(
        "missed-fraction", .value(placeholder: "M"),
        "with --changed-fraction: the share of changed users whose notifications the app missed", default: "0.5"),
    OptionSpec(
        "last-verified-nights", .value(placeholder: "D"),
        "with --changed-fraction: users were last verified 0 to D-1 days before --changed-since", default: "30"),
]

/// World parameters shared by both simulator subcommands.
struct WorldParameters {
    let users: Int?
    let receipts: Int?
    let seed: UInt64
    let asOf: Date?
    let environment: AppStoreEnvironment
    /// `--pki-dir`: the world includes StoreKit 2 users, whose rows are signed by the chain kept there.
    let pkiDirectory: String?
    /// `--changed-fraction` and its companions: an incremental world (`changedSince` in seconds).
    let incremental: (changedFraction: Double, changedSince: Int, missedFraction: Double, nights: Int)?

    init(_ arguments: ParsedArguments) throws(CommandError) {
        users = try arguments.read.integer("users", in: 1...10_000_000)
        receipts = try arguments.read.integer("receipts", in: 1...20_000_000)
        if users != nil, receipts != nil {
            throw .usage("give --users or --receipts, not both", command: arguments.command)
        }
        seed = try arguments.read.unsignedInteger("seed") ?? 1
        asOf = try arguments.read.instant("as-of")
        environment =
            try arguments.read.choice("environment", ["production", "sandbox"]).flatMap(
                AppStoreEnvironment.init(rawValue:))
            ?? .production
        pkiDirectory = arguments.value("pki-dir")
        if pkiDirectory?.isEmpty == true { throw .usage("--pki-dir needs a directory", command: arguments.command) }
        let companions = ["changed-since", "missed-fraction", "last-verified-nights"]
        guard let changed = try arguments.read.ratio("changed-fraction") else {
            if let given = companions.first(where: { arguments.value($0) != nil }) {
                throw .usage("--\(given) needs --changed-fraction", command: arguments.command)
            }
            incremental = nil
            return
        }
        // Its users' rows are JWS; the sandbox's compressed subscription clock leaves no quiet user.
        guard pkiDirectory != nil else {
            throw .usage("--changed-fraction needs --pki-dir (its users' rows are signed)", command: arguments.command)
        }
        guard environment == .production else {
            throw .usage("--changed-fraction seeds a production world only", command: arguments.command)
        }
        let since = try arguments.read.age("changed-since") ?? 86_400
        guard since > 3 * 3_600, since <= 20 * 86_400 else {
            throw .usage("--changed-since must be more than 3h and at most 20d", command: arguments.command)
        }
        incremental = (
            changed, since, try arguments.read.ratio("missed-fraction") ?? 0.5,
            try arguments.read.integer("last-verified-nights", in: 1...3650) ?? 30
        )
    }

    /// The world, seen at `asOf` or, without one, at `now`.
    func world(now: Date = Date()) -> SimulatedWorld {
        let instant = asOf ?? now
        let storeKit2 = pkiDirectory != nil
        var world =
            receipts.map {
                SimulatedWorld(
                    receipts: $0, seed: seed, asOf: instant, environment: environment,
                    includesStoreKit2Users: storeKit2)
            }
            ?? SimulatedWorld(
                users: users ?? 2000, seed: seed, asOf: instant, environment: environment,
                includesStoreKit2Users: storeKit2)
        if let incremental {
            // One StoreKit 2 row per user: --receipts N is about N users.
            var parameters = world.parameters
            if let receipts { parameters.users = receipts }
            parameters.incremental = IncrementalWorld(
                changedFraction: incremental.changedFraction,
                sinceMs: parameters.asOfMs - Int64(incremental.changedSince) * 1000,
                missedFraction: incremental.missedFraction, lastVerifiedNights: incremental.nights)
            world = SimulatedWorld(parameters)
        }
        return world
    }
}

/// `receipt-recon simulator --help`: the simulator's own help, naming its two subcommands, whose own
/// `--help` give their options and exit codes.
enum SimulatorHelp {
    static let summary =
        "The local App Store simulator: 'seed' a drifted database, 'serve' Apple's answers (verifyReceipt and, "
        + "with --pki-dir, the App Store Server API)."

    static var text: String {
        let help = HelpText(
            usage: "receipt-recon simulator seed|serve [options]",
            paragraphs: [
                summary,
                "For staging rehearsals, tests and benchmarks. Give seed and serve the same world options "
                    + "(--users or --receipts, --seed, --as-of, --environment, --pki-dir): the same values give the "
                    + "same world, so a run against 'serve' must produce the corrections 'seed' expects.",
            ],
            options: [],
            sections: [
                HelpText.Section(
                    "COMMANDS:",
                    rows: [
                        ("seed", SimulatorSeedCommand.spec.summary), ("serve", SimulatorServeCommand.spec.summary),
                    ]),
                ExitCode.helpSection(
                    [.success, .usage],
                    meanings: [
                        .success: "this help was printed", .usage: "no subcommand, or one other than seed and serve",
                    ]),
            ])
        return help.text
            + "\nRun 'receipt-recon simulator seed --help' or 'receipt-recon simulator serve --help' for its options "
            + "and exit codes.\n"
    }
}
