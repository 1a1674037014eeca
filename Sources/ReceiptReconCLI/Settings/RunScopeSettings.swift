import CommandLineOptions
import Foundation
import Reconciliation

/// What a run covers: the instant it judges against, which receipts, which shard, and whether it may
/// change entitlements.
enum RunScopeSettings {
    static let dryRun = Setting(
        option: OptionSpec("dry-run", .flag, "compute and record everything, change no entitlement"),
        default: RunOptions.defaults.dryRun, record: "dryRun", parse: { _, _ in true }
    ).applied(to: \.dryRun)

    /// nil: a live night, each user judged at the instant Apple answered about them. `RunSettings` gives
    /// it to `RunOptions` with the one instant such a night stands for.
    static let asOf = Setting<Date?>(
        option: OptionSpec(
            "as-of", .value(placeholder: "T"),
            "judge every user at instant T (ISO 8601); default: each user when Apple answers",
            default: "live"),
        default: nil, record: "asOf", parse: { parse, text throws(OptionError) in try parse.instant("as-of", text) })

    /// `run` only: seconds; receipts verified more recently are skipped.
    static let olderThan = Setting(
        option: OptionSpec(
            "older-than", .value(placeholder: "D"),
            "re-verify receipts last verified before now minus D (90m, 20h, 7d, 0); with --backend server-api "
                + "and notifications, only when given", default: "20h"),
        default: RunOptions.defaults.olderThan, record: "olderThan",
        parse: { parse, text throws(OptionError) in try parse.age("older-than", text) }
    ).applied(to: \.olderThan)

    static let limit = Setting<Int?>(
        option: OptionSpec("limit", .value(placeholder: "N"), "at most N receipts this run", default: "none"),
        default: RunOptions.defaults.limit, record: "limit",
        parse: { parse, text throws(OptionError) in try parse.integer("limit", text, in: 1...Int.max) }
    ).applied(to: \.limit)

    static let shard = Setting<(index: Int, count: Int)>(
        option: OptionSpec(
            "shard", .value(placeholder: "I/N"),
            "handle only users in part I (0-based) of N disjoint hash parts; the nightly lock is per shard",
            default: "0/1"),
        default: (RunOptions.defaults.shardIndex, RunOptions.defaults.shardCount),
        recordKeys: ["shardIndex", "shardCount"],
        recorded: { ["shardIndex": .integer($0.index), "shardCount": .integer($0.count)] },
        parse: { parse, text throws(OptionError) in try parse.shard("shard", text) }
    ).applied { options, shard in (options.shardIndex, options.shardCount) = shard }
}
