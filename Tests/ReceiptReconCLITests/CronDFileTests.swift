import Foundation
import TestSupport
import Testing

/// The cron.d file as Debian's cron finds it: installed under the name docs/operations.md's install
/// command gives it, a name run-parts accepts (Debian's cron skips the others without a word), and the
/// file the command installs is the repository's.
@Suite struct CronDFileTests {
    /// The names `run-parts --list` keeps among `names`: Debian's own test of the rule cron.d shares.
    static func runPartsKeeps(_ names: [String]) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cron.d-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in names {
            try Data().write(to: directory.appendingPathComponent(name))
        }
        let result = try ChildProcess.run("/usr/bin/run-parts", ["--list", directory.path], timeout: 30)
        try #require(result.status == 0, "\(result.stderrText)")
        return result.stdoutText.split(separator: "\n").map { String($0.split(separator: "/").last ?? "") }
    }

    /// The rule itself, checked against run-parts: dots (a `.crontab` suffix) and `~` are not read.
    @Test func runPartsReadsOnlyLettersDigitsHyphensAndUnderscores() throws {
        let kept = try Self.runPartsKeeps(["receipt-recon", "receipt_recon2", "receipt-recon.crontab", "x.dpkg-old"])
        #expect(Set(kept) == ["receipt-recon", "receipt_recon2"])
    }

    /// `install … cron/FILE /etc/cron.d/NAME` from docs/operations.md: NAME is one run-parts reads,
    /// FILE is in the repository, root's and mode 0644, and holds the wrapper's line.
    @Test func theDocumentedInstallCommandPutsTheFileWhereCronReadsIt() throws {
        let operations = try DeployDocuments.text("docs/operations.md")
        let line = try #require(
            operations.split(separator: "\n").first { $0.hasPrefix("install ") && $0.contains("/etc/cron.d/") },
            "docs/operations.md shows no install command for /etc/cron.d")
        let words = (line.split(separator: "#").first ?? line).split(separator: " ").map(String.init)
        #expect(words.contains("0644") && words.contains("root"), "\(line)")
        let target = try #require(words.last)
        let source = try #require(words.dropLast().last)
        let name = String(target.dropFirst("/etc/cron.d/".count))
        #expect(try Self.runPartsKeeps([name]) == [name], "cron skips /etc/cron.d/\(name)")
        let file = try DeployDocuments.text(source)
        let job = try #require(
            file.split(separator: "\n").first { !$0.hasPrefix("#") && $0.contains("receipt-recon-nightly.sh") })
        #expect(job.split(separator: " ").count >= 7, "five time fields, a user, a command: \(job)")
        #expect(file.contains("/etc/cron.d/\(name)"), "the file names where it goes")
    }

    /// No document, script or test still installs a name cron skips.
    @Test func nothingNamesTheOldFile() throws {
        for path in [
            "README.md", "docs/operations.md", "docs/architecture.md", "Dockerfile", "cron/receipt-recon.service",
        ] {
            let text = try DeployDocuments.text(path)
            #expect(!text.contains("cron/receipt-recon.crontab"), "\(path)")
        }
        #expect(
            !FileManager.default.fileExists(
                atPath: DeployDocuments.root.appendingPathComponent("cron/receipt-recon.crontab").path))
    }
}
