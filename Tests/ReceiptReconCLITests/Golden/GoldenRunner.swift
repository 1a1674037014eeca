import Foundation
import Glibc
import Postgres
import TestSupport

/// Runs one section of commands.txt against a `receipt-recon` binary and returns its records.
///
/// Everything a command line could make vary is fixed where it can be: the environment is only
/// PATH, HOME, LANG=C.UTF-8, TMPDIR and what the section sets; databases have fixed names; worlds a
/// fixed seed and `--as-of`. What cannot be fixed is masked by `GoldenNormalisation`.
final class GoldenRunner {
    /// The binary under test: `RECON_GOLDEN_BINARY`, or the one SwiftPM built beside the tests.
    static var binary: String {
        let configured = ProcessInfo.processInfo.environment["RECON_GOLDEN_BINARY"] ?? ""
        return configured.isEmpty ? ReceiptReconBinary.url.path : configured
    }

    /// One throwaway cluster for the test process's golden sections; databases are named per section.
    static let cluster = Result { try ScratchCluster(settings: ["fsync": "off", "synchronous_commit": "off"]) }

    let section: GoldenScript.Section
    let temporary: URL
    let cluster: ScratchCluster
    let port: UInt16
    private var environment: [String: String]
    private var database: String?
    private var server: ChildProcess.Running?
    private(set) var records: [GoldenRecord] = []
    /// What went wrong beside a mismatch (a world's expectation missed, a setup step failed).
    private(set) var failures: [String] = []

    init(section: GoldenScript.Section) throws {
        self.section = section
        _ = GoldenNormalisation.suiteStarted
        cluster = try Self.cluster.get()
        temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
            "golden-\(section.name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        port = try LoopbackSocket.freePort()
        environment = ["LANG": "C.UTF-8", "TMPDIR": temporary.path]
        for name in ["PATH", "HOME", "RECON_PG_BINDIR"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
    }

    deinit {
        stopServer()
        try? FileManager.default.removeItem(at: temporary)
    }

    var normalisation: GoldenNormalisation {
        GoldenNormalisation(
            temporary: temporary.path, clusterDirectory: cluster.directory, conformance: Conformance.directory?.path)
    }

    func run() throws {
        for step in section.steps {
            try perform(step)
        }
        stopServer()
    }

    /// `$TMP`, `$DB`, `$PORT` and `$CONFORMANCE` replaced.
    func expand(_ token: String) -> String {
        var token = token.replacingOccurrences(of: "$TMP", with: temporary.path)
            .replacingOccurrences(of: "$PORT", with: String(port))
            .replacingOccurrences(of: "$CONFORMANCE", with: Conformance.directory?.path ?? "/nonexistent/conformance")
        if let database { token = token.replacingOccurrences(of: "$DB", with: database) }
        return token
    }

    private func perform(_ step: GoldenScript.Step) throws {
        switch step {
        case .command(let command):
            try run(command)
        case .database(let name):
            let name = "golden_" + (section.name + "_" + name).replacingOccurrences(of: "-", with: "_")
            let admin = try PostgresConnection(conninfo: cluster.conninfo, applicationName: "receipt-recon golden")
            try admin.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
            database = try ConnectionString(cluster.conninfo).replacingDatabase(with: name).rendered
        case .environment(let assignments):
            for (variable, value) in assignments { environment[variable] = expand(value) }
        case .environmentFromFile(let variable, let file):
            let text = try String(contentsOfFile: expand(file), encoding: .utf8)
            environment[variable] = text.split(separator: "\n").first.map(String.init) ?? ""
        case .serve(let arguments):
            stopServer()
            server = try ChildProcess.start(Self.binary, arguments.map(expand), environment: environment)
            guard LoopbackSocket.waitUntilListening(port: port) else {
                throw GoldenFailure(description: "@serve \(arguments.joined(separator: " ")): nothing listened")
            }
        case .stop:
            stopServer()
        case .show(let name, let file):
            let contents = try String(contentsOfFile: expand(file), encoding: .utf8)
            records.append(
                .file(section: section.name, name: name, path: file, contents: normalisation.apply(contents)))
        case .write(let file, let text):
            try Data(expand(text).utf8).write(to: URL(fileURLWithPath: expand(file)))
        case .expectWorld(let name, let file):
            guard let database else { throw GoldenFailure(description: "@expect-world before @database") }
            let check = try WorldExpectationCheck(
                expectedFile: URL(fileURLWithPath: expand(file)), connection: PostgresConnection(conninfo: database))
            records.append(GoldenRecord(section: section.name, name: name, text: check.text))
            if !check.isExact { failures.append("\(section.name)/\(name): \(check.differences)") }
        }
    }

    private func run(_ command: GoldenScript.Command) throws {
        var environment = environment
        for (variable, value) in command.environment { environment[variable] = expand(value) }
        let input = try command.stdin.map { try Data(contentsOf: URL(fileURLWithPath: expand($0))) }
        let result = try ChildProcess.run(
            Self.binary, command.arguments.map(expand), environment: environment, stdin: input, timeout: 300)
        var stdout = normalisation.apply(result.stdoutText)
        if command.unordered { stdout = GoldenNormalisation.unordered(stdout) }
        if let pattern = command.keepLines { stdout = try GoldenNormalisation.keepingLines(stdout, matching: pattern) }
        records.append(
            .command(
                section: section.name, name: command.name, line: command.line, status: result.status, stdout: stdout,
                stderr: normalisation.apply(result.stderrText)))
    }

    private func stopServer() {
        guard let server else { return }
        server.signal(SIGTERM)
        _ = try? server.wait(timeout: 30)
        self.server = nil
    }
}

struct GoldenFailure: Error, CustomStringConvertible {
    let description: String
}
