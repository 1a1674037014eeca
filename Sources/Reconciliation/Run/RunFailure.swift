import Postgres
import ReconSchema

/// An error that ended a run after its row in `recon_runs` existed, with what the run knew: its id,
/// and a summary whose status is `failed`, whose exit code is the process's and whose `abortReason`
/// says what went wrong. `run --json` prints that summary; the row holds it too when the database
/// still answered (`RunStore.recordFailure`), or else the next run rebuilds the row from its rows.
public struct RunFailure: Error, CustomStringConvertible {
    public var summary: RunSummary
    public let underlying: any Error

    /// - Parameters:
    ///   - summary: the run's figures so far; its status, exit code and reason are replaced.
    ///   - reason: what went wrong, for the row, stderr and `--json`.
    init(_ error: any Error, summary: RunSummary, reason: String) {
        underlying = error
        self.summary = summary
        self.summary.status = .failed
        self.summary.exitCode = Self.exitCode(for: error)
        self.summary.abortReason = reason
    }

    public var runID: Int64 { summary.runID }
    public var exitCode: ExitCode { summary.exitCode ?? .internalError }
    public var description: String { summary.abortReason ?? Self.describe(underlying) }

    /// A database error's exit code (`ExitCode.forDatabase`: 69 when the database went away, 77 for a
    /// missing privilege, 78 for application tables of another shape), 70 for anything else.
    static func exitCode(for error: any Error) -> ExitCode {
        (error as? PostgresError).map(ExitCode.forDatabase) ?? .internalError
    }

    /// The error's generic description (a PostgreSQL error's never carries the conninfo), with the way
    /// out for a missing privilege or a table of another shape.
    static func describe(_ error: any Error) -> String {
        (error as? PostgresError).map(DatabaseErrorAdvice.describe) ?? "\(error)"
    }
}
