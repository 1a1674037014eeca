/// Why `revert --run ID` did nothing at all, before its own run row existed: the message names the problem
/// and the way out, the exit code says whether trying again later can help (75) or not (65).
public struct RevertRefusal: Error, CustomStringConvertible, Sendable {
    public let exitCode: ExitCode
    public let description: String

    /// `skipped` when another run is in the way (try again later), `failed` otherwise: the `status` of
    /// `--json`, as `run`'s when its lock is held.
    public var status: String { exitCode == .tempFail ? "skipped" : "failed" }

    static func noSuchRun(_ runID: Int64) -> RevertRefusal {
        RevertRefusal(
            exitCode: .dataError,
            description: "there is no run \(runID) in recon_runs ('receipt-recon report --list' lists the runs)")
    }

    static func dryRun(_ runID: Int64) -> RevertRefusal {
        RevertRefusal(
            exitCode: .dataError,
            description: "run \(runID) was a dry run: it changed no entitlement, so there is nothing to revert")
    }

    static func revert(_ runID: Int64, of reverted: Int64?) -> RevertRefusal {
        RevertRefusal(
            exitCode: .dataError,
            description: "run \(runID) is itself a revert" + (reverted.map { " (of run \($0))" } ?? "")
                + "; a revert is not undone by another: the next night, or 'receipt-recon verify-user USER_ID', "
                + "puts back what Apple says")
    }

    static func nightGoing(shard: String) -> RevertRefusal {
        RevertRefusal(
            exitCode: .tempFail,
            description: "a nightly run of shard \(shard) is going (it holds the shard's nightly lock); nothing "
                + "was done: revert again once it has ended ('receipt-recon report --list' shows it running)")
    }

    static func stillGoing(_ runID: Int64) -> RevertRefusal {
        RevertRefusal(
            exitCode: .tempFail,
            description: "run \(runID) is still going; nothing was done: revert it once it has ended")
    }
}
