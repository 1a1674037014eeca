import AppStoreReceipts
import AppStoreSimulator
import CommandLineOptions
import Foundation
import Reconciliation

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

    /// - Parameter pkiDirectory: the subcommand's `--pki-dir`.
    init(_ arguments: ParsedArguments, pkiDirectory pkiSetting: Setting<String?>) throws(CommandError) {
        let settings = SettingResolver(arguments, environment: [:])
        users = try settings.value(SimulatorSettings.users)
        receipts = try settings.value(SimulatorSettings.receipts)
        if users != nil, receipts != nil {
            throw .usage("give --users or --receipts, not both", command: arguments.command)
        }
        seed = try settings.value(SimulatorSettings.seed)
        asOf = try settings.value(SimulatorSettings.asOf)
        environment = try settings.value(SimulatorSettings.environment)
        pkiDirectory = try settings.value(pkiSetting)
        if pkiDirectory?.isEmpty == true { throw .usage("--pki-dir needs a directory", command: arguments.command) }
        let companions: [any SettingDeclaration] = [
            SimulatorSettings.changedSince, SimulatorSettings.missedFraction, SimulatorSettings.lastVerifiedNights,
        ]
        guard let changed = try settings.value(SimulatorSettings.changedFraction) else {
            if let given = companions.first(where: { settings.hasFlag($0) }) {
                throw .usage("--\(given.id) needs --changed-fraction", command: arguments.command)
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
        let since = try settings.value(SimulatorSettings.changedSince)
        guard since > 3 * 3_600, since <= 20 * 86_400 else {
            throw .usage("--changed-since must be more than 3h and at most 20d", command: arguments.command)
        }
        incremental = (
            changed, since, try settings.value(SimulatorSettings.missedFraction),
            try settings.value(SimulatorSettings.lastVerifiedNights)
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
