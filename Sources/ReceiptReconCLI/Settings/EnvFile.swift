import CommandLineOptions
import Foundation

/// `--env-file PATH`, taken by every command: the configuration variables read from the nightly
/// wrapper's env file (`EnvFileFormat`), beneath the process environment and the flags. A file that is
/// missing, unreadable or has a line the wrapper would refuse is a configuration error (78) naming the
/// file and the line, never a value.
enum EnvFile {
    static let option = OptionSpec(
        "env-file", .value(placeholder: "PATH"),
        "read configuration variables from PATH: KEY=VALUE lines in the nightly wrapper's format "
            + "(cron/env.example), read as data; a variable set in the environment, and a flag, override "
            + "the file's")

    /// `environment` with the variables of `arguments`' `--env-file` beneath it: a variable set (not
    /// empty) in the process environment keeps its value. Without `--env-file`, `environment` as it is.
    static func environment(_ arguments: ParsedArguments, over environment: [String: String]) throws(CommandError)
        -> [String: String]
    {
        guard let path = arguments.value(option.name) else { return environment }
        var merged = try variables(at: path)
        for (name, value) in environment where !value.isEmpty || merged[name] == nil { merged[name] = value }
        return merged
    }

    /// libpq reads its own variables (`PGPASSFILE`, `PGSSLROOTCERT`, …) from the process, as the
    /// wrapper's `export` gives them: the file's `PG*` variables the process does not set are set in it.
    static func exportLibpqVariables(_ merged: [String: String], process: [String: String]) {
        for (name, value) in merged where name.hasPrefix("PG") && process[name] == nil {
            setenv(name, value, 1)
        }
    }

    static func variables(at path: String) throws(CommandError) -> [String: String] {
        guard !path.isEmpty else {
            throw .configuration("--env-file needs a file's path, not an empty one")
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .configuration(
                "env file \(path): \(String(cString: strerror(errno))); nothing was run "
                    + "(the format: docs/operations.md, \"Env file\")")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw .configuration("env file \(path) is not a regular file; nothing was run")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .configuration(
                "env file \(path) cannot be read by this user; nothing was run (fix its owner or mode: "
                    + "it holds secrets, so 0600 and owned by the job's user)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .configuration("env file \(path) is not UTF-8 text; nothing was run")
        }
        do throws(EnvFileFormat.Refusal) {
            return try EnvFileFormat.variables(text)
        } catch {
            throw .configuration(
                "env file \(path) line \(error.line): \(error.problem); nothing was run "
                    + "(fix the env file; the format: docs/operations.md, \"Env file\")")
        }
    }
}
