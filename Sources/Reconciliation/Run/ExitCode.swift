/// Process exit codes, sysexits style (CONTRACT §3). cron wrappers and alerting read these.
public enum ExitCode: Int32, Sendable, CaseIterable, Codable {
    /// Completed; every selected receipt was answered conclusively (a permanent `unverified` is an answer),
    /// or the night's request budget ran out.
    case success = 0
    /// Completed, but some receipts stayed transiently `unverified` (below the breaker threshold).
    case someUnverified = 1
    /// Usage error: bad flag, bad value, bad date.
    case usage = 64
    /// Data error: `verify-user` for a user with no receipts and no entitlements; input that is not a receipt.
    case dataError = 65
    /// Unavailable: database or Apple unreachable (a night whose answers were nearly all transient
    /// failures, at any size), a circuit breaker tripped, or `verify-user` found the hour's request budget
    /// spent.
    case unavailable = 69
    /// Internal error.
    case internalError = 70
    /// Another `run` holds the lock, or the run was interrupted: nothing more was done; try again later.
    case tempFail = 75
    /// Permission denied (EX_NOPERM): the database role lacks a privilege; the message names the GRANT.
    case noPermission = 77
    /// Configuration error: missing/invalid configuration, a database not migrated or whose application
    /// tables do not have the shape the job needs, Apple status 21004 (shared secret) or 21000.
    case configuration = 78

    /// One line for `--help` and the README.
    public var meaning: String {
        switch self {
        case .success:
            return
                "completed; every selected receipt was answered conclusively (permanently unverified ones are "
                + "flagged and counted apart), or the night's request budget ran out (the reason says so)"
        case .someUnverified:
            return
                "completed, but some receipts stayed transiently unverified (below the breaker threshold); the next "
                + "night asks again"
        case .usage: return "usage error (bad flag, bad value, bad date)"
        case .dataError:
            return
                "data error (verify-user: user has no receipts and no entitlements; inspect: not a receipt, or a "
                + "signature that fails; revert: an unknown run, a dry run or a revert)"
        case .unavailable:
            return
                "unavailable: database or Apple unreachable (a night of nearly only transient failures, at any "
                + "size), a circuit breaker tripped (nothing taken away), or verify-user found the hour's request "
                + "budget spent"
        case .internalError: return "internal error"
        case .tempFail: return "another run holds the lock, or the run was interrupted; nothing more was done"
        case .noPermission:
            return "permission denied: the database role lacks a privilege (the message names the GRANT)"
        case .configuration:
            return
                "configuration error: missing/invalid configuration, database not migrated or of the wrong shape, "
                + "a products kind none of the four (or NULL) or products the receipts name that it lacks, an empty "
                + "receipts beside active app_store entitlements, Apple status 21004 or 21000"
        }
    }
}
