import CommandLineOptions
import Foundation
import Postgres
import Reconciliation

/// `receipt-recon report`: a past run's summary as text, JSON or an HTML page.
struct ReportCommand: Command {
    static let spec = CommandSpec(
        name: "report",
        usage: "report [--run ID | --last] [--json | --html FILE]",
        summary: "Print a past run's summary (text, --json), or write it as a self-contained HTML page.",
        discussion: "Without --run, the last nightly run is reported.",
        options: [
            OptionSpec("run", .value(placeholder: "ID"), "the run to report (recon_runs.id)"),
            OptionSpec("last", .flag, "the most recent nightly run (the default)"),
            OptionSpec("json", .flag, "one JSON object on stdout"),
            OptionSpec("html", .value(placeholder: "FILE"), "write an HTML report with a chart of the last 30 runs"),
        ] + Configuration.databaseOptions,
        environment: ["DATABASE_URL"],
        exitCodes: [.success, .usage, .dataError, .unavailable, .internalError]
    )

    let runID: Int64?
    let json: Bool
    let htmlFile: String?
    let configuration: Configuration

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        guard arguments.positionals.isEmpty else {
            throw .usage("unexpected argument '\(arguments.positionals[0])'", command: "report")
        }
        if arguments.has("run"), arguments.has("last") {
            throw .usage("give --run ID or --last, not both", command: "report")
        }
        if arguments.has("json"), arguments.has("html") {
            throw .usage("give --json or --html FILE, not both", command: "report")
        }
        runID = try arguments.read.integer("run", in: 1...Int.max).map(Int64.init)
        json = arguments.has("json")
        htmlFile = arguments.value("html")
        configuration = try Configuration.load(arguments, environment: environment, needsApple: false)
    }

    func run(_ console: Console) throws -> ExitCode {
        let connection = try PostgresConnection(
            conninfo: configuration.databaseURL, applicationName: "receipt-recon report")
        let rows =
            try runID.map { id in
                try connection.query("SELECT id, status, summary FROM recon_runs WHERE id = \(id)")
            }
            ?? connection.query(
                "SELECT id, status, summary FROM recon_runs WHERE kind = 'nightly' ORDER BY id DESC LIMIT 1")
        guard let row = rows.first else {
            throw CommandError(
                .dataError,
                runID.map { "report: there is no run \($0) in recon_runs" }
                    ?? "report: no nightly run has been recorded yet; run 'receipt-recon run' first")
        }
        let id: Int64 = try row.decode("id")
        guard let text: PostgresJSON = try row.decode("summary") else {
            let status: String = try row.decode("status")
            throw CommandError(
                .dataError,
                "report: run \(id) is '\(status)' and has no summary yet "
                    + "(a run records its summary when it finishes)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let summary = try decoder.decode(RunSummary.self, from: Data(text.text.utf8))
        guard let htmlFile else {
            console.write(json ? summary.json + "\n" : summary.text)
            return .success
        }
        // The chart: the 30 nightly runs up to the one reported, with a summary; one that no longer decodes is skipped.
        let history = try connection.query(
            "SELECT summary FROM recon_runs WHERE kind = 'nightly' AND summary IS NOT NULL AND id <= \(id) ORDER BY id DESC LIMIT 30"
        ).compactMap { row -> RunSummary? in
            guard let text: PostgresJSON = try row.decode("summary") else { return nil }
            return try? decoder.decode(RunSummary.self, from: Data(text.text.utf8))
        }
        do {
            try OutputFile.write(HTMLReport.render(summary, history: history), to: htmlFile)
        } catch {
            throw CommandError(.dataError, "report: \(error.description)")
        }
        console.print(htmlFile)
        return .success
    }
}
