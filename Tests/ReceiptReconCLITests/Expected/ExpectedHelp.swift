/// Every command's `--help`, whole, as an operator reads it: one file a command
/// (`ExpectedHelp+Command.swift`), so a change to a help text is a change a reviewer reads in this
/// folder. `CommandLineTests.everyHelpIsItsExpectedTextWhole` compares the built binary's output.
enum ExpectedHelp {
    /// The expected help of each command line before `--help` (`""`: `receipt-recon --help`).
    static let byCommand: [String: String] = [
        "": topLevel, "migrate": migrate, "mapping": mapping, "run": run, "verify-user": verifyUser,
        "export": export, "report": report, "revert": revert, "demo": demo, "inspect": inspect,
        "simulator seed": simulatorSeed, "simulator serve": simulatorServe,
    ]
}
