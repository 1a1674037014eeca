import Reconciliation
import Testing

struct BreakerCase: Sendable, CustomTestStringConvertible {
    var name: String
    /// One user per receipt.
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
    BreakerCase(name: "one unverified receipt over the limit -> trip", receipts: 150, unverified: 16,
                reason: "unverified ratio 0.11 exceeds --max-unverified-ratio 0.10 after 150 receipts"),
    BreakerCase(name: "the example of the brief", receipts: 150, unverified: 51,
                reason: "unverified ratio 0.34 exceeds --max-unverified-ratio 0.10 after 150 receipts"),
    BreakerCase(name: "99 receipts, all unverified -> no trip yet", receipts: 99, unverified: 99),
    BreakerCase(name: "100 receipts, over the limit -> trip", receipts: 100, unverified: 11,
                reason: "unverified ratio 0.11 exceeds --max-unverified-ratio 0.10 after 100 receipts"),
    BreakerCase(name: "barely over the limit prints enough digits", receipts: 1000, unverified: 101,
                reason: "unverified ratio 0.101 exceeds --max-unverified-ratio 0.100 after 1000 receipts"),
    BreakerCase(name: "revoke ratio exactly at the limit -> no trip", receipts: 100, revokedUsers: 20),
    BreakerCase(name: "revoke ratio over the limit -> trip", receipts: 100, revokedUsers: 21,
                reason: "revoke ratio 0.21 exceeds --max-revoke-ratio 0.20 after 100 receipts (21 of 100 users)"),
    BreakerCase(name: "99 receipts, every user revoked -> no trip yet", receipts: 99, revokedUsers: 99),
    BreakerCase(name: "both over: the unverified breaker speaks first", receipts: 200, unverified: 100, revokedUsers: 100,
                reason: "unverified ratio 0.50 exceeds --max-unverified-ratio 0.10 after 200 receipts"),
    BreakerCase(name: "limit 1.0 can never be exceeded", receipts: 200, unverified: 200, maxUnverifiedRatio: 1.0),
    BreakerCase(name: "limit 0 trips on the first unverified receipt after 100", receipts: 100, unverified: 1,
                maxUnverifiedRatio: 0, reason: "unverified ratio 0.01 exceeds --max-unverified-ratio 0.00 after 100 receipts"),
]

@Suite("Circuit breakers (CONTRACT §7)")
struct CircuitBreakerTests {
    @Test(arguments: cases)
    func trips(_ testCase: BreakerCase) {
        var breaker = CircuitBreaker()
        for index in 0..<testCase.receipts {
            breaker.recordUser(
                receipts: 1, unverifiedReceipts: index < testCase.unverified ? 1 : 0,
                hasRevoke: index < testCase.revokedUsers)
        }
        let reason = breaker.shouldTrip(
            minimumReceipts: 100, maxUnverifiedRatio: testCase.maxUnverifiedRatio, maxRevokeRatio: testCase.maxRevokeRatio)
        #expect(reason == testCase.reason)
    }

    @Test("receipts are counted across users with several receipts")
    func countsReceiptsNotUsers() {
        var breaker = CircuitBreaker()
        for _ in 0..<50 { breaker.recordUser(receipts: 2, unverifiedReceipts: 1, hasRevoke: false) }
        #expect(breaker.processedReceipts == 100 && breaker.processedUsers == 50 && breaker.unverifiedReceipts == 50)
        #expect(breaker.shouldTrip(maxUnverifiedRatio: 0.10, maxRevokeRatio: 0.20)
            == "unverified ratio 0.50 exceeds --max-unverified-ratio 0.10 after 100 receipts")
    }
}
