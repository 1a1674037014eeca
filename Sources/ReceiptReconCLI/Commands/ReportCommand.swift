import CommandLineOptions
import Foundation
import Postgres
import ReconSchema
import Reconciliation

/// `receipt-recon report`: a past run's summary as text, JSON or an HTML page; with `--list`, the
/// recorded runs (`RunList`); or, with `--compare`, the users two runs decided differently about
/// (`RunComparison`).
struct ReportCommand: Command {
    static let spec = CommandSpec(
        name: "report",
        usage:
            "report [--run ID | --last] [--json | --html FILE]\n       receipt-recon report --list [--limit N] [--json]"
            + "\n       receipt-recon report --compare RUN_A RUN_B [--json]"
            + "\n       receipt-recon report --user USER_ID [--json]",
        summary: "Print a past run's summary (text, --json), or write it as a self-contained HTML page.",
        discussion: """
            Without --run, the last complete nightly run is reported: the newest nightly run of any shard \
            that finished with status completed or partial (every due user handled; partial: some receipts \
            stayed unverified) and was not a dry run. Runs stopped by a breaker, an error or a signal, runs \
            still going, dry runs, verify-user runs and reverts are reported with --run ID; --list shows them all, \
            newest first: id, kind, dry run, status, backend, shard, start, corrections, exit code and why it \
            stopped (cut to one line; --json and --run ID give the whole reason). --compare lists \
            every user whose corrections (entitlement, action, reason; applied or planned) or flag kinds \
            differ between two runs, one line per user with what each run has and the other lacks, then the \
            count: run one backend with --dry-run beside a run of the other, and compare them before switching.
            """,
        options: SettingsTable.options(ReportSettings.all) + Configuration.databaseOptions,
        environment: ["DATABASE_URL"],
        exits: [
            .success: "printed (or the HTML page written); two runs that differ are findings, not a failure",
            .usage: DatabaseCommandExit.usage,
            .dataError:
                "no such run, a run without a summary yet (still going), no complete nightly run for --last, a "
                + "--user the database knows nothing of, or an HTML file that cannot be written",
            .unavailable: DatabaseCommandExit.unavailable,
            .internalError: DatabaseCommandExit.internalError,
            .noPermission: DatabaseCommandExit.noPermission,
            .configuration: DatabaseCommandExit.configuration,
        ]
    )

