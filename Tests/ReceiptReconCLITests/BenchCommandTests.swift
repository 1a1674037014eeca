import Foundation
import TestSupport
import Testing

/// `receipt-recon-bench` through its built binary, as a developer runs it: every key it promises, with
/// a sane value, and nothing left running or on disk afterwards. No timing thresholds: the figures
/// depend on the machine; what is checked is that they are there and mean what they say.
@Suite struct BenchCommandTests {
    static let required = [
        "throughput_ratio", "receipts_per_second", "cpu_ms_per_1k_receipts", "peak_rss_mb",
        "apple_requests_per_receipt", "over_limit_429", "db_seconds", "wall_seconds",
    ]

    /// Runs the bench with the test process's PATH, HOME and LANG only, and a temporary directory of its
    /// own: its cluster must not appear among the `recon-pg-*` directories other tests watch (the demo
    /// test checks that it leaves none behind).
    /// `inspect` sees that directory before it is removed.
    static func bench(
        _ arguments: [String],
        executable: String = ReceiptReconBinary.benchURL.path,
        inspect: (URL) throws -> Void = { _ in }
    ) throws -> ChildProcess.Result {
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("bench-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        var environment = ["TMPDIR": temporary.path]
        for name in ["PATH", "HOME", "LANG", "RECON_PG_BINDIR"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
        let result = try ChildProcess.run(executable, arguments, environment: environment, timeout: 900)
        try inspect(temporary)
        return result
    }

    /// `ideal_receipts_per_second` as the bench defines it: min(R, C / (L + J/2)), L and J in seconds;
    /// R nil without a rate limit.
    static func ideal(
        rate: Double?,
        concurrency: Double,
        latencyMilliseconds: Double,
        jitterMilliseconds: Double
    ) -> Double {
        let bound = concurrency / ((latencyMilliseconds + jitterMilliseconds / 2) / 1000)
        return rate.map { min($0, bound) } ?? bound
    }

    /// The ideal keys agree with the formula, and the ratio with receipts_per_second / ideal, within the
    /// rounding they are printed with (0.1 for the rates, 0.001 for the ratio).
    static func expectIdealKeys(_ values: [String: String], formula: Double) throws {
        let ideal = try #require(values["ideal_receipts_per_second"].flatMap(Double.init), "\(values)")
        let ratio = try #require(values["ideal_ratio"].flatMap(Double.init), "\(values)")
        let perSecond = try #require(values["receipts_per_second"].flatMap(Double.init))
        #expect(abs(ideal - formula) <= 0.05 + 1e-9, "ideal_receipts_per_second \(ideal), formula \(formula)")
        #expect(
            abs(ratio - perSecond / ideal) <= 0.0005 + 0.15 / ideal,
            "ideal_ratio \(ratio), receipts_per_second \(perSecond), ideal \(ideal)")
    }

    /// stdout's `key=value` lines; a key printed twice keeps its last value (the first test checks there is none).
    static func keyValues(_ stdout: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        return values
    }

    @Test func aSmallBenchPrintsEveryKeyWithASaneValueAndLeavesNothingBehind() throws {
        var leftInTemporary: [String] = []
        let result = try Self.bench([
            "--receipts", "300", "--rate", "200", "--concurrency", "8",
            "--latency-ms", "5", "--jitter-ms", "2", "--seed", "3",
        ]) { temporary in
            leftInTemporary = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        }
        let stderr = result.stderrText
        #expect(result.status == 0, "exit \(result.status): \(stderr)")

        // stdout is key=value lines only, each key once.
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        var values: [String: String] = [:]
        for line in lines {
            let parts = line.split(separator: "=", maxSplits: 1)
            #expect(parts.count == 2 && !parts[0].isEmpty, "not key=value: '\(line)'")
            guard parts.count == 2 else { continue }
            #expect(values.updateValue(String(parts[1]), forKey: String(parts[0])) == nil, "key twice: \(parts[0])")
        }
        let keys = lines.map { String($0.prefix { $0 != "=" }) }
        let present = Self.required.filter { values[$0] != nil }
        #expect(Array(keys.prefix(present.count)) == present, "the required keys come first, in order")

        func number(_ key: String) -> Double? { values[key].flatMap(Double.init) }
        #expect(try #require(number("throughput_ratio")) > 0)
        #expect(try #require(number("receipts_per_second")) > 0)
        #expect(try #require(number("cpu_ms_per_1k_receipts")) > 0)
        #expect(try #require(number("peak_rss_mb")) > 0)
        // Not ≥ 1: the world holds receipts the job rules on locally (empty, not base64, Xcode) and
        // duplicates it verifies once. With no faults, what the simulator received is what the job sent.
        #expect(try #require(number("apple_requests_per_receipt")) > 0)
        #expect(
            values["apple_requests"] != nil && values["apple_requests"] == values["job_apple_requests"],
            "simulator received \(values["apple_requests"] ?? "?"), job sent \(values["job_apple_requests"] ?? "?")")
        let over = try #require(values["over_limit_429"])
        #expect(Int(over).map { $0 >= 0 } == true, "over_limit_429 is a count: '\(over)'")
        #expect(try #require(number("wall_seconds")) > 0)
        // The job waited on PostgreSQL for at least its own writes, and the figure is a number.
        #expect(try #require(number("db_seconds")) > 0, "db_seconds: \(values["db_seconds"] ?? "missing")")
        // Here the rate limit binds: C / (L + J/2) = 8 / 0.006 s is far above R = 200.
        try Self.expectIdealKeys(
            values,
            formula: Self.ideal(
                rate: 200, concurrency: 8, latencyMilliseconds: 5,
                jitterMilliseconds: 2))

        // Extras a reader relies on: what was run, and that PostgreSQL kept its default durability.
        #expect(try #require(Int(values["receipts"] ?? "")) > 0)
        #expect(values["rate"] == "200")
        #expect(values["concurrency"] == "8")
        #expect(values["job_exit_code"].flatMap(Int32.init).map { [0, 1].contains($0) } == true)
        #expect(
            ["wait4", "sampled"].contains(values["peak_rss_source"] ?? ""), "\(values["peak_rss_source"] ?? "missing")")
        #expect(
            try #require(Int(values["expected_corrections"] ?? "")) > 0,
            "the seeded world's expected corrections were read")
        #expect(values["pg_fsync"] == "on")
        #expect(values["pg_synchronous_commit"] == "on")
        #expect(values["job_binary"] == ReceiptReconBinary.url.path)
        // The job's hourly budget leaves room for the world (the job's own default would make a full run of
        // 100,000 receipts wait for the next clock hour), and the run was given exactly that budget.
        let budget = try #require(Int(values["job_max_requests_per_hour"] ?? ""), "\(values)")
        #expect(budget >= 90_000 && budget >= 4 * 300, "\(budget)")
        #expect(stderr.contains("--max-requests-per-hour \(budget) "), "\(stderr)")

        // Nothing left behind: the bench's temporary directory (where its cluster lived) is empty, and the
        // simulator has exited.
        #expect(try #require(stderr.firstMatch(of: /cluster in (\S+)/)).1.contains("/bench-test-"), "\(stderr)")
        #expect(leftInTemporary.isEmpty, "left behind: \(leftInTemporary)")
        let serve = try #require(
            stderr.firstMatch(of: /simulator serve started on \S+ \(pid (\d+)\)/).flatMap { pid_t($0.1) })
        #expect(kill(serve, 0) == -1 && errno == ESRCH, "simulator process \(serve) still exists")
        #expect(!stderr.contains("MII"), "no receipt data in the bench's output")
    }

    /// An incremental night (`--changed-fraction`) on a small world: its keys are there and sane, and the
    /// run corrects exactly what the seeded world expects.
    @Test func aSmallIncrementalNightPrintsItsKeysAndCorrectsWhatTheWorldExpects() throws {
        let result = try Self.bench([
            "--backend", "server-api", "--changed-fraction", "0.2", "--receipts", "300", "--rate", "200",
            "--concurrency", "8", "--latency-ms", "5", "--jitter-ms", "2", "--seed", "3",
        ])
        #expect(result.status == 0, "exit \(result.status): \(result.stderrText)")
        let values = Self.keyValues(result.stdoutText)
        func integer(_ key: String) -> Int? { values[key].flatMap { Int($0) } }
        #expect(try #require(values["apple_requests_per_user"].flatMap(Double.init), "\(values)") > 0)
        #expect(try #require(integer("notification_requests"), "\(values)") > 0)
        let changed = try #require(integer("changed_users"), "\(values)")
        let missed = try #require(integer("missed_changes"), "\(values)")
        #expect(changed > 0 && missed > 0 && missed <= changed, "\(values)")
        // `reason:count` pairs, the notified users' among them.
        let reasons = try #require(values["requests_by_reason"], "\(values)").split(separator: ",").map {
            $0.split(separator: ":").map(String.init)
        }
        #expect(reasons.allSatisfy { $0.count == 2 && Int($0[1]).map { $0 >= 0 } == true }, "\(reasons)")
        #expect(reasons.contains { $0[0] == "notified" && Int($0[1]).map { $0 > 0 } == true }, "\(reasons)")
        #expect(values["sweep_days"] == "30")
        #expect(
            values["corrections"] != nil && values["corrections"] == values["expected_corrections"], "\(values)")
        // Where the night's time went, each phase its own key (`run --json`'s `phaseSeconds`).
        for phase in ["history_read", "queue_fill", "verification", "write", "finish"] {
            let seconds = try #require(values["phase_\(phase)_seconds"].flatMap(Double.init), "\(phase): \(values)")
            #expect(seconds >= 0, "\(phase): \(seconds)")
        }
    }

    @Test func rateZeroMeansNoLimitAndTheIdealFollowsConcurrencyAndLatency() throws {
        let result = try Self.bench([
            "--receipts", "300", "--rate", "0", "--concurrency", "4",
            "--latency-ms", "20", "--jitter-ms", "10", "--seed", "3", "--max-requests-per-hour", "5000",
        ])
        #expect(result.status == 0, "exit \(result.status): \(result.stderrText)")
        let values = Self.keyValues(result.stdoutText)
        #expect(values["job_max_requests_per_hour"] == "5000", "a budget given is passed as given")
        #expect(result.stderrText.contains("--max-requests-per-hour 5000 "), "\(result.stderrText)")
        for key in Self.required where key != "throughput_ratio" {
            #expect(values[key] != nil, "\(key) missing: \(result.stdoutText)")
        }
        #expect(values["throughput_ratio"] == nil, "there is no R to divide by")
        #expect(values["rate"] == "0")
        let jobRate = try #require(values["job_rate"].flatMap(Double.init), "\(values)")
        #expect(jobRate >= 1_000_000, "the job's own rate must never bind")
        #expect(values["over_limit_429"] == "0")
        #expect(result.stderrText.contains("no rate limit"), "\(result.stderrText)")
        try Self.expectIdealKeys(
            values,
            formula: Self.ideal(
                rate: nil, concurrency: 4, latencyMilliseconds: 20,
                jitterMilliseconds: 10))
    }

    @Test(arguments: [
        (["--receipts", "0"], "--receipts"),
        (["--rate", "fast"], "--rate"),
        (["--rate", "-1"], "--rate"),
        (["--concurrency"], "--concurrency"),
        (["--users", "10"], "--users"),
        (["--keep=yes"], "--keep"),
        (["--seed", "1", "--seed", "2"], "--seed"),
        (["--as-of", "yesterday"], "--as-of"),
        (["stray"], "stray"),
    ])
    func aBadFlagExits64WithOneLine(arguments: [String], named: String) throws {
        let result = try Self.bench(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderrText)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderrText)")
        #expect(result.stderrText.contains(named))
    }

    /// The bench reads `--as-of` with the job's own reader: what one refuses the other refuses in the same
    /// words, and what the job accepts the bench takes (checked without a cluster: `--help` follows it).
    @Test(arguments: ["yesterday", "2026-11-01T03:00", "2026-11-01T03:00+01:", "2026-02-30"])
    func theBenchRefusesAnAsOfTheJobRefusesInTheJobsWords(value: String) throws {
        let bench = try Self.bench(["--as-of", value])
        let job = try ReceiptReconBinary.run(["run", "--as-of", value], environment: [:])
        #expect(bench.status == 64 && job.status == 64, "\(bench.stderrText)\(job.stderr)")
        // From the option's name to the pointer at the program's own help.
        let refusal = { (text: String) -> String? in
            guard let start = text.range(of: "--as-of"), let end = text.range(of: " (see '") else { return nil }
            return String(text[start.lowerBound..<end.lowerBound])
        }
        #expect(refusal(bench.stderrText) != nil)
        #expect(refusal(bench.stderrText) == refusal(job.stderr))
    }

    /// `--as-of` spellings, each with whether the job takes it (CONTRACT: an ISO 8601 date, or a date and
    /// time with an offset or Z).
    static let asOfSpellings: [(spelling: String, taken: Bool)] = [
        ("2026-11-01", true), ("2026-11-01T03:00:00.250+05:45", true), ("2026-11-01 03:00z", true),
        ("2026-11-01T03:00:00Z", true), ("2026-11-01T03:00", false), ("2026-02-30", false),
        ("01/11/2026", false), ("yesterday", false), ("", false),
    ]

    /// Whether `receipt-recon run` takes `--as-of value`: it refuses a bad spelling with exit 64 naming
    /// the option before it connects (to a port nobody listens on, so a spelling it takes ends 69).
    static func jobTakes(_ value: String) throws -> Bool {
        let port = try LoopbackSocket.freePort()
        let result = try ReceiptReconBinary.run(
            ["run", "--as-of", value],
            environment: ["DATABASE_URL": "host=127.0.0.1 port=\(port) dbname=recon user=recon connect_timeout=5"],
            timeout: 60)
        #expect([64, 69].contains(result.status), "\(value): \(result.output)")
        return !(result.status == 64 && result.stderr.contains("--as-of"))
    }

    /// The bench reads every option before it answers `--help`: 0 when it takes the spelling, 64 when not.
    static func benchTakes(_ value: String) throws -> Bool {
        try Self.bench(["--as-of", value, "--help"]).status == 0
    }

    @Test func theBenchTakesEverySpellingTheJobTakes() throws {
        let expected = Self.asOfSpellings.map(\.taken)
        let job = try Self.asOfSpellings.map { try Self.jobTakes($0.spelling) }
        let bench = try Self.asOfSpellings.map { try Self.benchTakes($0.spelling) }
        #expect(job == expected, "\(Self.asOfSpellings.map(\.spelling))")
        #expect(bench == job, "\(Self.asOfSpellings.map(\.spelling))")
    }

    @Test func withoutTheJobBinaryBesideItTheBenchSaysHowToBuildIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bench-alone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("receipt-recon-bench")
        // Copied by cp(1), not FileManager: a write descriptor open in this process would be inherited by
        // a child another test spawns meanwhile, and exec'ing the copy would then fail with ETXTBSY.
        let copied = try ChildProcess.run("/bin/cp", [ReceiptReconBinary.benchURL.path, copy.path], timeout: 60)
        try #require(copied.status == 0, "\(copied.stderrText)")
        let result = try Self.bench(["--receipts", "10"], executable: copy.path)
        #expect(result.status == 69, "\(result.stderrText)")
        #expect(result.stderrText.contains("swift build -c"), "\(result.stderrText)")
        #expect(result.stderrText.contains("--product receipt-recon"))
        #expect(result.stdout.isEmpty)
    }

    @Test func helpListsEveryKey() throws {
        let result = try Self.bench(["--help"])
        #expect(result.status == 0)
        for key in Self.required + ["ideal_receipts_per_second", "ideal_ratio", "--rate R"] {
            #expect(result.stdoutText.contains(key), "\(key) missing from --help")
        }
    }
}
