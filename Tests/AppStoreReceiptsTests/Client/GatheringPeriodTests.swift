import Testing

@testable import AppStoreReceipts

/// How long the curl loop gathers wake-ups: long while the rate paces the requests (lanes queue for
/// tokens, so a later start or answer costs nothing), short as soon as the lanes do (a request found
/// its token due: every millisecond a lane waits on the loop is throughput lost).
@Suite struct GatheringPeriodTests {
    let long = GatheringPeriod.long
    let short = GatheringPeriod.short

    /// Gathering while lanes are the limit would hold every slot beyond Apple's answer.
    @Test func lanesThatPaceTheRequestsAreServedWithoutGathering() {
        #expect(short == .zero)
        #expect(long > .zero)
    }

    @Test func aTurnWhoseRequestsAllWaitedForTokensGathersLong() {
        #expect(GatheringPeriod.after([true], current: short) == long)
        #expect(GatheringPeriod.after([true, true, true], current: short) == long)
    }

    @Test func oneRequestThatFoundItsTokenDueGathersShort() {
        #expect(GatheringPeriod.after([false], current: long) == short)
        #expect(GatheringPeriod.after([true, true, false, true], current: long) == short)
    }

    @Test func aTurnWithoutRequestsKeepsThePeriod() {
        #expect(GatheringPeriod.after([], current: long) == long)
        #expect(GatheringPeriod.after([], current: short) == short)
    }
}
