import Foundation
import TestSupport
import Testing

/// `cron/receipt-recon.service` and `.timer` as systemd reads them: `systemd-analyze verify` clean in a
/// scratch root that holds the wrapper where ExecStart names it, and `systemd-analyze security`
/// rating the service's exposure 4.0 or lower.
@Suite struct SystemdUnitTests {
    static let cron = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("cron")
    static let unitPath = cron.appendingPathComponent("receipt-recon.service").path
    static let analyze = "/usr/bin/systemd-analyze"

    /// A root directory with systemd's own units, ours, and the wrapper at ExecStart's path.
    static func scratchRoot(wrapperMode: mode_t = 0o755) throws -> URL {
        let files = FileManager.default
        let root = files.temporaryDirectory.appendingPathComponent("systemd-root-\(UUID().uuidString)")
        let systemUnits = ["/usr/lib/systemd/system", "/lib/systemd/system"].first {
            files.fileExists(atPath: $0 + "/sysinit.target")
        }
        let units = try #require(systemUnits, "systemd's units (Debian package systemd)")
        try files.createDirectory(at: root.appendingPathComponent("usr/lib/systemd"), withIntermediateDirectories: true)
        try files.copyItem(atPath: units, toPath: root.appendingPathComponent("usr/lib/systemd/system").path)
        let etc = root.appendingPathComponent("etc/systemd/system")
        try files.createDirectory(at: etc, withIntermediateDirectories: true)
        for unit in ["receipt-recon.service", "receipt-recon.timer"] {
            try files.copyItem(at: cron.appendingPathComponent(unit), to: etc.appendingPathComponent(unit))
        }
        let unit = try String(contentsOfFile: unitPath, encoding: .utf8)
        let execStart = try #require(
            unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") }?.dropFirst("ExecStart=".count))
        let wrapper = root.appendingPathComponent(String(execStart.drop { $0 == "/" }))
        try files.createDirectory(at: wrapper.deletingLastPathComponent(), withIntermediateDirectories: true)
        try files.copyItem(at: cron.appendingPathComponent("receipt-recon-nightly.sh"), to: wrapper)
        #expect(chmod(wrapper.path, wrapperMode) == 0)
        return root
    }

    static func verify(_ root: URL) throws -> ChildProcess.Result {
        try ChildProcess.run(
            analyze, ["verify", "--root=\(root.path)", "receipt-recon.service", "receipt-recon.timer"], timeout: 120)
    }

    @Test func verifyIsClean() throws {
        let root = try Self.scratchRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try Self.verify(root)
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        #expect(result.stdoutText.isEmpty && result.stderrText.isEmpty, "\(result.stdoutText)\(result.stderrText)")
    }

    /// The same check notices a unit that cannot start: the wrapper not executable.
    @Test func verifyNoticesAWrapperThatCannotRun() throws {
        let root = try Self.scratchRoot(wrapperMode: 0o644)
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try Self.verify(root)
        #expect(result.status != 0)
        #expect(result.stderrText.contains("is not executable"), "\(result.stderrText)")
    }

    @Test func exposureIsAtMostFour() throws {
        let result = try ChildProcess.run(Self.analyze, ["security", "--offline=true", Self.unitPath], timeout: 120)
        let text = result.stdoutText + result.stderrText
        let line = try #require(
            text.split(separator: "\n").first { $0.contains("Overall exposure level for receipt-recon.service:") },
            "\(text)")
        let score = line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        let exposure = try #require(score, "\(line)")
        #expect(exposure <= 4.0, "\(text)")
    }

    /// systemd counts only a night that ran, or was stopped by another run, as success: never the
    /// wrapper's own install problems (72, 73, 78) nor a failed job.
    @Test func onlyOneAndSeventyFiveCountAsSuccessBesideZero() throws {
        let unit = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
        let lines = unit.split(separator: "\n").filter { $0.hasPrefix("SuccessExitStatus=") }
        #expect(lines == ["SuccessExitStatus=1 75"])
    }
}
