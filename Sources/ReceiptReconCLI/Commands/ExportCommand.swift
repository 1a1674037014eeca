import CommandLineOptions
import Foundation
import Postgres
import ReconSchema
import Reconciliation

/// `receipt-recon export VIEW --from T --to T`: finance CSVs (CONTRACT §8).
struct ExportCommand: Command {
    static let views = ["transactions", "corrections", "flags"]

    static let spec = CommandSpec(
        name: "export",
        usage: "export VIEW --from T --to T [--output FILE] [--environment production|sandbox|all]",
        summary: "Write a reconciliation CSV for finance: transactions, corrections or flags.",
        discussion: """
            VIEW is transactions (filtered on purchased_at), corrections or flags (filtered on created_at). \
            The range is half-open [from, to) in UTC; T is YYYY-MM-DD or an ISO 8601 instant. RFC 4180 CSV, \
            UTF-8, CRLF, stable order. With --output, FILE.manifest.json records rows and sha256.
            """,
        options: [
            OptionSpec("from", .value(placeholder: "T"), "start of the range, inclusive (required)"),
            OptionSpec("to", .value(placeholder: "T"), "end of the range, exclusive (required)"),
            OptionSpec(
                "output", .value(placeholder: "FILE"), "write the CSV to FILE and a manifest beside it",
                default: "stdout"),
            OptionSpec(
                "environment", .value(placeholder: "production|sandbox|all"),
                "transactions only: which App Store environment's rows", default: "production"),
        ] + Configuration.databaseOptions,
        environment: ["DATABASE_URL"],
        exitCodes: [.success, .usage, .unavailable, .internalError, .noPermission, .configuration]
    )

    let view: String
    let from: Date
    let to: Date
    let output: String?
    let environment: String
    let configuration: Configuration

    init(_ arguments: ParsedArguments, environment variables: [String: String]) throws(CommandError) {
        guard let view = arguments.positionals.first else {
            throw .usage("missing VIEW: one of \(Self.views.joined(separator: ", "))", command: "export")
        }
        guard Self.views.contains(view) else {
            throw .usage(
                "unknown view '\(view)': expected one of \(Self.views.joined(separator: ", "))", command: "export")
        }
        guard arguments.positionals.count == 1 else {
            throw .usage("unexpected argument '\(arguments.positionals[1])'", command: "export")
        }
        guard let from = try arguments.read.instant("from") else { throw .usage("missing --from T", command: "export") }
        guard let to = try arguments.read.instant("to") else { throw .usage("missing --to T", command: "export") }
        guard from < to else {
            let (fromText, toText) = (arguments.value("from") ?? "", arguments.value("to") ?? "")
            throw .usage(
                "the range [--from \(fromText), --to \(toText)) is \(from == to ? "empty" : "reversed"); "
                    + "--to must be after --from", command: "export")
        }
        self.view = view
        self.from = from
        self.to = to
        output = arguments.value("output")
        environment = try arguments.read.choice("environment", ["production", "sandbox", "all"]) ?? "production"
        if arguments.has("environment"), view != "transactions" {
            throw .usage("--environment applies to the transactions view only", command: "export")
        }
        configuration = try Configuration.load(arguments, environment: variables, needsApple: false)
    }

    func run(_ console: Console) throws -> ExitCode {
        guard let view = ReconciliationExport.View(rawValue: view) else { return .usage }
        let export = ReconciliationExport(view: view, from: from, to: to, environment: environment)
        let connection = try PostgresConnection(
            conninfo: configuration.databaseURL, applicationName: "receipt-recon export")
        try SchemaReadiness.require(on: connection, applicationTables: false)
        do {
            if let output {
                try ExportFile.write(export, from: connection, toFile: output)
            } else {
                try ExportFile.write(export, from: connection, to: FileHandle.standardOutput)
            }
        } catch let failure as OutputFile.Failure {
            throw CommandError(.internalError, "export: \(failure.description)")
        }
        return .success
    }
}
