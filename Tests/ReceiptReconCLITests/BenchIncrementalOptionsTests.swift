import ChildProcess
import Foundation
import Testing

/// The bench's incremental night (`--changed-fraction`), checked without a cluster: each incremental
/// option given without `--changed-fraction` (or with the verify-receipt backend) or out of range exits
/// 64 with one line naming it, and the options together are accepted and listed in the help.
/// `BenchCommandTests` runs a small incremental night end to end.
@Suite struct BenchIncrementalOptionsTests {
    @Test(arguments: [
        (["--changed-since", "2d"], "--changed-since needs --changed-fraction"),
        (["--missed-fraction", "0.5"], "--missed-fraction needs --changed-fraction"),
        (["--sweep-days", "30"], "--sweep-days needs --changed-fraction"),
        (["--changed-fraction", "0.02", "--backend", "verify-receipt"], "not verify-receipt"),
        (["--changed-fraction", "2"], "--changed-fraction"),
        (["--max-requests-per-hour", "0"], "--max-requests-per-hour"),
    ])
    func aBadIncrementalFlagExits64WithOneLine(arguments: [String], says: String) throws {
        let result = try BenchCommandTests.bench(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderrText)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
        #expect(result.stderrText.contains(says), "\(result.stderrText)")
    }

    @Test func theIncrementalOptionsAreAccepted() throws {
        let result = try BenchCommandTests.bench([
            "--changed-fraction", "0.02", "--changed-since", "1d", "--missed-fraction", "0.5", "--sweep-days", "30",
            "--max-requests-per-hour", "90000", "--help",
        ])
        #expect(result.status == 0, "\(result.stderrText)")
        for option in ["--changed-fraction F", "--sweep-days D", "--missed-fraction M", "--max-requests-per-hour N"] {
            #expect(result.stdoutText.contains(option), "\(option)")
        }
    }
}
