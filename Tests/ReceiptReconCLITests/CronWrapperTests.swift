import AppStoreSimulator
import Foundation
import Postgres
import TestSupport
import Testing

/// `cron/receipt-recon-nightly.sh` as cron runs it: env file, flock, dated log, one-line verdict.
@Suite struct CronWrapperTests {
    static let wrapper = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("cron/receipt-recon-nightly.sh").path

    struct Setup {
        let directory: URL
        let environment: [String: String]
        var log: String {
            let logs =
                (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("logs").path))
                ?? []
            return logs.compactMap {
                try? String(contentsOf: directory.appendingPathComponent("logs/\($0)"), encoding: .utf8)
            }
            .joined()
        }
    }

    /// A directory with `logs/` and an env file holding `envFile`, and the wrapper's environment pointing
    /// into it.
    static func setUp(envFile text: String) throws -> Setup {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cron-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("logs"), withIntermediateDirectories: true)
        let envFile = directory.appendingPathComponent("env")
        try text.write(to: envFile, atomically: true, encoding: .utf8)
        return Setup(
            directory: directory,
            environment: [
                "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                "RECEIPT_RECON_ENV": envFile.path,
                "RECEIPT_RECON_BIN": ReceiptReconBinary.url.path,
                "RECEIPT_RECON_LOG_DIR": directory.appendingPathComponent("logs").path,
                "RECEIPT_RECON_LOCK_FILE": directory.appendingPathComponent("lock").path,
                "RECEIPT_RECON_METRICS_FILE": directory.appendingPathComponent("receipt_recon.prom").path,
            ])
    }

    static func setUp(_ database: TestDatabase, _ simulator: AppStoreSimulator) throws -> Setup {
        try setUp(
            envFile: """
                DATABASE_URL="\(database.conninfo)"
                APPLE_VERIFY_URL_PRODUCTION=\(simulator.productionURL.absoluteString)
                APPLE_VERIFY_URL_SANDBOX=\(simulator.sandboxURL.absoluteString)
                APPLE_BUNDLE_IDS=\(WorldCatalog.appBundleID)
                """)
    }

    /// The night's mail says why: the run's own reason (here the unreachable database, from its JSON),
    /// not a pointer to the log.
    @Test func aFailedNightsLineCarriesTheRunsReason() throws {
        let port = try LoopbackSocket.freePort()
        let setup = try Self.setUp(
            envFile: "DATABASE_URL=\"host=127.0.0.1 port=\(port) dbname=shop user=recon_job connect_timeout=5\"\n")
        let directory = setup.directory
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ChildProcess.run("/bin/bash", [Self.wrapper], environment: setup.environment, timeout: 120)
        #expect(result.status == 69, "\(result.stdoutText)\(result.stderrText)")
        let line = result.stdoutText.split(separator: "\n").last.map(String.init) ?? ""
        // The reason the binary itself gave, in its JSON object in the log.
        let logs = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("logs").path)
        let log = try String(contentsOf: directory.appendingPathComponent("logs/\(logs[0])"), encoding: .utf8)
        let json = try #require(log.split(separator: "\n").last { $0.hasPrefix("{") }, "\(log)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let reason = try #require(object["reason"] as? String)
        #expect(line.contains("receipt-recon exit 69: "), "\(line)")
        #expect(line.contains("; reason: \(reason); needs a human: YES"), "\(line)")
        #expect(reason.contains("127.0.0.1") || reason.contains("\(port)"), "names what was unreachable: \(reason)")
    }

    @Test func aCleanNightAndAHeldLockAreReportedInOneLine() throws {
        // 400 users: every world holds one user of each rare drift, which in a smaller world would
        // (rightly) trip the revoke breaker.
        let world = SimulatedWorld(
            users: 400, seed: 3, asOf: ISO8601DateFormatter().date(from: "2026-11-01T00:00:00Z")!)
        let simulator = AppStoreSimulator(world: world)
        try simulator.start(port: 0)
        defer { simulator.stop() }
        try TestDatabase.with { database in
            _ = try WorldSeeder.seed(world, into: database.connect())
            let setup = try Self.setUp(database, simulator)
            defer { try? FileManager.default.removeItem(at: setup.directory) }
            let arguments = [Self.wrapper, "--older-than", "0", "--as-of", "2026-11-01T00:00:00Z"]

            let clean = try ChildProcess.run("/bin/bash", arguments, environment: setup.environment, timeout: 300)
            #expect([0, 1].contains(clean.status), "\(clean.stdoutText)\(clean.stderrText)")
            #expect(clean.stdoutText.contains("receipt-recon exit \(clean.status): completed"))
            #expect(setup.log.contains("\"status\""), "the JSON summary is in the dated log")
            #expect(setup.log.contains("needs a human: no"))
            let metrics = try String(contentsOfFile: setup.environment["RECEIPT_RECON_METRICS_FILE"]!, encoding: .utf8)
            #expect(metrics.contains("receipt_recon_last_success_timestamp_seconds{shard=\"0/1\"}"))

            // The job's own lock, held by another session: the wrapper reports 75 and changes nothing.
            let holder = try database.connect()
            #expect(try holder.tryAdvisoryLock(AdvisoryLockKey(name: "receipt-recon:nightly:0/1")))
            let held = try ChildProcess.run("/bin/bash", arguments, environment: setup.environment, timeout: 300)
            #expect(held.status == 75, "\(held.stdoutText)\(held.stderrText)")
            #expect(held.stdoutText.contains("receipt-recon exit 75: another run holds the lock"))
            #expect(try holder.advisoryUnlock(AdvisoryLockKey(name: "receipt-recon:nightly:0/1")))

            // The wrapper's own flock, held by another wrapper: 75 without starting the job.
            let lock = open(setup.environment["RECEIPT_RECON_LOCK_FILE"]!, O_CREAT | O_RDWR, 0o600)
            defer { close(lock) }
            #expect(flock(lock, LOCK_EX | LOCK_NB) == 0)
            let flocked = try ChildProcess.run("/bin/bash", arguments, environment: setup.environment, timeout: 60)
            #expect(flocked.status == 75)
            #expect(setup.log.contains("another wrapper holds"))
        }
    }
}
