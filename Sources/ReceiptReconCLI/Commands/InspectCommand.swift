import AppStoreReceipts
import CommandLineOptions
import Foundation
import Reconciliation

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
            throw .usage(
                arguments.positionals.isEmpty
                    ? "missing FILE (or '-' for stdin)" : "expected one FILE, got \(arguments.positionals.count)",
                command: "inspect")
        }
        path = arguments.positionals[0]
    }

    func run(_ console: Console) throws -> ExitCode {
        let input: Data
        if path == "-" {
            input = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandError(
                    .dataError, "inspect: cannot read '\(path)': check that the file exists and is readable")
            }
            input = data
        }
        // The decoder bounds size, depth and every length itself; it never echoes the bytes.
        do {
            let receipt = try LocalReceiptDecoder.decode(base64Text: input)
            console.print(receipt.inspectJSON())
            return .success
        } catch {
            throw CommandError(.dataError, "inspect: not a receipt: \(error)")
        }
    }
}
