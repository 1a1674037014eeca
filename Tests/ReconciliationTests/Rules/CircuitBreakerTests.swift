import Testing

@testable import Reconciliation

struct BreakerCase: Sendable, CustomTestStringConvertible {
    var name: String
    /// One user per receipt, classified then planned.
    var receipts: Int
    var unverified: Int = 0
    var revokedUsers: Int = 0
    var maxUnverifiedRatio = 0.10
    var maxRevokeRatio = 0.20
    /// The night ends after the last receipt: every judge speaks on the whole of it.
    var whole = false
    var reason: String?

    var testDescription: String { name }
}

private let rerun = "; rerunning does the same until Apple answers: check Apple's status and the job's log"
private func revokeReason(_ counted: String, _ ratio: String, _ limit: String) -> String {
    "circuit breaker: \(counted) users would be revoked (\(ratio)) exceeds --max-revoke-ratio \(limit); nothing was "
        + "taken away. Rerunning does the same unless the cause is fixed: check the products mapping (kind, "
        + "entitlement), the bundle ids and the environment, or raise --max-revoke-ratio for a night you know is right"
}

/// CONTRACT §7: every run is judged, whatever its size; a window of 100 receipts, or the whole night.
private let cases: [BreakerCase] = [
    BreakerCase(name: "unverified ratio exactly at the limit -> no trip", receipts: 150, unverified: 15),
    BreakerCase(
        name: "one unverified receipt over the limit -> trip", receipts: 150, unverified: 16,
        reason: "circuit breaker: 16 of 150 receipts transiently unverified (0.11) exceeds --max-unverified-ratio 0.10"
            + rerun),
    BreakerCase(name: "99 receipts, all unverified, the night goes on -> not judged yet", receipts: 99, unverified: 99),
    BreakerCase(
        name: "a small night of 21 receipts, all unverified -> Apple unreachable", receipts: 21, unverified: 21,
        whole: true,
        reason: "circuit breaker: Apple unreachable or refusing: 21 of 21 receipts transiently unverified (1.00) "
            + "exceeds --max-unverified-ratio 0.10" + rerun),
    BreakerCase(
        name: "a night of 2 receipts, both unverified -> Apple unreachable at any size", receipts: 2, unverified: 2,
        whole: true,
        reason: "circuit breaker: Apple unreachable or refusing: 2 of 2 receipts transiently unverified (1.00) exceeds "
            + "--max-unverified-ratio 0.10" + rerun),
    BreakerCase(
        name: "a small night, 4 of 40 unverified: below the floor -> no trip", receipts: 40, unverified: 4, whole: true),
    BreakerCase(
        name: "a small night, 6 of 40 unverified -> trip", receipts: 40, unverified: 6, whole: true,
        reason: "circuit breaker: 6 of 40 receipts transiently unverified (0.15) exceeds --max-unverified-ratio 0.10"
            + rerun),
    BreakerCase(
        name: "100 receipts, over the limit -> trip", receipts: 100, unverified: 11,
        reason: "circuit breaker: 11 of 100 receipts transiently unverified (0.11) exceeds --max-unverified-ratio 0.10"
            + rerun),
    BreakerCase(
        name: "barely over the limit prints enough digits", receipts: 1000, unverified: 101,
        reason:
            "circuit breaker: 101 of 1000 receipts transiently unverified (0.101) exceeds --max-unverified-ratio 0.100"
            + rerun),
    BreakerCase(name: "revoke ratio exactly at the limit -> no trip", receipts: 100, revokedUsers: 20),
    BreakerCase(
        name: "revoke ratio over the limit -> trip", receipts: 100, revokedUsers: 21,
        reason: revokeReason("21 of 100", "0.21", "0.20")),
    BreakerCase(
        name: "99 receipts, every user revoked, the night goes on -> not judged yet", receipts: 99, revokedUsers: 99),
    BreakerCase(
        name: "a mapping mistake: 46 of 63 users revoked -> trip", receipts: 63, revokedUsers: 46, whole: true,
        reason: revokeReason("46 of 63", "0.73", "0.20")),
    BreakerCase(name: "2 refunds among 40 users -> no trip", receipts: 40, revokedUsers: 2, whole: true),
    BreakerCase(name: "4 of 4 users revoked: below the floor -> no trip", receipts: 4, revokedUsers: 4, whole: true),
    BreakerCase(
        name: "5 of 6 users revoked: at the floor -> trip", receipts: 6, revokedUsers: 5, whole: true,
        reason: revokeReason("5 of 6", "0.83", "0.20")),
    BreakerCase(
        name: "limit 1.0 turns the judge off, nearly all included", receipts: 200, unverified: 200,
        maxUnverifiedRatio: 1.0, whole: true),
    BreakerCase(
        name: "limit 0 trips at the floor after 100", receipts: 100, unverified: 5, maxUnverifiedRatio: 0,
        reason: "circuit breaker: 5 of 100 receipts transiently unverified (0.05) exceeds --max-unverified-ratio 0.00"
            + rerun),
]

