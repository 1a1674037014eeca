import CommandLineOptions
import Reconciliation

extension CommandSpec {
    /// A command that declares what each of its exit codes means for it, in the order its help lists them.
    init(
        name: String, usage: String, summary: String, discussion: String, options: [OptionSpec],
        environment: [String], exits: KeyValuePairs<ExitCode, String>
    ) {
        self.init(
            name: name, usage: usage, summary: summary, discussion: discussion, options: options,
            environment: environment, exitCodes: exits.map(\.key),
            exitMeanings: Dictionary(exits.map { ($0.key, $0.value) }) { first, _ in first })
    }
}

/// What the exit codes of a command that only reads or fills the database mean (`report`, `export`,
/// `simulator seed`): the database's answers, in that command's words rather than the run's.
enum DatabaseCommandExit {
    static let usage = "usage error (bad flag, bad value, bad date)"
    static let unavailable = "unavailable: the database is unreachable"
    static let internalError = "internal error"
    static let noPermission = "permission denied: the database role lacks a privilege (the message names the GRANT)"
    static let configuration =
        "configuration error: DATABASE_URL is invalid, or the database is not migrated ('receipt-recon migrate') "
        + "or its job tables have another shape"
}
