import CommandLineOptions
import Foundation
import Reconciliation

/// `receipt-recon revert --run ID`: undo what one run changed (CONTRACT §6, "Undo"); `RunReverter` does it.
struct RevertCommand: Command {
    static let spec = CommandSpec(
        name: "revert",
        usage: "revert --run ID [--dry-run] [--json]",
        summary: "Undo what one run changed: put its entitlements back as they were before it.",
        discussion: """
            Restores every entitlement run ID changed (its applied corrections) to its state before the run: \
            active and expires_at as the correction's before_* recorded them; a row the run created is made \
            inactive. An entitlement that changed since (a later run or verify-user corrected it, the app \
            rewrote it, its row is gone or no longer app_store) is listed and left alone. The revert is a run \
            of its own (kind revert) whose corrections have reason reverted and name the correction they undo; \
            one transaction writes it all, so a kill leaves nothing half done. A second revert of the same \
            run changes nothing. It takes the reverted night's shard lock (exit 75 while a night of that shard \
            is going) and refuses a run still going (75), a dry run and a revert (65). --dry-run records the \
            revert's corrections with applied = false and changes no entitlement.
            """,
        options: SettingsTable.options(RevertSettings.all) + Configuration.databaseOptions,
        environment: ["DATABASE_URL"],
        exitCodes: [
            .success, .usage, .dataError, .unavailable, .internalError, .tempFail, .noPermission, .configuration,
        ]
    )

    let runID: Int64
    let dryRun: Bool
    let json: Bool
    let configuration: Configuration

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        try arguments.refusePositionals()
        let settings = SettingResolver(arguments, environment: environment)
        guard let runID = try settings.value(RevertSettings.run) else {
            throw .usage(
                "missing --run ID: the run to undo ('receipt-recon report --list' lists them)", command: "revert")
        }
        self.runID = Int64(runID)
        dryRun = try settings.value(RevertSettings.dryRun)
        json = try settings.value(RevertSettings.json)
        configuration = try Configuration.load(arguments, environment: environment, needsApple: false)
    }

    func run(_ console: Console) throws -> ExitCode {
        let reverter = RunReverter(databaseURL: configuration.databaseURL, version: ReceiptRecon.version)
        let result: RevertResult
        do {
            result = try reverter.revert(runID: runID, dryRun: dryRun)
        } catch let refusal as RevertRefusal {
            throw CommandError(refusal.exitCode, "revert: \(refusal.description)")
        }
        console.write(json ? result.json + "\n" : result.text)
        return result.summary.exitCode ?? .success
    }

    /// `--json` on a failure: `status` (`skipped` when a night or the run is still going, else `failed`),
    /// `exitCode`, `reason`, the run asked for and, when the revert's own row existed, its id.
    static func failureOutput(_ failure: CommandFailure, arguments: ParsedArguments, environment: [String: String])
        -> String?
    {
        let settings = SettingResolver(arguments, environment: environment)
        guard settings.hasFlag(RevertSettings.json), failure.exitCode != .usage else { return nil }
        let object = FailedRevertJSON(
            status: failure.exitCode == .tempFail ? "skipped" : failure.end.status, exitCode: failure.exitCode,
            reason: failure.reason, runID: failure.run?.runID,
            revertedRunID: (try? settings.value(RevertSettings.run)).flatMap { $0.map(Int64.init) },
            dryRun: settings.hasFlag(RevertSettings.dryRun))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(object)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// The one JSON object `revert --json` prints when it did nothing (or an error undid what it started).
private struct FailedRevertJSON: Encodable {
    var status: String
    var exitCode: ExitCode
    var reason: String
    /// The revert's own run, when its row existed.
    var runID: Int64?
    var revertedRunID: Int64?
    var dryRun: Bool
    var restored: [String] = []
    var leftAlone: [String] = []
}
