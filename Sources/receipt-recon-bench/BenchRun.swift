import ChildProcess
import Foundation
import Postgres

/// One bench, start to finish: cluster, seed, simulator, job, measurements, cleanup.
///
/// Every process it starts is a separate `receipt-recon` (the one in `jobBinary`), so what is measured
/// is the job as cron runs it. Cleanup runs on every path out of `run()`: the simulator gets SIGTERM
/// (SIGKILL after a grace period), the cluster is stopped and its directory removed, unless `--keep`
/// asked to keep it after a bench that got that far.
final class BenchRun {
    let options: BenchOptions
    let jobBinary: String
    let registry: ChildRegistry
    private let started = ContinuousClock.now

    /// The database the bench creates in its cluster.
    static let databaseName = "recon_bench"

    init(options: BenchOptions, jobBinary: String, registry: ChildRegistry) {
        self.options = options
        self.jobBinary = jobBinary
        self.registry = registry
    }

    /// Runs the bench and returns its report (possibly with missing keys, see `BenchReport.missing`).
    /// - Throws: `BenchError` when a step before the measurement fails, or the job did.
    func run() throws -> BenchReport {
        progress(
            "PostgreSQL: starting a throwaway cluster (default durability: fsync and synchronous_commit as the server ships them)"
        )
        let cluster: ScratchCluster
        do {
            cluster = try ScratchCluster()
        } catch {
            throw BenchError.unavailable("cannot start PostgreSQL: \(error)")
        }
        registry.adopt(cluster)
        defer {
            if options.keep {
                cluster.keep()
                progress(
                    "kept: DATABASE_URL='\(conninfo(cluster))'; bench files in \(cluster.directory)/bench; "
                        + "stop and remove with: \(cluster.stopCommand)")
            } else {
                cluster.stop()
            }
            registry.adopt(nil)
        }
        progress("PostgreSQL: cluster in \(cluster.directory)")
        let settings = try createDatabase(cluster)
        let workDirectory = cluster.directory + "/bench"
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)

        let pkiDirectory = workDirectory + "/pki"
        let seeded = try seed(
            databaseURL: conninfo(cluster), expectedFile: workDirectory + "/expected.json", pkiDirectory: pkiDirectory)
        let bundleIDs = seeded.expected?.bundleIDs ?? []

        let simulator = try startSimulator(pkiDirectory: pkiDirectory)
        var simulatorStopped = false
        defer { if !simulatorStopped { simulator.stop(registry: registry) } }

        let activeBefore = activeSeconds(conninfo(cluster))
        let (job, wall, jobPeak) = try runJob(
            databaseURL: conninfo(cluster), simulatorPort: simulator.port, bundleIDs: bundleIDs,
            appAppleIDs: seeded.expected?.appAppleIDs ?? [:], stderrFile: workDirectory + "/job.stderr",
            pkiDirectory: pkiDirectory)
        let summary = JobSummary(stdout: job.stdoutText)
        let simulatorStats: SimulatorProcess.Stats?
        do {
            simulatorStats = try simulator.stats()
        } catch {
            progress("the simulator's /stats could not be read: \(error)")
            simulatorStats = nil
        }
        let simulatorEnd = simulator.stop(registry: registry)
        simulatorStopped = true
        let activeAfter = activeSeconds(conninfo(cluster))
        try? (simulatorEnd?.result.stderr ?? Data()).write(
            to: URL(fileURLWithPath: workDirectory + "/simulator.stderr"))
        var activeDuringJob: Double?
        if let activeBefore, let activeAfter { activeDuringJob = activeAfter - activeBefore }

