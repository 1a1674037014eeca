import Foundation
import ReceiptReconCLI

exit(
    ReceiptRecon.main(
        arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
