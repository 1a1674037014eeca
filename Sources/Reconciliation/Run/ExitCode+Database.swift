import Postgres
import ReconSchema

extension ExitCode {
    /// How a database error ends a command or a run: 69 when the database is away, read-only or full
    /// (rerun once it is back), 77 for a missing privilege, 78 for a connection string that does not
    /// parse or application tables of another shape, 70 for anything else.
    public static func forDatabase(_ error: PostgresError) -> ExitCode {
        switch error.kind {
        case .connection: return .unavailable
        case .invalidConnectionString: return .configuration
        case .decoding, .client: return .internalError
        case .server:
            if error.isUnavailable { return .unavailable }
            switch DatabaseErrorAdvice.kind(of: error) {
            case .permission: return .noPermission
            case .schemaShape: return .configuration
            case nil: return .internalError
            }
        }
    }

    /// A database the job must not use yet: 77 when the role may not use the job's schema, else 78.
    public static func forSchema(_ reason: SchemaNotReady) -> ExitCode {
        reason.kind == .permission ? .noPermission : .configuration
    }
}
