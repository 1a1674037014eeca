/// `receipt-recon inspect FILE|-`: decode one receipt locally and print it as JSON; no network.
struct InspectCommand: Command {
    static let spec = CommandSpec(
        name: "inspect",
        usage: "inspect FILE|-",
        summary: "Decode one receipt locally (base64 app receipt or iOS 6 transaction receipt) and print it as JSON.",
        discussion: "Reads base64 receipt data from FILE, or from stdin with '-'; whitespace is ignored. No network.",
        options: [],
        environment: [],
        exitCodes: [.success, .usage, .dataError, .internalError]
    )

    let path: String

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        guard arguments.positionals.count == 1 else {
            throw .usage(arguments.positionals.isEmpty ? "missing FILE (or '-' for stdin)" : "expected one FILE, got \(arguments.positionals.count)",
                         command: "inspect")
        }
        path = arguments.positionals[0]
    }

    func run(_ console: Console) throws -> ExitCode {
        notImplemented(console)
    }
}
