import CommandLineOptions

/// The one guard of every command's positional arguments: none, none beyond those already read, or
/// exactly one. Refusals are usage errors (64) pointing at the command's help.
extension ParsedArguments {
    /// Refuses positional arguments beyond the first `taken` (`export VIEW` takes one).
    /// - Throws: a usage error naming the first one too many.
    func refusePositionals(after taken: Int = 0) throws(CommandError) {
        do throws(OptionError) {
            try expectNoPositionals(after: taken)
        } catch {
            throw CommandError(usage: error)
        }
    }

    /// The command's one positional argument, `name` in its usage line.
    /// - Parameters:
    ///   - missing: what follows `missing NAME` when there is none.
    ///   - counted: what follows the count when there are several (`expected one NAME, got 2 arguments`).
    ///   - nonEmpty: an empty argument counts as a wrong one.
    /// - Throws: a usage error saying what is missing or how many were given.
    func onePositional(_ name: String, missing: String = "", counted: String = "", nonEmpty: Bool = false)
        throws(CommandError) -> String
    {
        guard positionals.count == 1, let argument = positionals.first, !nonEmpty || !argument.isEmpty else {
            throw CommandError(
                usage: usageError(
                    positionals.isEmpty
                        ? "missing \(name)\(missing)" : "expected one \(name), got \(positionals.count)\(counted)"))
        }
        return argument
    }
}
