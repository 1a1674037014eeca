import CommandLineOptions
import Foundation
import Postgres
import ReconSchema
import Reconciliation

/// `receipt-recon export VIEW --from T --to T`: finance CSVs (CONTRACT §8).
struct ExportCommand: Command {
    static let views = ReconciliationExport.View.allCases.map(\.rawValue)

    static let spec = CommandSpec(
        name: "export",
        usage:
            "export VIEW --from T --to T [--output FILE] [--format csv|xlsx] "
            + "[--environment production|sandbox|all] [--include-dry-runs] "
            + "| export corrections|flags --run ID [--from T --to T] [--output FILE] [--format csv|xlsx]",
        summary:
            "Write a reconciliation CSV or xlsx for finance: transactions, refunds, corrections, flags or "
            + "notifications_unmatched.",
        discussion: """
            Each VIEW's range filters one column: transactions on purchased_at (when bought); refunds on \
            cancelled_at (when Apple says the refund happened, whenever the purchase was: the transaction's \
            columns, then refund_run_id, refund_recorded_at and refunded_amount); corrections and flags on \
            created_at (when the run wrote the row); notifications_unmatched on received_at (Apple's \
            notifications about purchases no stored row holds). \
            The range is half-open [from, to) in UTC; T is YYYY-MM-DD or an ISO 8601 instant. RFC 4180 CSV, \
            UTF-8, CRLF, stable order; --format xlsx writes a workbook instead whose ids are text (a \
            spreadsheet opening the CSV keeps 15 digits of a 16-digit transaction id), instants dates in \
            UTC and prices numbers. Corrections and flags leave out dry runs unless --include-dry-runs; \
            --run ID exports one run (a dry run too), the range then optional. With --output, \
            FILE.manifest.json records rows, sha256, the runs included and the dry runs left out.
            """,
        options: SettingsTable.options(ExportSettings.all) + Configuration.databaseOptions,
        environment: ["DATABASE_URL"],
        exits: [
            .success: "the CSV was written (to stdout, or to FILE with its manifest); an empty range is no error",
            .usage: "usage error (unknown VIEW, bad range, an option the view does not take)",
            .dataError: "--run ID names no run in recon_runs",
            .unavailable: DatabaseCommandExit.unavailable,
            .internalError: "internal error, or FILE cannot be written",
            .noPermission: DatabaseCommandExit.noPermission,
            .configuration: DatabaseCommandExit.configuration,
        ]
    )

    let view: String
    let from: Date?
    let to: Date?
    let output: String?
    let environment: String
    let format: ReconciliationExport.Format
    let runs: ReconciliationExport.Runs
    let configuration: Configuration

    init(_ arguments: ParsedArguments, environment variables: [String: String]) throws(CommandError) {
        guard let view = arguments.positionals.first else {
            throw .usage("missing VIEW: one of \(Self.views.joined(separator: ", "))", command: "export")
        }
        guard Self.views.contains(view) else {
            throw .usage(
                "unknown view '\(view)': expected one of \(Self.views.joined(separator: ", "))", command: "export")
        }
        try arguments.refusePositionals(after: 1)
        let settings = SettingResolver(arguments, environment: variables)
        let runID = try settings.value(ExportSettings.run).map(Int64.init)
        let includeDryRuns = try settings.value(ExportSettings.includeDryRuns)
        if view != "corrections", view != "flags", runID != nil || includeDryRuns {
            throw .usage(
                "\(runID != nil ? "--run" : "--include-dry-runs") applies to the corrections and flags views only "
                    + "(dry runs write no \(view == "notifications_unmatched" ? "notifications" : "transactions"))",
                command: "export")
        }
        if runID != nil, includeDryRuns {
            throw .usage(
                "--include-dry-runs goes without --run: the run named is exported whether or not it was a dry run",
                command: "export")
        }
        let from = try settings.value(ExportSettings.from)
        let to = try settings.value(ExportSettings.to)
        switch (from, to) {
        case (nil, nil) where runID != nil: break
        case (nil, _): throw .usage("missing --from T\(runID != nil ? " (it goes with --to)" : "")", command: "export")
        case (_, nil): throw .usage("missing --to T\(runID != nil ? " (it goes with --from)" : "")", command: "export")
        case (let from?, let to?) where from >= to:
            let (fromText, toText) = (arguments.value("from") ?? "", arguments.value("to") ?? "")
            throw .usage(
                "the range [--from \(fromText), --to \(toText)) is \(from == to ? "empty" : "reversed"); "
                    + "--to must be after --from", command: "export")
        default: break
        }
        self.view = view
        self.from = from
        self.to = to
        output = try settings.value(ExportSettings.output)
        environment = try settings.value(ExportSettings.environment)
        if settings.hasFlag(ExportSettings.environment), view != "transactions", view != "refunds" {
            throw .usage("--environment applies to the transactions and refunds views only", command: "export")
        }
        format = try settings.value(ExportSettings.format)
        if format == .xlsx, output == nil, isatty(STDOUT_FILENO) == 1 {
            throw .usage(
                "an xlsx workbook is binary: give --output FILE (or redirect standard output to a file)",
                command: "export")
        }
        runs = runID.map { .one($0) } ?? (includeDryRuns ? .includingDryRuns : .excludingDryRuns)
        configuration = try Configuration.load(arguments, environment: variables, needsApple: false)
    }

    func run(_ console: Console) throws -> ExitCode {
        guard let view = ReconciliationExport.View(rawValue: view) else { return .usage }
        let export = ReconciliationExport(
            view: view, from: from, to: to, environment: environment, runs: runs, format: format)
        let connection = try PostgresConnection(
            conninfo: configuration.databaseURL, applicationName: "receipt-recon export")
        try SchemaReadiness.require(on: connection, applicationTables: false)
        var requestedRun: ExportTally.Run?
        if case .one(let id) = runs {
            guard let dryRun = try RunStore(connection: connection).isDryRun(id) else {
                throw CommandError(
                    .dataError,
                    "export: there is no run \(id) in recon_runs ('receipt-recon report --list' lists the runs)")
            }
            requestedRun = ExportTally.Run(id: id, dryRun: dryRun, rows: 0)
        }
        do {
            if let output {
                try ExportFile.write(export, from: connection, toFile: output, requestedRun: requestedRun)
            } else {
                try ExportFile.write(export, from: connection, to: FileHandle.standardOutput)
            }
        } catch let failure as OutputFile.Failure {
            throw CommandError(.internalError, "export: \(failure.description)")
        } catch let failure as SpoolFile.Failure {
            throw CommandError(.internalError, "export: \(failure.description)")
        } catch is ReconciliationExport.TooManyRowsForASheet, ZipWriter.Failure.tooLarge {
            throw CommandError(
                .dataError,
                "export: the range holds more than \(XLSXWriter.maxDataRows) rows, more than a worksheet holds; "
                    + "export a narrower --from/--to, or CSV (--format csv)")
        }
        return .success
    }
}
