import CommandLineOptions
import Foundation

/// `receipt-recon-bench`: parse, run, print, and map every failure to an exit code.
enum Bench {
    static func main(arguments: [String]) -> Int32 {
        let options: BenchOptions
        do {
            options = try BenchOptions(arguments)
        } catch {
            fail(error.description)
            return BenchError.Kind.usage.rawValue
        }
        if options.wantsHelp {
            FileHandle.standardOutput.write(Data(BenchOptions.help.utf8))
            return 0
        }
        if options.jsonKeys {
            let report = JSONKeysBench.run()
            FileHandle.standardOutput.write(Data(report.text.utf8))
            return report.missing.isEmpty ? 0 : BenchError.Kind.measurement.rawValue
        }
        do {
            let jobBinary = try JobExecutable.locate(override: options.jobBinary)
            let registry = ChildRegistry()
            registry.installSignalHandlers()
            let report = try BenchRun(options: options, jobBinary: jobBinary, registry: registry).run()
            FileHandle.standardOutput.write(Data(report.text.utf8))
            guard report.missing.isEmpty else {
                for (key, reason) in report.missing { fail("\(key) not measured: \(reason)") }
                return BenchError.Kind.measurement.rawValue
            }
            return 0
        } catch let error as BenchError {
            fail(error.message)
            return error.exitCode
        } catch {
            fail("internal error: \(error)")
            return BenchError.Kind.internalError.rawValue
        }
    }

    private static func fail(_ message: String) {
        FileHandle.standardError.write(Data("receipt-recon-bench: error: \(message)\n".utf8))
    }
}
