@_exported import ChildProcess
import Foundation

/// Runs the built `receipt-recon` executable the way cron or an operator would, and captures what it printed.
public enum ReceiptReconBinary {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
        /// Both streams, for "this must appear nowhere" checks.
        public var output: String { stdout + stderr }
    }

    /// The executable SwiftPM built next to the test bundle (`swift test` builds it first because the
    /// test target depends on it).
    public static var url: URL { builtProduct("receipt-recon") }

    /// The `receipt-recon-bench` executable, built beside `receipt-recon` (the CLI test target depends on it).
    public static var benchURL: URL { builtProduct("receipt-recon-bench") }

    static func builtProduct(_ name: String) -> URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // On Linux the test executable may sit inside a `.xctest` bundle directory.
        while directory.pathExtension == "xctest" { directory = directory.deletingLastPathComponent() }
        return directory.appendingPathComponent(name)
    }

    /// Runs `receipt-recon arguments…` with a minimal environment (PATH, HOME, LANG) plus `environment`,
    /// so that the developer's own DATABASE_URL or APPLE_* variables never leak into a test.
    public static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        stdin: Data? = nil,
        timeout: TimeInterval = 120
    ) throws -> Result {
        let result = try start(arguments, environment: environment, stdin: stdin).wait(timeout: timeout)
        return Result(status: result.status, stdout: result.stdoutText, stderr: result.stderrText)
    }

    /// Starts `receipt-recon arguments…` and returns at once, for tests that signal or race it.
    public static func start(
        _ arguments: [String],
        environment: [String: String] = [:],
        stdin: Data? = nil
    ) throws -> ChildProcess.Running {
        var base: [String: String] = [:]
        for name in ["PATH", "HOME", "LANG", "TMPDIR", "RECON_PG_BINDIR"] {
            if let value = ProcessInfo.processInfo.environment[name] { base[name] = value }
        }
        return try ChildProcess.start(
            url.path, arguments, environment: base.merging(environment) { _, new in new },
            stdin: stdin)
    }

}
