import Foundation

/// An incremental night (`--changed-fraction`): the world `simulator seed|serve --changed-fraction`
/// makes, and a run that reads the notification history instead of taking everyone.
extension BenchRun {
    /// `run` and how it selects users: everyone (`--older-than 0`), or, on an incremental night, the
    /// notified, new and swept users (`--sweep-days D`, no `--older-than`), either way with the hourly
    /// budget `BenchOptions.jobMaxRequestsPerHour`.
    var jobModeArguments: [String] {
        var arguments = ["run"]
        if options.isIncremental {
            arguments += ["--sweep-days", String(options.sweepDays)]
        } else {
            arguments += ["--older-than", "0"]
        }
        return arguments + ["--max-requests-per-hour", String(options.jobMaxRequestsPerHour)]
    }

    /// `changed_users` and `missed_changes` of the expected file's `"incremental": {…}` line.
    static func incrementalChanges(_ line: Substring) -> (changedUsers: Int, missedChanges: Int)? {
        let value = line.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces)
            .trimmingCharacters(in: CharacterSet(charactersIn: ","))
        guard let object = try? JSONSerialization.jsonObject(with: Data(value.utf8)) as? [String: Any],
            let changed = (object["changed_users"] as? NSNumber)?.intValue,
            let missed = (object["missed_changes"] as? NSNumber)?.intValue
        else { return nil }
        return (changed, missed)
    }
}
