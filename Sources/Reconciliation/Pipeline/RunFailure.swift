/// An error that ended a run after its row in `recon_runs` existed, with what the run knew: its id,
/// and a summary that records the run's end (`RunEnd.failed`: status `failed`, the process's exit code
/// and what went wrong). `run --json` prints that summary; the row holds it too when the database
/// still answered (`RunStore.recordFailure`), or else the next run rebuilds the row from its rows.
public struct RunFailure: Error, CustomStringConvertible {
    public var summary: RunSummary
    public let underlying: any Error
    public let end: RunEnd

    /// - Parameters:
    ///   - summary: the run's figures so far; its status, exit code and reason are replaced.
    ///   - reason: what went wrong, for the row, stderr and `--json`.
    init(_ error: any Error, summary: RunSummary, reason: String) {
        underlying = error
        end = .failed(error, reason: reason)
        self.summary = summary
        self.summary.record(end)
    }

    public var runID: Int64 { summary.runID }
    /// The exit code the row came to record: `end`'s, unless another run had already finished the row
    /// (`recordFailure` then hands back what the row says).
    public var exitCode: ExitCode { summary.exitCode ?? .internalError }
    public var description: String { summary.abortReason ?? RunEnd.describe(underlying) }
}
