import Postgres
import ReconSchema

/// How a run ended, as one value. The engine produces it (a stop decided mid-run, the finish stage's
/// verdict, the lock held, an error), and only its properties say what that means to the world: the
/// row's status, the process's exit code (CONTRACT §3), the reason, and the status the metrics file and
/// `--json` name (`skipped`, `failed` when no run row ever existed).
public enum RunEnd: Sendable, Equatable {
    /// Ran to the end; every selected receipt was answered conclusively, permanent `unverified` included
    /// (exit 0).
    case completed
    /// Ran to the end; some receipts stayed transiently `unverified`, below the breaker threshold (exit 1).
    case partial
    /// The night's Apple request budget (`--max-requests-per-hour`, `--budget-hours`) was spent: the run
    /// stopped taking users, finished those in flight, and the next night goes on from there (exit 0).
    case budgetSpent(reason: String)
    /// A circuit breaker tripped: nothing more was written, nothing that takes access away before it
    /// judged (exit 69).
    case breaker(reason: String)
    /// Receipts beyond a small share name products `products` lacks: the mapping is wrong, and nothing was
    /// written (exit 78).
    case productMapping(reason: String)
    /// Apple answered 21004 or 21000: the job's configuration is wrong, nothing more was written (exit 78).
    case appleConfiguration(reason: String)
    /// A signal stopped the run after what was in flight, or another run took its row (exit 75).
    case interrupted(reason: String)
    /// An error ended the run after its row existed (69 when the database went away, 77, 78 or 70).
    case failed(reason: String, exitCode: ExitCode)
    /// The run's row could not be written at the end (the database went away, read-only or full): the
    /// row keeps `running` until the next run marks it; `status` is what the run had come to (exit 69).
    case unrecorded(status: RunStatus, reason: String)
    /// Another run holds the shard's nightly lock: nothing was done and no row exists (exit 75).
    case lockHeld(shard: String)
    /// The run never had a row: the database unreachable, a setting wrong, the database unmigrated.
    case neverStarted(reason: String, exitCode: ExitCode)

    /// The end of a run that was not stopped: what committed is what the counters say.
    /// - Parameter unverified: receipts left transiently `unverified` (a permanent one is an answer).
    public static func ranToTheEnd(unverified: Int) -> RunEnd {
        unverified > 0 ? .partial : .completed
    }

    /// An error that ended the run once its row existed.
    public static func failed(_ error: any Error, reason: String) -> RunEnd {
        .failed(reason: reason, exitCode: exitCode(for: error))
    }

    /// The status the run's row and summary record; nil when no run row exists.
    public var recordedStatus: RunStatus? {
        switch self {
        case .completed, .budgetSpent: return .completed
        case .partial: return .partial
        case .breaker, .appleConfiguration, .productMapping: return .aborted
        case .interrupted: return .interrupted
        case .failed: return .failed
        case .unrecorded(let status, _): return status
        case .lockHeld, .neverStarted: return nil
        }
    }

    /// The status the metrics file (`last_run_status`) and `--json` name.
    public var status: String {
        switch self {
        case .lockHeld: return "skipped"
        default: return (recordedStatus ?? .failed).rawValue
        }
    }

    public var exitCode: ExitCode {
        switch self {
        case .completed, .budgetSpent: return .success
        case .partial: return .someUnverified
        case .breaker, .unrecorded: return .unavailable
        case .appleConfiguration, .productMapping: return .configuration
        case .interrupted, .lockHeld: return .tempFail
        case .failed(_, let exitCode), .neverStarted(_, let exitCode): return exitCode
        }
    }

    /// Why the run stopped or failed (the row's `abort_reason`, stderr, `--json`'s `reason`); nil for a run
    /// that ran to the end.
    public var reason: String? {
        switch self {
        case .completed, .partial: return nil
        case .breaker(let reason), .appleConfiguration(let reason), .productMapping(let reason),
            .interrupted(let reason), .budgetSpent(let reason):
            return reason
        case .failed(let reason, _), .unrecorded(_, let reason), .neverStarted(let reason, _): return reason
        case .lockHeld(let shard): return "another run holds the nightly lock for shard \(shard); nothing was done"
        }
    }

    /// A stop for anything but a signal drops the users not yet written (a signal lets what is in flight
    /// finish, CONTRACT §6).
    public var dropsUnwrittenUsers: Bool {
        switch self {
        case .interrupted, .budgetSpent: return false
        default: return true
        }
    }

    /// A later stop replaces this one: a spent budget only ends the night early, so a breaker, Apple's
    /// refusal of the configuration, a failure or a signal that comes while it drains says more.
    func yields(to later: RunEnd) -> Bool {
        if case .budgetSpent = self, later.recordedStatus != .completed { return true }
        return false
    }

    /// A database error's exit code (`ExitCode.forDatabase`: 69 when the database went away, 77 for a
    /// missing privilege, 78 for application tables of another shape), 70 for anything else.
    public static func exitCode(for error: any Error) -> ExitCode {
        (error as? PostgresError).map(ExitCode.forDatabase) ?? .internalError
    }

    /// The error's generic description (a PostgreSQL error's never carries the conninfo), with the way
    /// out for a missing privilege or a table of another shape.
    public static func describe(_ error: any Error) -> String {
        (error as? PostgresError).map(DatabaseErrorAdvice.describe) ?? "\(error)"
    }
}
