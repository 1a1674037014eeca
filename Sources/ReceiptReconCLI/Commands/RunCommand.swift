import CommandLineOptions
import Foundation
import Postgres
import Reconciliation

/// `receipt-recon run`: the nightly batch.
struct RunCommand: Command {
    static let spec = CommandSpec(
        name: "run",
        usage: "run [options]",
        summary: "The nightly batch: re-verify due receipts with Apple and correct entitlements that drifted.",
        discussion: """
            Selects receipts not verified within --older-than (with --backend server-api: the users Apple's \
            notification history names, the users never verified and a sweep of the longest-unverified), \
            verifies them under the rate limit and --max-requests-per-hour for every shard together \
            (production first, sandbox on 21007; requests to the sandbox are paced and budgeted apart, by \
            --sandbox-rate and --sandbox-max-requests-per-hour, a tenth of production's by default as \
            Apple's sandbox limits are), \
            computes each user's truth from all their receipts and writes results, flags and corrections per \
            user in one transaction. Safe to repeat, safe to kill; one run per shard \
            at a time. Circuit breakers stop it before a bad night at Apple can revoke paying users.
            """,
        options: RunSettings.shared + RunSettings.runOnly + Configuration.databaseOptions
            + Configuration.appleOptions,
        environment: Configuration.variables.map(\.name),
        exitCodes: [
            .success, .someUnverified, .usage, .unavailable, .internalError, .tempFail, .noPermission, .configuration,
        ]
    )

    let options: RunSettings
    let configuration: Configuration
    let progressLogInterval: Double

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        try arguments.refusePositionals()
        options = try RunSettings(arguments, environment: environment)
        configuration = try Configuration.load(arguments, environment: environment, needsApple: true)
        try configuration.requireAppAppleIDs(readsNotifications: !options[NotificationSettings.noNotifications])
        progressLogInterval = try ProgressDisplay.logInterval(SettingResolver(arguments, environment: environment))
    }

    func run(_ console: Console) throws -> ExitCode {
        configuration.logWarnings()
        do {
            return try runNightly(console)
        } catch {
            // Every end past the options writes the metrics file, the run never started included: the
            // exit code, the status and the time are what alerting reads.
            if let path = options[OutputSettings.metricsFile] {
                let failure = CommandFailure(error)
                let end =
                    failure.run.map {
                        PrometheusMetrics.RunEnd(
                            summary: $0, exitCode: failure.exitCode, version: ReceiptRecon.version, backend: backend)
                    }
                    ?? PrometheusMetrics.RunEnd(
                        shard: shard, dryRun: options[RunScopeSettings.dryRun], status: failure.end.status,
                        exitCode: failure.exitCode, startedAt: options.startedAt, finishedAt: Date(),
                        version: ReceiptRecon.version, backend: backend)
                let database = (error as? PostgresError) ?? ((error as? RunFailure)?.underlying as? PostgresError)
                let unreachable = database.map { $0.kind == .connection || $0.isUnavailable } ?? false
                RunMetrics.write(
                    end, to: path, databaseURL: unreachable ? .none : .some(configuration.databaseURL),
                    console: console)
            }
            throw error
        }
    }

    private var backend: String { configuration.serverAPI.backend.rawValue }
    private var shard: String {
        let shard = options[RunScopeSettings.shard]
        return "\(shard.index)/\(shard.count)"
    }

    private func runNightly(_ console: Console) throws -> ExitCode {
        let shutdown = ShutdownSignal()
        shutdown.install()
        let display = ProgressDisplay(
            terminal: console.stderrIsTerminal, json: options[OutputSettings.json], logInterval: progressLogInterval)
        let log = EventLog()
        let run = options.run(configuration)
        let apple = try options.apple(configuration, shutdown: shutdown, waitsForBudget: true)
        let engine = ReconciliationEngine(
            options: run.options, request: run.request, databaseURL: configuration.databaseURL,
            backend: apple.backend, driver: apple.driver, budget: apple.budget, shutdown: shutdown, log: log,
            progress: { @Sendable progress in display.show(progress, console: console, log: log) },
            progressInterval: display.interval)
        let outcome = try engine.runNightly()
        display.finish(console: console)
        if outcome.end.recordedStatus == nil { throw RunEndedWithoutRow(end: outcome.end) }
        console.write(options[OutputSettings.json] ? outcome.summary.json + "\n" : outcome.summary.text)
        if let path = options[OutputSettings.metricsFile] {
            RunMetrics.write(
                PrometheusMetrics.RunEnd(
                    summary: outcome.summary, exitCode: outcome.exitCode, version: ReceiptRecon.version,
                    backend: backend),
                to: path, databaseURL: .some(configuration.databaseURL), console: console)
        }
        return outcome.exitCode
    }

    static func failureOutput(_ failure: CommandFailure, arguments: ParsedArguments, environment: [String: String])
        -> String?
    {
        FailedRunJSON.render(failure, kind: .nightly, arguments: arguments, environment: environment)
    }

    /// The options were understood but a setting was not (exit 78): the run never started, and the
    /// metrics file says so. The backend did not resolve; the database is not asked.
    static func initializationFailed(
        _ failure: CommandFailure, arguments: ParsedArguments, environment: [String: String], console: Console
    ) {
        guard failure.exitCode != .usage, let path = arguments.value("metrics-file"), !path.isEmpty,
            let shard = try? arguments.read.shard("shard") ?? (0, 1)
        else { return }
        let now = Date()
        let end = PrometheusMetrics.RunEnd(
            shard: "\(shard.index)/\(shard.count)", dryRun: arguments.has("dry-run"), status: failure.end.status,
            exitCode: failure.exitCode, startedAt: now, finishedAt: now, version: ReceiptRecon.version,
            backend: "unknown")
        RunMetrics.write(end, to: path, databaseURL: .none, console: console)
    }
}