@Suite("Circuit breakers (CONTRACT §7)")
struct CircuitBreakerTests {
    /// Feeds users as the pipeline does (classified, then planned); what the breaker says after the last
    /// one, or, for a whole night, when the night is judged whole.
    static func verdict(_ testCase: BreakerCase) -> String? {
        var breaker = CircuitBreaker(
            maxUnverifiedRatio: testCase.maxUnverifiedRatio, maxRevokeRatio: testCase.maxRevokeRatio)
        var last: (unverified: CircuitBreaker.Trip?, revoke: CircuitBreaker.Trip?) = (nil, nil)
        for index in 0..<testCase.receipts {
            last.unverified = breaker.classified(receipts: 1, unverified: index < testCase.unverified ? 1 : 0)
        }
        if testCase.whole { last.unverified = breaker.classifiedWholeNight() }
        for index in 0..<testCase.receipts {
            last.revoke = breaker.planned(receipts: 1, revoked: index < testCase.revokedUsers)
        }
        if testCase.whole { last.revoke = breaker.plannedWholeNight() }
        return (last.unverified ?? last.revoke)?.reason
    }

    @Test(arguments: cases)
    func trips(_ testCase: BreakerCase) {
        #expect(Self.verdict(testCase) == testCase.reason)
    }

    @Test("permanent unverified receipts are answers: the pipeline feeds only transient ones")
    func permanentOnesDoNotCount() {
        // What the pipeline feeds for a night of 30 deleted accounts (permanent) and 70 valid receipts.
        var breaker = CircuitBreaker(maxUnverifiedRatio: 0.10, maxRevokeRatio: 0.20)
        for _ in 0..<100 { _ = breaker.classified(receipts: 1, unverified: 0) }
        #expect(breaker.classifiedWholeNight() == nil)
    }

