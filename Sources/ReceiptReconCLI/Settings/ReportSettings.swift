import CommandLineOptions
import Reconciliation

/// The options of `report`: which run, or the list, a comparison or one user; and the output's form.
enum ReportSettings {
    static let run = Setting<Int?>(
        option: OptionSpec("run", .value(placeholder: "ID"), "the run to report (recon_runs.id)"),
        default: nil, parse: { parse, text throws(OptionError) in try parse.integer("run", text, in: 1...Int.max) })

    static let last = Setting(
        flag: OptionSpec(
            "last", .flag, "the last complete nightly run that was not a dry run, of any shard (the default)"))

    static let list = Setting(
        flag: OptionSpec("list", .flag, "list the recorded runs, newest first (--json: one array)"))

    static let limit = Setting(
        option: OptionSpec(
            "limit", .value(placeholder: "N"), "with --list: how many runs", default: String(RunList.defaultLimit)),
        default: RunList.defaultLimit,
        parse: { parse, text throws(OptionError) in try parse.integer("limit", text, in: 1...100_000) })

    static let json = Setting(flag: OptionSpec("json", .flag, "one JSON object on stdout"))

    static let html = Setting(
        text: OptionSpec("html", .value(placeholder: "FILE"), "write an HTML report with a chart of the last 30 runs"))

    /// RUN_A; RUN_B is the command's one positional argument.
    static let compare = Setting<Int?>(
        option: OptionSpec(
            "compare", .value(placeholder: "RUN_A RUN_B"), "the users two runs decided differently about"),
        default: nil,
        parse: { parse, text throws(OptionError) in try parse.integer("compare", text, in: 1...Int.max) })

    static let user = Setting(
        text: OptionSpec(
            "user", .value(placeholder: "USER_ID"), "as verify-user USER_ID --explain: " + UserExplanation.help))

    /// In the order the help lists them.
    static let all: [any SettingDeclaration] = [run, last, list, limit, json, html, compare, user]
}
