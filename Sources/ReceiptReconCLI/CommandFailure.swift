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
    /// Nothing was attempted (another run holds the nightly lock), as opposed to failed.
    let skipped: Bool

    init(_ error: any Error) {
        var run: RunSummary?
        var skipped = false
        switch error {
        case let error as CommandError:
            (exitCode, message) = (error.exitCode, error.message)
        case let error as NightlyLockHeld:
            (exitCode, message) = (.tempFail, error.description)
            skipped = true
        case let error as RunFailure:
            (exitCode, message) = (error.exitCode, "run \(error.runID): \(error.description)")
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
        self.skipped = skipped
    }

    /// Why, without the run's id prefix: the `reason` of the JSON object.
    var reason: String { run?.abortReason ?? message }
}

/// `run` found its shard's nightly lock held by another run: nothing was done (exit 75).
struct NightlyLockHeld: Error, CustomStringConvertible {
    let shard: String

    var description: String { "another run holds the nightly lock for shard \(shard); nothing was done" }
}
