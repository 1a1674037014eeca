@testable import AppStoreReceipts
import Testing

/// How long the curl loop gathers wake-ups: long while the rate paces the requests (lanes queue for
/// tokens, so a later start or answer costs nothing), short as soon as the lanes do (a request found
/// its token due: every millisecond a lane waits on the loop is throughput lost).
@Suite struct CurlGatheringTests {
    let long = CurlMultiLoop.gatheringPeriod
    let short = CurlMultiLoop.shortGatheringPeriod

    @Test func thePeriodsAreOrdered() {
        #expect(short < long)
        #expect(short > .zero)
    }

    @Test func aTurnWhoseRequestsAllWaitedForTokensGathersLong() {
        #expect(CurlMultiLoop.gathering(after: [true], current: short) == long)
        #expect(CurlMultiLoop.gathering(after: [true, true, true], current: short) == long)
    }

    @Test func oneRequestThatFoundItsTokenDueGathersShort() {
        #expect(CurlMultiLoop.gathering(after: [false], current: long) == short)
        #expect(CurlMultiLoop.gathering(after: [true, true, false, true], current: long) == short)
    }

    @Test func aTurnWithoutRequestsKeepsThePeriod() {
        #expect(CurlMultiLoop.gathering(after: [], current: long) == long)
        #expect(CurlMultiLoop.gathering(after: [], current: short) == short)
    }
}
