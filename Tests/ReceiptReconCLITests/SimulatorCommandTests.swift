import AppStoreReceipts
import Foundation
import Postgres
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `simulator seed` and `simulator serve` through the built binary, as a staging rehearsal uses them:
/// seed a database, serve the same world, and every stored receipt is one the simulated Apple issued.
@Suite struct SimulatorCommandTests {
    static let world = ["--users", "150", "--seed", "4", "--as-of", "2026-11-22T03:00:00Z"]

    @Test func seedWritesTheDatabaseAndTheExpectedFile() throws {
        try TestDatabase.with(migrated: false) { database in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "expected-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            let result = try ReceiptReconBinary.run(
                ["simulator", "seed", "--database-url", database.conninfo, "--expected", file.path] + Self.world)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.stdout.hasPrefix("seeded 150 users, "))
            let connection = try database.connect()
            let receipts = try connection.query("SELECT count(*) FROM receipts")[0].decode(at: 0, as: Int.self)
            #expect(result.stdout.contains("\(receipts) receipts"))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            #expect(json["as_of"] as? String == "2026-11-22T03:00:00Z")
            #expect((json["corrections"] as? [Any])?.isEmpty == false)
            #expect((json["flags"] as? [Any])?.isEmpty == false)
            #expect((json["run"] as? String)?.contains("--bundle-id com.example.recon") == true)
            #expect(!result.output.contains("MII"), "no receipt data in the output")

            // A second seed refuses to mix worlds.
            let again = try ReceiptReconBinary.run(
                ["simulator", "seed", "--database-url", database.conninfo] + Self.world)
            #expect(again.status == 65, "\(again.output)")
            #expect(again.stderr.contains("not empty"))
        }
    }

    @Test func serveAnswersTheSeededReceiptsAndStopsOnSIGTERM() throws {
        let receipts = try TestDatabase.with(migrated: false) { database -> [String] in
            let result = try ReceiptReconBinary.run(
                ["simulator", "seed", "--database-url", database.conninfo] + Self.world)
            #expect(result.status == 0, "\(result.output)")
            let rows = try database.connect().query("SELECT receipt_data FROM receipts ORDER BY id LIMIT 40")
            return try rows.map { try $0.decode(at: 0, as: String.self) }
        }

        // Not Foundation.Process: once used, its SIGCHLD handling reaps children that ChildProcess (the
        // other tests' runner) waits for, and those tests hang.
        let server = try BackgroundProcess(
            ReceiptReconBinary.url.path, ["simulator", "serve", "--port", "0"] + Self.world)
        defer { server.kill() }

        let line = try server.firstLine(within: .seconds(60))
        #expect(line.hasPrefix("listening on http://127.0.0.1:"), "\(line)")
        let production = try #require(line.firstMatch(of: /production: (\S+),/).map { String($0.1) })
        #expect(line.contains("/sandbox/verifyReceipt"))

        // Synchronous, like every test that drives a child process: an async test's sleeps wait for a
        // cooperative-pool thread, and with the suite's blocking tests holding both (2 cores) this test
        // starved past its deadline in CI. Waiting for the project's own transport blocks only this thread.
        let url = try #require(URL(string: production))
        let transport = URLSessionTransport(maxConnectionsPerHost: 4, timeout: .seconds(30))
        var statuses: [Int] = []
        for receipt in receipts {
            let body = (try? JSONSerialization.data(withJSONObject: ["receipt-data": receipt])) ?? Data()
            let result = transport.postNow(
                url, body: body, headers: ["Content-Type": "application/json"], timeout: .seconds(30))
            guard case .response(let reply) = result, reply.statusCode == 200,
                let json = try? JSONSerialization.jsonObject(with: reply.body) as? [String: Any],
                let status = json["status"] as? Int
            else {
                switch result {
                case .failed(let failure): throw ServeFailure(detail: "\(failure)")
                case .response(let reply): throw ServeFailure(detail: reply.summary)
                }
            }
            statuses.append(status)
        }
        // The same world on both sides: valid receipts, redirects and the world's deliberate failures,
        // never a receipt the simulated Apple does not know (21003 comes only from a tampered one).
        #expect(statuses.contains(0))
        #expect(Set(statuses).isSubset(of: [0, 21002, 21003, 21006, 21007, 21010, 21199]), "\(statuses)")
        #expect(statuses.filter { $0 == 21003 }.count <= 1)

        server.signal(SIGTERM)
        let status = try server.exitStatus(within: .seconds(30))
        #expect(status == 0)
        let errors = server.stderr
        #expect(errors.contains("stopped after \(receipts.count) verifyReceipt requests"), "\(errors)")
        #expect(!errors.contains("MII") && !server.stdout.contains("MII"))
    }

    @Test func serveRefusesBadKnobs() throws {
        for (arguments, named) in [
            (["--fault-rate", "1.5"], "--fault-rate"), (["--rate-limit", "0"], "--rate-limit"),
            (["--users", "5", "--receipts", "10"], "--receipts"),
            (["--environment", "staging"], "--environment"),
        ] {
            let result = try ReceiptReconBinary.run(["simulator", "serve"] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.output)")
            #expect(result.stderr.contains(named))
        }
    }
}

struct ServeFailure: Error, CustomStringConvertible {
    let detail: String
    var description: String { "the simulator did not answer a receipt: \(detail)" }
}

/// The built binary running in the background with stdout and stderr in temporary files, spawned with
/// `posix_spawn` and waited for with `waitpid` on its own pid only.
final class BackgroundProcess: Sendable {
    let pid: pid_t
    private let directory: URL

    init(_ executable: String, _ arguments: [String]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 1, directory.appendingPathComponent("out").path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(
            &actions, 2, directory.appendingPathComponent("err").path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let entry: String = "PATH=" + path
        let envp: [UnsafeMutablePointer<CChar>?] = [strdup(entry), nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else { throw CocoaError(.executableLoad) }
        self.pid = pid
    }

    var stdout: String { (try? String(contentsOf: directory.appendingPathComponent("out"), encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: directory.appendingPathComponent("err"), encoding: .utf8)) ?? "" }

    func signal(_ number: Int32) { Glibc.kill(pid, number) }

    /// SIGKILL and reap, if still running; removes the output files.
    func kill() {
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == 0 {
            Glibc.kill(pid, SIGKILL)
            _ = waitpid(pid, &status, 0)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The first line of stdout, polled (the process writes it once listening).
    func firstLine(within limit: Duration) throws -> String {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let newline = stdout.firstIndex(of: "\n") { return String(stdout[..<newline]) }
            usleep(20_000)
        }
        throw ServeFailure(detail: "no line on stdout within \(limit); stderr: \(stderr.suffix(300))")
    }

    /// The port of the first loopback address `simulator serve` prints once listening (`--port 0`).
    func listeningPort(within limit: Duration) throws -> UInt16 {
        let line = try firstLine(within: limit)
        guard let port = line.firstMatch(of: /127\.0\.0\.1:(\d+)/).flatMap({ UInt16($0.1) }) else {
            throw ServeFailure(detail: "no 127.0.0.1:PORT in its first line: \(line)")
        }
        return port
    }

    /// The exit status once the process ends (128 + n for a signal).
    func exitStatus(within limit: Duration) throws -> Int32 {
        let deadline = ContinuousClock.now + limit
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            if waitpid(pid, &status, WNOHANG) == pid {
                let signal = status & 0x7F
                return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            }
            usleep(20_000)
        }
        throw ServeFailure(detail: "the simulator did not exit within \(limit)")
    }
}
