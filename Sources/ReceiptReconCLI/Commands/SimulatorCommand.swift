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
    }

    /// The world, seen at `asOf` or, without one, at `now`.
    func world(now: Date = Date()) -> SimulatedWorld {
        let instant = asOf ?? now
        let storeKit2 = pkiDirectory != nil
        if let receipts {
            return SimulatedWorld(
                receipts: receipts, seed: seed, asOf: instant, environment: environment,
                includesStoreKit2Users: storeKit2)
        }
        return SimulatedWorld(
            users: users ?? 2000, seed: seed, asOf: instant, environment: environment,
            includesStoreKit2Users: storeKit2)
    }
}
