import Reconciliation
import Testing

/// Every way a run ends, and what each says to the world: the row's status, the exit code (CONTRACT §3),
/// and the status the metrics file and `--json` name.
@Suite struct RunEndTests {
    static let ends: [(RunEnd, recorded: RunStatus?, status: String, exitCode: ExitCode)] = [
        (.completed, .completed, "completed", .success),
        (.partial, .partial, "partial", .someUnverified),
        (.breaker(reason: "circuit breaker"), .aborted, "aborted", .unavailable),
        (.appleConfiguration(reason: "21004"), .aborted, "aborted", .configuration),
        (.interrupted(reason: "SIGTERM received"), .interrupted, "interrupted", .tempFail),
        (.failed(reason: "database error", exitCode: .noPermission), .failed, "failed", .noPermission),
        (.unrecorded(status: .aborted, reason: "row not written"), .aborted, "aborted", .unavailable),
        (.lockHeld(shard: "1/4"), nil, "skipped", .tempFail),
        (.neverStarted(reason: "database unreachable", exitCode: .unavailable), nil, "failed", .unavailable),
    ]

    @Test(arguments: ends.indices)
    func eachEndNamesItsStatusAndExitCode(index: Int) {
        let (end, recorded, status, exitCode) = Self.ends[index]
        #expect(end.recordedStatus == recorded)
        #expect(end.status == status)
        #expect(end.exitCode == exitCode)
        #expect((end.reason == nil) == (end == .completed || end == .partial))
    }

    @Test func onlyASignalLetsTheUsersInFlightBeWritten() {
        #expect(!RunEnd.interrupted(reason: "SIGINT received").dropsUnwrittenUsers)
        #expect(RunEnd.breaker(reason: "circuit breaker").dropsUnwrittenUsers)
        #expect(RunEnd.failed(reason: "gone", exitCode: .unavailable).dropsUnwrittenUsers)
    }

    @Test func theLockHeldEndNamesTheShard() {
        #expect(
            RunEnd.lockHeld(shard: "1/4").reason == "another run holds the nightly lock for shard 1/4; nothing was done"
        )
    }
}