/// `receipt-recon verify-user USER_ID`: on-demand re-verification of one user (support); with
/// `--explain`, why the user's access changed, from the records only (`UserExplanation`).
struct VerifyUserCommand: Command {
    static let spec = CommandSpec(
        name: "verify-user",
        usage: "verify-user USER_ID [options]\n       receipt-recon verify-user --order-id ID [options]"
            + "\n       receipt-recon verify-user USER_ID --explain [--json]",
        summary: "Re-verify all of one user's receipts now and apply (or, with --dry-run, show) corrections.",
        discussion: """
            Prints the user's entitlements before and after, with the reason for every change. Safe to run \
            while the nightly job is running: writes for one user never interleave. With --explain it verifies \
            nothing: it prints the user's last corrections, newest first, and the flags of the last run that \
            judged the user, each with the Apple fact that decided it (the stored receipt, the transaction, \
            Apple's status or errorCode, the refund, the expiry, when Apple signed or sent it) in words support \
            can read to a customer; it needs only DATABASE_URL. 'report --user USER_ID' prints the same. \
            \(VerifyUserCommand.orderIDDiscussion)
            """,
        options: SettingsTable.options(VerifyUserSettings.all) + RunSettings.shared
            + Configuration.databaseOptions + Configuration.appleOptions,
        environment: Configuration.variables.map(\.name).filter { $0 != ProgressDisplay.variable },
        exitCodes: [
            .success, .someUnverified, .usage, .dataError, .unavailable, .internalError, .noPermission, .configuration,
        ]
    )

    /// Empty with `--order-id`: the users are those holding the order's transactions.
    let userID: String
    /// `--order-id`: the order id from the customer's App Store receipt email.
    let orderID: String?
    let options: RunSettings
    let configuration: Configuration
    /// `--explain`: read the records, verify nothing.
    let explain: Bool

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        orderID = try Self.orderID(arguments)
        if orderID != nil {
            userID = ""
            explain = false
            options = try RunSettings(arguments, environment: environment)
            configuration = try Configuration.load(arguments, environment: environment, needsApple: true)
            try Self.requireServerAPI(configuration)
            return
        }
        userID = try arguments.onePositional("USER_ID", counted: " arguments", nonEmpty: true)
        explain = try SettingResolver(arguments, environment: environment).value(VerifyUserSettings.explain)
        if explain, let given = RunSettings.shared.first(where: { $0.name != "json" && arguments.has($0.name) }) {
            throw .usage(
                "--explain reads the job's records and verifies nothing: it takes --json, not --\(given.name)",
                command: "verify-user")
        }
        options = try RunSettings(arguments, environment: environment)
        // The explanation never asks Apple: support needs no Apple keys for it.
        configuration = try Configuration.load(arguments, environment: environment, needsApple: !explain)
    }

    func run(_ console: Console) throws -> ExitCode {
        if explain {
            return try UserExplanation.run(
                userID: userID, databaseURL: configuration.databaseURL, json: json, command: "verify-user",
                console: console)
        }
        // Ctrl-C or SIGTERM ends Apple's waits at once and records the run `interrupted` (75) instead of
        // leaving its row `running` for the next nightly run to find.
        configuration.logWarnings()
        let shutdown = ShutdownSignal()
        shutdown.install()
        let engine = try makeEngine(shutdown: shutdown)
        if let orderID { return try verifyOrder(orderID, engine: engine, shutdown: shutdown, console: console) }
        guard let verified = try verification(of: userID, engine: engine) else {
            throw CommandError(
                .dataError,
                "verify-user: user '\(userID)' has no receipts and no entitlements; "
                    + "check the user id (it is matched exactly)")
        }
        console.write(verified.output)
        return verified.exitCode
    }

    /// The engine `verify-user` verifies with: the configured backend, never waiting for the budget.
    func makeEngine(shutdown: ShutdownSignal) throws -> ReconciliationEngine {
        let run = options.run(configuration)
        let apple = try options.apple(configuration, shutdown: shutdown, waitsForBudget: false)
        return ReconciliationEngine(
            options: run.options, request: run.request, databaseURL: configuration.databaseURL,
            backend: apple.backend, driver: apple.driver, budget: apple.budget, shutdown: shutdown)
    }

    /// `userID` verified now (a run of its own, under the user's lock), and what `verify-user USER_ID`
    /// prints for it; nil when the user has no receipts and no entitlements.
    func verification(of userID: String, engine: ReconciliationEngine) throws -> (output: String, exitCode: ExitCode)? {
        guard let result = try engine.verifyUser(userID) else { return nil }
        let output =
            json
            ? UserReport.json(
                before: result.before, after: result.after, corrections: result.corrections,
                summary: result.outcome.summary) + "\n"
            : UserReport.render(
                userID: userID, before: result.before, after: result.after,
                corrections: result.corrections, unverdicted: result.unverdicted, summary: result.outcome.summary)
        return (output, result.outcome.exitCode)
    }
    static func failureOutput(_ failure: CommandFailure, arguments: ParsedArguments, environment: [String: String])
        -> String?
    {
        FailedRunJSON.render(failure, kind: .user, arguments: arguments, environment: environment)
    }
}
