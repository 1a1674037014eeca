import CommandLineOptions

/// The options of `revert`: which run to undo, and how.
enum RevertSettings {
    static let run = Setting<Int?>(
        option: OptionSpec(
            "run", .value(placeholder: "ID"), "the run to undo (recon_runs.id; 'report --list' lists them)"),
        default: nil, parse: { parse, text throws(OptionError) in try parse.integer("run", text, in: 1...Int.max) })

    static let dryRun = Setting(
        flag: OptionSpec(
            "dry-run", .flag, "change no entitlement: record the corrections the revert would write, applied = false"))

    static let json = Setting(
        flag: OptionSpec(
            "json", .flag,
            "print one JSON object on stdout (status, exitCode, reason, runID, revertedRunID, restored, "
                + "leftAlone, alreadyReverted); on failure too"))

    /// In the order the help lists them.
    static let all: [any SettingDeclaration] = [run, dryRun, json]
}
