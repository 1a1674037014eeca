import Testing

@testable import Reconciliation

/// Whatever ends a run, its figures follow one rule: a run that went through every due user keeps its
/// counts and takes from its rows only what the end-of-run scans add; any other run's figures are
/// what its rows say.
@Suite struct RunFiguresTests {
    /// What the process counted: 10 receipts, one grant, no flags.
    static var counted: RunSummary {
        var summary = RunSummary()
        summary.receiptsSelected = 12
        summary.receiptsProcessed = 10
        summary.usersProcessed = 4
        summary.outcomes = [.valid: 9, .unverified: 1]
        summary.corrections = [.grant: [.purchaseNotGranted: 1]]
        summary.appleRequests = 11
        return summary
    }

    /// What the rows say: 8 receipts committed, the grant and a refund revoke, and a shared-transaction flag.
    static var written: WrittenFigures {
        var written = WrittenFigures()
        written.users = 3
        written.outcomes = [.valid: 8]
        written.corrections = [.grant: [.purchaseNotGranted: 1], .revoke: [.refund: 1]]
        written.flags = [.sharedTransaction: 1]
        return written
    }

    @Test func aRunThatRanToTheEndKeepsItsCountsAndTakesTheScansFlags() {
        var summary = Self.counted
        summary.settleFigures(with: Self.written, ranToTheEnd: true)
        #expect(summary.receiptsProcessed == 10)
        #expect(summary.usersProcessed == 4)
        #expect(summary.outcomes == [.valid: 9, .unverified: 1])
        #expect(summary.flags == [.sharedTransaction: 1])
        #expect(summary.correctionCount == 2)
    }

    @Test func anyOtherRunTakesWhatItsRowsSayAndKeepsWhatOnlyTheProcessKnew() {
        var summary = Self.counted
        summary.settleFigures(with: Self.written, ranToTheEnd: false)
        #expect(summary.receiptsProcessed == 8)
        #expect(summary.usersProcessed == 3)
        #expect(summary.outcomes == [.valid: 8])
        #expect(summary.flags == [.sharedTransaction: 1])
        #expect(summary.correctionCount == 2)
        #expect(summary.receiptsSelected == 12)
        #expect(summary.appleRequests == 11)
    }
}
