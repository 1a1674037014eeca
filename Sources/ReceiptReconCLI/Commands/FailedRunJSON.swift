import CommandLineOptions
import Foundation
import Reconciliation

/// The one JSON object `run --json` and `verify-user --json` print when an error, not the run's own
/// end, decided the exit: the cron wrapper and whatever reads its log get a JSON object on every exit
/// that got past parsing the arguments, with `status`, `exitCode` (the process's) and `reason`.
///
/// When the run's row existed, the object is its summary (the shape a finished run prints, with its
/// `runID`); otherwise no run exists and the object says what is known from the arguments.
struct FailedRunJSON: Encodable {
    /// `failed`, or `skipped` when another run holds the nightly lock (`RunEnd.status`).
    var status: String
    var exitCode: ExitCode
    var reason: String
    var kind: RunKind
    var dryRun: Bool?
    var asOf: Date?
    var shard: String?
    /// No run, no refunds recorded: the key is in every `run --json` object all the same (CONTRACT §9).
    var refundedAmount: [RefundedAmount] = []
    var reversedRefundAmount: [RefundedAmount] = []

    /// The object for `failure`, or nil when none is printed: without `--json`, or for a usage error,
    /// whose arguments were not understood.
    static func render(
        _ failure: CommandFailure, kind: RunKind, arguments: ParsedArguments, environment: [String: String]
    ) -> String? {
        guard arguments.has("json"), failure.exitCode != .usage else { return nil }
        if var summary = failure.run {
            summary.exitCode = failure.exitCode
            return summary.json
        }
        var object = FailedRunJSON(
            status: failure.end.status, exitCode: failure.exitCode, reason: failure.reason,
            kind: kind)
        // The options, where they were valid (a bad variable among them is what may have failed).
        if let settings = try? RunSettings(arguments, environment: environment) {
            let shard = settings[RunScopeSettings.shard]
            object.dryRun = settings[RunScopeSettings.dryRun]
            object.asOf = settings[RunScopeSettings.asOf]
            object.shard = kind == .nightly ? "\(shard.index)/\(shard.count)" : "user"
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(object)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
