import Testing

@testable import Reconciliation

struct BreakerCase: Sendable, CustomTestStringConvertible {
    var name: String
    /// One user per receipt, classified then written.
    var receipts: Int
    var unverified: Int = 0
    var revokedUsers: Int = 0
    var maxUnverifiedRatio = 0.10
    var maxRevokeRatio = 0.20
    var reason: String?

    var testDescription: String { name }
}

/// CONTRACT §7: "after at least 100 receipts ... exceeds".
private let cases: [BreakerCase] = [
    BreakerCase(name: "unverified ratio exactly at the limit -> no trip", receipts: 150, unverified: 15),
    BreakerCase(
        name: "one unverified receipt over the limit -> trip", receipts: 150, unverified: 16,
        reason: "circuit breaker: 16 of 150 receipts unverified (0.11) exceeds --max-unverified-ratio 0.10"),
    BreakerCase(name: "99 receipts, all unverified -> no trip yet", receipts: 99, unverified: 99),
    BreakerCase(
        name: "100 receipts, over the limit -> trip", receipts: 100, unverified: 11,
        reason: "circuit breaker: 11 of 100 receipts unverified (0.11) exceeds --max-unverified-ratio 0.10"),
    BreakerCase(
        name: "barely over the limit prints enough digits", receipts: 1000, unverified: 101,
        reason: "circuit breaker: 101 of 1000 receipts unverified (0.101) exceeds --max-unverified-ratio 0.100"),
    BreakerCase(name: "revoke ratio exactly at the limit -> no trip", receipts: 100, revokedUsers: 20),
    BreakerCase(
        name: "revoke ratio over the limit -> trip", receipts: 100, revokedUsers: 21,
        reason: "circuit breaker: 21 of 100 users revoked (0.21) exceeds --max-revoke-ratio 0.20"),
    BreakerCase(name: "99 receipts, every user revoked -> no trip yet", receipts: 99, revokedUsers: 99),
    BreakerCase(name: "limit 1.0 can never be exceeded", receipts: 200, unverified: 200, maxUnverifiedRatio: 1.0),
    BreakerCase(
        name: "limit 0 trips on the first unverified receipt after 100", receipts: 100, unverified: 1,
        maxUnverifiedRatio: 0,
        reason: "circuit breaker: 1 of 100 receipts unverified (0.01) exceeds --max-unverified-ratio 0.00"),
]

@Suite("Circuit breakers (CONTRACT §7)")
struct CircuitBreakerTests {
    /// Feeds users as the pipeline does (classified, then written); what the breaker says after the last one.
    static func verdict(_ testCase: BreakerCase) -> String? {
        var breaker = CircuitBreaker(
            maxUnverifiedRatio: testCase.maxUnverifiedRatio, maxRevokeRatio: testCase.maxRevokeRatio)
        var last: (unverified: String?, revoke: String?) = (nil, nil)
        for index in 0..<testCase.receipts {
            last.unverified = breaker.classified(receipts: 1, unverified: index < testCase.unverified ? 1 : 0)
            last.revoke = breaker.written(receipts: 1, revoked: index < testCase.revokedUsers)
        }
        return last.unverified ?? last.revoke
    }

    @Test(arguments: cases)
    func trips(_ testCase: BreakerCase) {
        #expect(Self.verdict(testCase) == testCase.reason)
    }

    @Test("both over: the unverified breaker speaks first, since it is fed before anything is written")
    func unverifiedFirst() {
        var breaker = CircuitBreaker(maxUnverifiedRatio: 0.09, maxRevokeRatio: 0.20)
        var trip: String?
        for index in 0..<200 where trip == nil {
            trip =
                breaker.classified(receipts: 1, unverified: index % 10 == 0 ? 1 : 0)
                ?? breaker.written(receipts: 1, revoked: true)
        }
        #expect(trip == "circuit breaker: 10 of 100 receipts unverified (0.10) exceeds --max-unverified-ratio 0.09")
    }

    @Test("receipts are counted across users with several receipts")
    func countsReceiptsNotUsers() {
        var breaker = CircuitBreaker(maxUnverifiedRatio: 0.10, maxRevokeRatio: 0.20)
        var trip: String?
        for _ in 0..<50 where trip == nil { trip = breaker.classified(receipts: 2, unverified: 1) }
        #expect(breaker.classifiedReceipts == 100 && breaker.unverifiedReceipts == 50)
        #expect(trip == "circuit breaker: 50 of 100 receipts unverified (0.50) exceeds --max-unverified-ratio 0.10")
    }

    @Test("the revoke ratio is over written users, once their receipts reach the minimum")
    func revokeRatioWaitsForReceiptsNotUsers() {
        var breaker = CircuitBreaker(maxUnverifiedRatio: 0.10, maxRevokeRatio: 0.20)
        // 40 users with 2 receipts each, every one revoked: 80 receipts, below the minimum.
        for _ in 0..<40 { #expect(breaker.written(receipts: 2, revoked: true) == nil) }
        #expect(
            breaker.written(receipts: 20, revoked: false)
                == "circuit breaker: 40 of 41 users revoked (0.98) exceeds --max-revoke-ratio 0.20")
    }

    @Test("a batch rewritten after a dropped connection is counted once")
    func withdrawnUsersAreNotCountedTwice() {
        var breaker = CircuitBreaker(maxUnverifiedRatio: 0.10, maxRevokeRatio: 0.20)
        for _ in 0..<100 { #expect(breaker.written(receipts: 1, revoked: false) == nil) }
        // A batch of 20 revokes whose transaction did not commit, then the same batch written again:
        // counted twice it would read 40 of 140 (0.29) and stop a healthy run.
        for _ in 0..<20 { _ = breaker.written(receipts: 1, revoked: true) }
        for _ in 0..<20 { breaker.withdrawn(receipts: 1, revoked: true) }
        var trip: String?
        for _ in 0..<20 { trip = trip ?? breaker.written(receipts: 1, revoked: true) }
        #expect(trip == nil)
        #expect(breaker.writtenUsers == 120 && breaker.revokedUsers == 20)
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

@Suite("Write gate (CONTRACT §7: nothing written before 100 receipts were classified)")
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
