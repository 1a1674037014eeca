import CommandLineOptions
import Foundation
import Reconciliation

/// The options of `export`: the range or the run, where the file goes, its format, and which rows.
enum ExportSettings {
    static let from = Setting<Date?>(
        option: OptionSpec("from", .value(placeholder: "T"), "start of the range, inclusive (required without --run)"),
        default: nil, parse: { parse, text throws(OptionError) in try parse.instant("from", text) })

    static let to = Setting<Date?>(
        option: OptionSpec("to", .value(placeholder: "T"), "end of the range, exclusive (required without --run)"),
        default: nil, parse: { parse, text throws(OptionError) in try parse.instant("to", text) })

    /// nil: stdout.
    static let output = Setting(
        text: OptionSpec(
            "output", .value(placeholder: "FILE"), "write the export to FILE and a manifest beside it",
            default: "stdout"))

    static let format = Setting(
        option: OptionSpec(
            "format", .value(placeholder: "csv|xlsx"),
            "csv (CONTRACT §8) or an xlsx workbook that keeps 16-digit ids, dates and numbers as they are",
            default: "csv"),
        default: ReconciliationExport.Format.csv,
        parse: { parse, text throws(OptionError) in
            ReconciliationExport.Format(rawValue: try parse.choice("format", text, ["csv", "xlsx"]))!
        })

    static let environment = Setting(
        option: OptionSpec(
            "environment", .value(placeholder: "production|sandbox|all"),
            "transactions and refunds: which App Store environment's rows", default: "production"),
        default: "production",
        parse: { parse, text throws(OptionError) in
            try parse.choice("environment", text, ["production", "sandbox", "all"])
        })

    static let includeDryRuns = Setting(
        flag: OptionSpec(
            "include-dry-runs", .flag,
            "corrections and flags: keep the rows of dry runs (never applied) beside the real runs'",
            default: "left out"))

    static let run = Setting<Int?>(
        option: OptionSpec(
            "run", .value(placeholder: "ID"),
            "corrections and flags: only the rows of run ID (recon_runs.id), dry run or not"),
        default: nil, parse: { parse, text throws(OptionError) in try parse.integer("run", text, in: 1...Int.max) })

    /// In the order the help lists them.
    static let all: [any SettingDeclaration] = [from, to, output, format, environment, includeDryRuns, run]
}