    @Test("the reason names the first transient cause, so the log says what Apple did")
    func namesTheFirstCause() {
        var breaker = CircuitBreaker(maxUnverifiedRatio: 0.10, maxRevokeRatio: 0.20)
        _ = breaker.classified(receipts: 1, unverified: 0, cause: nil)
        _ = breaker.classified(receipts: 1, unverified: 1, cause: "HTTP 503 from Apple")
        for _ in 0..<8 { _ = breaker.classified(receipts: 1, unverified: 1, cause: "transport: timed out") }
        #expect(
            breaker.classifiedWholeNight()?.reason.contains("0.10 (the first: HTTP 503 from Apple); rerunning") == true)
    }

    @Test("receipts are counted across users with several receipts")
    func countsReceiptsNotUsers() {
        var breaker = CircuitBreaker(maxUnverifiedRatio: 0.10, maxRevokeRatio: 0.20)
        var trip: CircuitBreaker.Trip?
        for _ in 0..<50 where trip == nil { trip = breaker.classified(receipts: 2, unverified: 1) }
        #expect(breaker.classifiedReceipts == 100 && breaker.unverifiedReceipts == 50)
        #expect(trip?.judge == .unverified)
    }

    @Test("the revoke judge speaks once its users' receipts fill the window, or on the whole night")
    func revokeJudgeWaitsForItsWindow() {
        var breaker = CircuitBreaker(maxUnverifiedRatio: 0.10, maxRevokeRatio: 0.20)
        // 40 users with 2 receipts each, every one revoked: 80 receipts, below the window.
        for _ in 0..<40 { #expect(breaker.planned(receipts: 2, revoked: true) == nil) }
        #expect(!breaker.revokeJudgeSpeaks)
        let trip = breaker.planned(receipts: 20, revoked: false)
        #expect(breaker.revokeJudgeSpeaks)
        #expect(trip?.reason == revokeReason("40 of 41", "0.98", "0.20"))

        var small = CircuitBreaker(maxUnverifiedRatio: 0.10, maxRevokeRatio: 0.20)
        for _ in 0..<10 { _ = small.planned(receipts: 1, revoked: true) }
        _ = small.classifiedWholeNight()
        #expect(!small.revokeJudgeSpeaks, "classified whole is not planned whole")
        _ = small.plannedWholeNight()
        #expect(small.revokeJudgeSpeaks)
    }

    @Test("products the mapping lacks, beyond a small share, stop the night with the products named")
    func unknownProducts() {
        var breaker = CircuitBreaker(maxUnverifiedRatio: 0.10, maxRevokeRatio: 0.20)
        for index in 0..<40 {
            let ids = index < 10 ? [["yearly_2026"]] : index < 12 ? [["legacy", "yearly_2026"]] : []
            _ = breaker.classified(receipts: 1, unverified: 0, unknownProducts: ids)
        }
        let trip = breaker.classifiedWholeNight()
        #expect(trip?.judge == .unknownProducts)
        #expect(
            trip?.reason.hasPrefix(
                "products does not hold the products of 12 of 40 receipts (0.30, more than 0.05): legacy, yearly_2026;")
                == true)

        var few = CircuitBreaker(maxUnverifiedRatio: 0.10, maxRevokeRatio: 0.20)
        for index in 0..<40 {
            _ = few.classified(receipts: 1, unverified: 0, unknownProducts: index < 2 ? [["old"]] : [])
        }
        #expect(
            few.classifiedWholeNight() == nil, "two receipts of a retired product are flagged, not a mapping mistake")
    }

    @Test("a batch rewritten after a dropped connection is counted once")
    func withdrawnUsersAreNotCountedTwice() {
        var breaker = CircuitBreaker(maxUnverifiedRatio: 0.10, maxRevokeRatio: 0.20)
        for _ in 0..<100 { #expect(breaker.planned(receipts: 1, revoked: false) == nil) }
        // A batch of 20 revokes whose transaction did not commit, then the same batch written again:
        // counted twice it would read 40 of 140 (0.29) and stop a healthy run.
        for _ in 0..<20 { _ = breaker.planned(receipts: 1, revoked: true) }
        for _ in 0..<20 { breaker.withdrawn(receipts: 1, revoked: true) }
        var trip: CircuitBreaker.Trip?
        for _ in 0..<20 { trip = trip ?? breaker.planned(receipts: 1, revoked: true) }
        #expect(trip == nil)
        #expect(breaker.plannedUsers == 120 && breaker.revokedUsers == 20)
    }
}

/// How long and how often a run tries to reach its database again.
@Suite struct ReconnectPolicyTests {
    @Test func attemptsBackOffFromAQuarterSecondToFiveSeconds() {
        let policy = ReconnectPolicy(window: .seconds(120))
        let delays = (0..<8).map { policy.delay(beforeAttempt: $0) }
        #expect(delays == [0.25, 0.5, 1, 2, 4, 5, 5, 5].map { Duration.milliseconds(Int64($0 * 1000)) })
        #expect(policy.delay(beforeAttempt: 1000) == .seconds(5))
    }

    @Test func noAttemptStartsOnceTheWindowHasPassed() {
        let policy = ReconnectPolicy(window: .seconds(3))
        #expect(policy.allowsAttempt(after: .milliseconds(2999)))
        #expect(!policy.allowsAttempt(after: .seconds(3)))
        #expect(!ReconnectPolicy(window: .zero).allowsAttempt(after: .zero))
    }
}

@Suite("Write gate (nothing written before the classification judges spoke on 100 receipts)")
struct WriteGateTests {
    @Test func opensAtTheMinimumOnce() {
        var gate = WriteGate()
        let at99 = gate.classified(receipts: 99)
        #expect(!at99 && !gate.isOpen)
        let at100 = gate.classified(receipts: 1)
        #expect(at100 && gate.isOpen)
        let again = gate.classified(receipts: 50)
        #expect(!again)
    }

    @Test("a run out of work or stopped opens the gate whatever the count")
    func opensOnDemand() {
        var gate = WriteGate()
        let first = gate.open()
        let second = gate.open()
        #expect(first && !second && gate.isOpen)
    }
}
