import Postgres
import ReconSchema
import Reconciliation

/// How an error ends a command: its exit code, its one line for stderr, and what `--json` needs to
/// say about it. `ReceiptRecon.main` maps every error through here.
struct CommandFailure {
    let exitCode: ExitCode
    let message: String
    /// The run the error ended, when its row existed: its id, status `failed` and figures so far.
    let run: RunSummary?
    /// How `run` or `verify-user` ended: the run's own end when its row existed, else the lock held or
    /// a run that never started. Its `status` is what the metrics file and `--json` name.
    let end: RunEnd

    init(_ error: any Error) {
        var run: RunSummary?
        var end: RunEnd?
        switch error {
        case let error as CommandError:
            (exitCode, message) = (error.exitCode, error.message)
        case let error as RunEndedWithoutRow:
            (exitCode, message, end) = (error.end.exitCode, error.description, error.end)
        case let error as RunFailure:
            (exitCode, message, end) = (error.exitCode, "run \(error.runID): \(error.description)", error.end)
            run = error.summary
        case let error as EngineError:
            (exitCode, message) = (.configuration, error.description)
        case let error as SchemaNotReady:
            (exitCode, message) = (ExitCode.forSchema(error), error.message)
        case let error as PostgresError:
            (exitCode, message) = (ExitCode.forDatabase(error), DatabaseErrorAdvice.describe(error))
        default:
            (exitCode, message) = (.internalError, "internal error: \(error)")
        }
        self.run = run
        self.end = end ?? .neverStarted(reason: message, exitCode: exitCode)
    }

    /// Why, without the run's id prefix: the `reason` of the JSON object.
    var reason: String { run?.abortReason ?? message }
}

/// The engine ended `run` before a run row existed (another run holds the shard's nightly lock): the
/// command's stderr line, `--json` object and metrics come from `end`, as for an error.
struct RunEndedWithoutRow: Error, CustomStringConvertible {
    let end: RunEnd

    var description: String { end.reason ?? end.status }
}