    let runID: Int64?
    /// `--list`: how many runs to list.
    let listLimit: Int?
    let json: Bool
    let htmlFile: String?
    /// `--compare RUN_A RUN_B`: RUN_B is the one positional argument.
    let compare: (a: Int64, b: Int64)?
    /// `--user USER_ID`: why the user's access changed (`UserExplanation`).
    let user: String?
    let configuration: Configuration

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        let settings = SettingResolver(arguments, environment: environment)
        user = try settings.value(ReportSettings.user)
        if let user {
            guard !user.isEmpty else { throw .usage("--user needs a USER_ID", command: "report") }
            let others: [any SettingDeclaration] = [
                ReportSettings.run, ReportSettings.last, ReportSettings.list, ReportSettings.limit, ReportSettings.html,
                ReportSettings.compare,
            ]
            if let other = others.first(where: { settings.hasFlag($0) }) {
                throw .usage("--user takes --json only, not --\(other.id)", command: "report")
            }
        }
        let (runGiven, lastGiven, listGiven, htmlGiven) = (
            settings.hasFlag(ReportSettings.run), settings.hasFlag(ReportSettings.last),
            settings.hasFlag(ReportSettings.list), settings.hasFlag(ReportSettings.html)
        )
        if let a = try settings.value(ReportSettings.compare) {
            guard arguments.positionals.count == 1 else {
                throw .usage("--compare takes two run ids: --compare RUN_A RUN_B", command: "report")
            }
            if runGiven || lastGiven || htmlGiven || listGiven {
                throw .usage("--compare takes no --run, --last, --list or --html", command: "report")
            }
            let b: Int
            do throws(OptionError) {
                b = try arguments.read.parse.integer("compare", arguments.positionals[0], in: 1...Int.max)
            } catch {
                throw CommandError(usage: error)
            }
            compare = (Int64(a), Int64(b))
        } else {
            compare = nil
            try arguments.refusePositionals()
        }
        if runGiven, lastGiven {
            throw .usage("give --run ID or --last, not both", command: "report")
        }
        if listGiven {
            if runGiven || lastGiven || htmlGiven {
                throw .usage("--list takes no --run, --last or --html: it lists runs, one line each", command: "report")
            }
            listLimit = try settings.value(ReportSettings.limit)
        } else {
            guard !settings.hasFlag(ReportSettings.limit) else {
                throw .usage("--limit goes with --list (report --list --limit N)", command: "report")
            }
            listLimit = nil
        }
        if settings.hasFlag(ReportSettings.json), htmlGiven {
            throw .usage("give --json or --html FILE, not both", command: "report")
        }
        runID = try settings.value(ReportSettings.run).map(Int64.init)
        json = try settings.value(ReportSettings.json)
        htmlFile = try settings.value(ReportSettings.html)
        configuration = try Configuration.load(arguments, environment: environment, needsApple: false)
    }

    func run(_ console: Console) throws -> ExitCode {
        if let user {
            return try UserExplanation.run(
                userID: user, databaseURL: configuration.databaseURL, json: json, command: "report", console: console)
        }
        let connection = try PostgresConnection(
            conninfo: configuration.databaseURL, applicationName: "receipt-recon report")
        try SchemaReadiness.require(on: connection, applicationTables: false)
        if let compare {
            return try Self.compare(compare.a, compare.b, on: connection, json: json, console: console)
        }
        let runs = RunStore(connection: connection)
        if let listLimit {
            let list = try runs.list(limit: listLimit)
            console.write(json ? list.json + "\n" : list.text)
            return .success
        }
        guard let reported = try runID ?? runs.lastCompleteNightlyRunID() else {
            throw CommandError(
                .dataError,
                "report: no complete nightly run (status completed or partial, not a dry run) has been recorded "
                    + "yet; 'receipt-recon report --list' shows every run, 'report --run ID' reports one")
        }
        let summary: RunSummary
        switch try runs.recorded(reported) {
        case nil:
            throw CommandError(.dataError, "report: there is no run \(reported) in recon_runs")
        case .unfinished(let status):
            throw CommandError(
                .dataError,
                "report: run \(reported) is '\(status)' and has no summary yet "
                    + "(a run records its summary when it finishes)")
        case .summary(let recorded):
            summary = recorded
        }
        guard let htmlFile else {
            console.write(
                json ? summary.json + "\n" : summary.text + Self.otherShardsNote(summary, chosen: runID == nil))
            return .success
        }
        // The chart: the 30 nightly runs up to the one reported.
        let history = try runs.nightlySummaries(upTo: reported)
        do {
            try OutputFile.write(HTMLReport.render(summary, history: history), to: htmlFile)
        } catch {
            throw CommandError(.dataError, "report: \(error.description)")
        }
        console.print(htmlFile)
        return .success
    }
}

extension ReportCommand {
    /// `--compare`: both runs must exist (65 otherwise, like `--run`); differences are findings, not
    /// failures, so printing them is exit 0.
    static func compare(_ a: Int64, _ b: Int64, on connection: PostgresConnection, json: Bool, console: Console)
        throws -> ExitCode
    {
        let runs = RunStore(connection: connection)
        for id in [a, b] where try !runs.exists(id) {
            throw CommandError(.dataError, "report: there is no run \(id) in recon_runs")
        }
        let comparison = try RunComparison.load(runA: a, runB: b, from: connection)
        console.write(json ? comparison.json + "\n" : comparison.text)
        return .success
    }
}

extension ReportCommand {
    /// Under the summary `--last` chose, when it is one shard of several: the others finished apart and
    /// are reported apart.
    static func otherShardsNote(_ summary: RunSummary, chosen: Bool) -> String {
        guard chosen, let count = summary.shard.split(separator: "/").last.flatMap({ Int($0) }), count > 1 else {
            return ""
        }
        return
            "This is shard \(summary.shard) of \(count): 'receipt-recon report --list' shows the other shards' runs.\n"
    }
}