        let inputs = BenchReport.Inputs(
            options: options, job: job, jobWallSeconds: wall, jobPeakMemory: jobPeak, summary: summary,
            simulator: simulatorStats, simulatorUsage: simulatorEnd?.result.resourceUsage,
            simulatorPeakMemory: simulatorEnd?.peak, seededReceipts: seeded.receipts, seededUsers: seeded.users,
            seedSeconds: seeded.seconds, expectedCorrections: seeded.expected?.corrections,
            expectedChanges: seeded.expected?.changes,
            postgresActiveSeconds: activeDuringJob, postgresSettings: settings,
            jobBinary: jobBinary, benchSeconds: Self.seconds(ContinuousClock.now - started))
        return BenchReport(inputs)
    }

    // MARK: Steps

    struct Seeded {
        var receipts: Int?
        var users: Int?
        var seconds: Double
        var expected: ExpectedFile?
    }

    /// What the bench reads from the seeder's expected file: how the job must be run to match it, and how
    /// many corrections a correct run makes.
    struct ExpectedFile {
        var bundleIDs: [String]
        /// `app_apple_ids`: what a production Server API night is given as `APPLE_APP_APPLE_IDS`.
        var appAppleIDs: [String: Int64] = [:]
        var corrections: Int
        /// An incremental world's `changed_users` and `missed_changes`.
        var changes: (changedUsers: Int, missedChanges: Int)? = nil
    }

    private func seed(databaseURL: String, expectedFile: String, pkiDirectory: String) throws -> Seeded {
        progress("seeding about \(options.receipts) receipts (seed \(options.seed), as of \(options.asOf))…")
        let clock = ContinuousClock.now
        let arguments =
            [
                "simulator", "seed", "--database-url", databaseURL, "--receipts", String(options.receipts),
                "--seed", String(options.seed), "--as-of", options.asOf, "--expected", expectedFile,
            ] + serverAPIWorld(pkiDirectory) + (options.isServerAPI ? ["--backend", "server-api"] : [])
            + options.incrementalWorldArguments
        let result = try runToEnd(arguments, environment: baseEnvironment())
        let seconds = Self.seconds(ContinuousClock.now - clock)
        guard result.status == 0 else {
            throw BenchError.internalError(
                "'receipt-recon simulator seed' failed (exit \(result.status)): "
                    + Self.tail(result.stderrText))
        }
        // "seeded 1234 users, 5678 receipts, …"
        let line = result.stdoutText.split(separator: "\n").first { $0.hasPrefix("seeded ") } ?? ""
        let words = line.split(separator: " ")
        func count(before noun: String) -> Int? {
            guard let index = words.firstIndex(where: { $0.hasPrefix(noun) }), index > 0 else { return nil }
            return Int(words[index - 1])
        }
        var seeded = Seeded(receipts: count(before: "receipts"), users: count(before: "users"), seconds: seconds)
        seeded.expected = Self.readExpected(expectedFile)
        progress(
            "seeded \(seeded.users.map(String.init) ?? "?") users, \(seeded.receipts.map(String.init) ?? "?") receipts "
                + "in \(BenchReport.fixed(seconds, 1)) s")
        return seeded
    }

    /// Reads the expected file in 1 MiB chunks rather than as one JSON document: at a million receipts
    /// it is tens of MB, and parsing it whole would grow the bench past the job it measures (see
    /// `PeakMemoryWatch`). `bundle_ids` is one line near the top; each correction is one line with
    /// `"action": ` (ExpectedOutcome's layout; flags have none).
    private static func readExpected(_ path: String) -> ExpectedFile? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let marker = Array(#""action": "#.utf8)
        var bundleIDs: [String]?
        var appAppleIDs: [String: Int64]?
        var changes: (changedUsers: Int, missedChanges: Int)?
        var corrections = 0
        var carry: [UInt8] = []
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            let bytes = carry + chunk
            if bundleIDs == nil,
                let line = String(decoding: bytes.prefix(65_536), as: UTF8.self)
                    .split(separator: "\n").first(where: { $0.contains(#""bundle_ids": "#) })
            {
                let value = line.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces)
                    .trimmingCharacters(in: CharacterSet(charactersIn: ","))
                bundleIDs =
                    (try? JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed)) as? [String]
                    ?? []
            }
            if appAppleIDs == nil,
                let line = String(decoding: bytes.prefix(65_536), as: UTF8.self)
                    .split(separator: "\n").first(where: { $0.contains(#""app_apple_ids": "#) })
            {
                let value = line.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces)
                    .trimmingCharacters(in: CharacterSet(charactersIn: ","))
                let object = (try? JSONSerialization.jsonObject(with: Data(value.utf8))) as? [String: Any] ?? [:]
                appAppleIDs = object.compactMapValues { ($0 as? NSNumber)?.int64Value }
            }
            if changes == nil,
                let line = String(decoding: bytes.prefix(65_536), as: UTF8.self)
                    .split(separator: "\n").first(where: { $0.contains(#""incremental": "#) })
            {
                changes = Self.incrementalChanges(line)
            }
            var index = 0
            while index + marker.count <= bytes.count {
                if bytes[index] == marker[0], bytes[index..<(index + marker.count)].elementsEqual(marker) {
                    corrections += 1
                    index += marker.count
                } else {
                    index += 1
                }
            }
            // A marker split across two chunks: keep the tail that could start one.
            carry = Array(bytes.suffix(from: max(index, bytes.count - marker.count + 1)))
        }
        return ExpectedFile(
            bundleIDs: bundleIDs ?? [], appAppleIDs: appAppleIDs ?? [:], corrections: corrections, changes: changes)
    }

    /// `--pki-dir` for seed and serve under `--backend server-api`: the same world on both sides; seeding
    /// writes the simulator's throwaway signing chain and API key there.
    private func serverAPIWorld(_ pkiDirectory: String) -> [String] {
        options.isServerAPI ? ["--pki-dir", pkiDirectory] : []
    }

    private func startSimulator(pkiDirectory: String) throws -> SimulatorProcess {
        var arguments = [
            "simulator", "serve", "--port", "0", "--receipts", String(options.receipts),
            "--seed", String(options.seed), "--as-of", options.asOf,
            "--latency-ms", String(options.latencyMilliseconds), "--jitter-ms", String(options.jitterMilliseconds),
            "--fault-rate", "0",
        ]
        if options.rateLimit != nil { arguments += ["--rate-limit", options.rateText] }
        arguments += serverAPIWorld(pkiDirectory) + options.incrementalWorldArguments
        let clock = ContinuousClock.now
        let simulator: SimulatorProcess
        do {
            simulator = try SimulatorProcess.start(
                executable: jobBinary, arguments: arguments,
                environment: baseEnvironment(), registry: registry)
        } catch let error as ChildProcess.Failure {
            throw BenchError.unavailable("cannot start 'receipt-recon simulator serve': \(error)")
        }
        progress(
            "simulator serve started on 127.0.0.1:\(simulator.port) (pid \(simulator.running.pid)) in "
                + "\(BenchReport.fixed(Self.seconds(ContinuousClock.now - clock), 1)) s: latency \(options.latencyMilliseconds) ms "
                + "+ jitter up to \(options.jitterMilliseconds) ms, "
                + (options.rateLimit == nil ? "no rate limit" : "rate limit \(options.rateText)/s") + ", no faults")
        return simulator
    }

    /// Runs the job to its end and returns its result and wall time (spawn to exit).
    private func runJob(
        databaseURL: String,
        simulatorPort: UInt16,
        bundleIDs: [String],
        appAppleIDs: [String: Int64],
        stderrFile: String,
        pkiDirectory: String
    ) throws -> (ChildProcess.Result, Double, PeakMemoryWatch.Peak) {
        var arguments =
            jobModeArguments + [
                "--rate", options.jobRateText, "--concurrency", String(options.concurrency), "--as-of", options.asOf,
                "--json",
            ]
        arguments += bundleIDs.flatMap { ["--bundle-id", $0] }
        if let client = options.httpClient { arguments += ["--http-client", client] }
        arguments += options.jobArguments
        var environment = baseEnvironment()
        environment["DATABASE_URL"] = databaseURL
        environment["APPLE_VERIFY_URL_PRODUCTION"] = "http://127.0.0.1:\(simulatorPort)/production/verifyReceipt"
        environment["APPLE_VERIFY_URL_SANDBOX"] = "http://127.0.0.1:\(simulatorPort)/sandbox/verifyReceipt"
        if options.isServerAPI {
            // The simulator's throwaway key and chain: the key is named by its file, never passed as a value.
            func contents(_ name: String) -> String {
                (try? String(contentsOfFile: pkiDirectory + "/" + name, encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            }
            environment["RECON_BACKEND"] = "server-api"
            environment["APPLE_API_KEY_FILE"] = pkiDirectory + "/api-key.p8"
            environment["APPLE_API_KEY_ID"] = contents("api-key-id")
            environment["APPLE_API_ISSUER_ID"] = contents("api-issuer-id")
            environment["APPLE_SERVER_API_URL_PRODUCTION"] = "http://127.0.0.1:\(simulatorPort)/production"
            environment["APPLE_SERVER_API_URL_SANDBOX"] = "http://127.0.0.1:\(simulatorPort)/sandbox"
            environment["APPLE_ROOT_CERTIFICATES"] = pkiDirectory + "/apple-root.der"
            environment["APPLE_APP_APPLE_IDS"] = appAppleIDs.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                .joined(separator: ",")
        }
        progress("run started: receipt-recon " + arguments.joined(separator: " "))

        let memory = PeakMemoryWatch()
        let clock = ContinuousClock.now
        let running = try ChildProcess.start(jobBinary, arguments, environment: environment)
        registry.add(running.pid)
        defer { registry.remove(running.pid) }
        memory.watch(running.pid)
        let reporter = ProgressReporter(every: 30) { [port = simulatorPort] in
            guard let body = try? LoopbackHTTP.get(port: port, path: "/stats", timeoutSeconds: 5),
                let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                let requests = object["requests"] as? Int
            else { return nil }
            return "… \(requests) verifyReceipt requests so far (\(object["rateLimited"] as? Int ?? 0) answered 429)"
        }
        reporter.start()
        let result = try running.wait()
        let wall = Self.seconds(ContinuousClock.now - clock)
        let peak = memory.finish(result.resourceUsage)
        reporter.stop()
        try? result.stderr.write(to: URL(fileURLWithPath: stderrFile))
        progress("run finished: exit \(result.status) in \(BenchReport.fixed(wall, 1)) s")
        guard [0, 1].contains(result.status) else {
            throw BenchError.measurement(
                "the job failed: 'receipt-recon run' exited \(result.status) after "
                    + "\(BenchReport.fixed(wall, 1)) s: " + Self.tail(result.stderrText))
        }
        return (result, wall, peak)
    }

    // MARK: PostgreSQL

    private func conninfo(_ cluster: ScratchCluster) -> String {
        "host=\(cluster.directory) user=recon dbname=\(Self.databaseName)"
    }

    private func connect(_ conninfo: String) throws -> PostgresConnection {
        do {
            return try PostgresConnection(conninfo: conninfo, applicationName: "receipt-recon-bench")
        } catch {
            throw BenchError.unavailable("cannot connect to the bench's PostgreSQL: \(error)")
        }
    }

    /// Creates the bench's database and returns the durability settings in force, reported so that a
    /// reader sees the bench did not turn them off.
    private func createDatabase(_ cluster: ScratchCluster) throws -> [String: String] {
        let connection = try connect(cluster.conninfo)
        do {
            _ = try connection.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(Self.databaseName)"))
        } catch {
            throw BenchError.unavailable("cannot create the bench's database: \(error)")
        }
        var settings: [String: String] = [:]
        for name in ["fsync", "synchronous_commit"] {
            settings[name] = try connection.query(PostgresQuery(unsafeSQL: "SHOW \(name)")).first?.decode(
                at: 0, as: String.self)
        }
        return settings
    }

    /// `pg_stat_database.active_time` of the bench's database, seconds: the server's time executing
    /// statements there (PostgreSQL 14+; nil before, or when unreadable). Sessions report it when they
    /// end, so a reading after the job's exit covers the whole job.
    private func activeSeconds(_ conninfo: String) -> Double? {
        guard let connection = try? connect(conninfo) else { return nil }
        guard let milliseconds = try? connection.activeMilliseconds(ofDatabase: Self.databaseName) else { return nil }
        return milliseconds / 1000
    }

    // MARK: Helpers

    private func runToEnd(_ arguments: [String], environment: [String: String]) throws -> ChildProcess.Result {
        let running = try ChildProcess.start(jobBinary, arguments, environment: environment)
        registry.add(running.pid)
        defer { registry.remove(running.pid) }
        return try running.wait()
    }

    /// PATH, HOME, LANG and TMPDIR only: the caller's DATABASE_URL or APPLE_* never reach the children.
    private func baseEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for name in ["PATH", "HOME", "LANG", "TMPDIR"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
        return environment
    }

    private func progress(_ line: String) {
        FileHandle.standardError.write(Data("receipt-recon-bench: \(line)\n".utf8))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// The last lines of a child's stderr, for an error message.
    static func tail(_ text: String, lines: Int = 8) -> String {
        let kept = text.split(separator: "\n").suffix(lines).joined(separator: "\n")
        return kept.isEmpty ? "(nothing on stderr)" : kept
    }
}
