import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// Get Transaction History against a scripted App Store Server API: paging, the one hop between
/// environments, what is retried, and signed data that must not be believed (CONTRACT §9).
@Suite struct ServerAPIHistoryTests {
    static let day = ServerAPITestDates.day

    @Test func threePagesAreWalkedByRevisionAndTheLaterDeliveryOfATransactionWins() throws {
        let api = try ScriptedServerAPI()
        api.script(
            .production, .transactionHistory, id: "10",
            [
                .history(
                    [
                        ScriptedTransaction(id: "10", purchased: Self.day(-60), expires: Self.day(-30)),
                        ScriptedTransaction(id: "11", originalID: "10", purchased: Self.day(-30), expires: Self.day(1)),
                    ], hasMore: true, revision: "rev-1"),
                .history(
                    [ScriptedTransaction(id: "12", originalID: "10", purchased: Self.day(1), expires: Self.day(31))],
                    hasMore: true, revision: "rev-2"),
                // Refunded while the walk went on: Apple delivers 11 again with its new data.
                .history(
                    [
                        ScriptedTransaction(
                            id: "11", originalID: "10", purchased: Self.day(-30), expires: Self.day(1),
                            revoked: Self.day(-1))
                    ], hasMore: false, revision: "rev-3"),
            ])
        let (lookup, traffic) = api.client().historyNow(of: "10")
        let found = try #require(lookup.found, "\(lookup)")
        #expect(found.environment == .production)
        #expect(found.value.transactions.map(\.transactionID) == ["10", "11", "12"])
        #expect(found.value.transactions[1].revocationDate != nil, "the refund delivered last must win")
        #expect(found.value.transactions[0].revocationDate == nil)
        #expect(api.received.map { $0.queryValue("revision") } == [nil, "rev-1", "rev-2"])
        #expect(api.received.allSatisfy { $0.method == "GET" && $0.path == "/production/inApps/v2/history/10" })
        #expect(traffic.requests == 3)
    }

    @Test func anIdUnknownInProductionIsFoundInSandboxWithOneHop() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "20", [.error(4_040_010, status: 404)])
        api.script(
            .sandbox, .transactionHistory, id: "20",
            [.history([ScriptedTransaction(id: "20", purchased: Self.day(-1))])])
        let (lookup, traffic) = api.client().historyNow(of: "20")
        let found = try #require(lookup.found, "\(lookup)")
        #expect(found.environment == .sandbox)
        #expect(found.value.transactions.map(\.transactionID) == ["20"])
        #expect(api.received.map(\.environment) == [.production, .sandbox])
        #expect(traffic.hops == 1)
    }

    @Test func anIdUnknownInBothEnvironmentsIsNotFoundAfterExactlyOneHop() throws {
        let api = try ScriptedServerAPI()  // unscripted ids are 404 4040010 everywhere
        let (lookup, _) = api.client().historyNow(of: "21")
        #expect(lookup.isNotFound, "\(lookup)")
        #expect(api.received.map(\.environment) == [.production, .sandbox])
    }

    @Test func withoutHoppingAnIdUnknownInProductionIsNotFoundThere() throws {
        let api = try ScriptedServerAPI()
        let (lookup, _) = api.client().historyNow(of: "22", mayHop: false)
        #expect(lookup.isNotFound, "\(lookup)")
        #expect(api.received.map(\.environment) == [.production])
    }

    /// 5000001 is retryable by name; an error code Apple adds tomorrow (9990000, the library's
    /// fixture) is tolerated as transient rather than taken as a verdict.
    @Test(arguments: [(5_000_001, 500), (9_990_000, 400), (5_000_000, 500), (4_040_002, 404)])
    func aTransientErrorIsRetriedAndTheNextAnswerCounts(_ code: Int, _ status: Int) throws {
        let api = try ScriptedServerAPI()
        api.script(
            .production, .transactionHistory, id: "30",
            [.error(code, status: status), .history([ScriptedTransaction(id: "30", purchased: Self.day(-1))])])
        let (lookup, traffic) = api.client().historyNow(of: "30")
        #expect(lookup.found?.value.transactions.count == 1, "\(lookup)")
        #expect(api.received.count == 2)
        #expect(traffic.retries == 1)
    }

    @Test func aTransientErrorThatPersistsIsUnverifiedAfterMaxAttempts() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "31", [.error(5_000_001, status: 500)])
        let (lookup, _) = api.client(maxAttempts: 3).historyNow(of: "31")
        let detail = try #require(lookup.unverifiedDetail, "\(lookup)")
        #expect(detail.contains("5000001"))
        #expect(api.received.count == 3)
        #expect(api.received.allSatisfy { $0.environment == .production }, "a transient error is no reason to hop")
    }

    /// 5000000 is not one of the codes Apple names retryable: asked again once, not `--max-attempts` times.
    @Test func aPersistentGeneralInternalErrorIsAskedTwiceOnly() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "32", [.error(5_000_000, status: 500)])
        let (lookup, _) = api.client(maxAttempts: 4).historyNow(of: "32")
        let detail = try #require(lookup.unverifiedDetail, "\(lookup)")
        #expect(detail.contains("5000000") && detail.contains("after 2 attempt"))
        #expect(api.received.count == 2)
    }

    @Test func aForgedSignatureInAnAnswerIsUnverifiedNamingTheRejection() throws {
        let api = try ScriptedServerAPI()
        api.script(
            .production, .transactionHistory, id: "40",
            [.history([ScriptedTransaction(id: "40", purchased: Self.day(-1), forged: true)])])
        let (lookup, _) = api.client().historyNow(of: "40")
        let detail = try #require(lookup.unverifiedDetail, "\(lookup)")
        #expect(detail.contains("rejected"), "\(detail)")
        #expect(detail.lowercased().contains("signature"), "\(detail)")
    }

    @Test func anAnswerSignedForTheOtherEnvironmentIsUnverified() throws {
        let api = try ScriptedServerAPI()
        api.script(
            .production, .transactionHistory, id: "41",
            [.history([ScriptedTransaction(id: "41", purchased: Self.day(-1), environment: "Sandbox")])])
        let (lookup, _) = api.client().historyNow(of: "41")
        let detail = try #require(lookup.unverifiedDetail, "\(lookup)")
        #expect(detail.contains("Sandbox"), "\(detail)")
    }

    @Test func anHTMLPageWithStatus200IsUnverified() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "42", [.htmlPage])
        let (lookup, _) = api.client().historyNow(of: "42")
        let detail = try #require(lookup.unverifiedDetail, "\(lookup)")
        #expect(detail.contains("not JSON"), "\(detail)")
    }

    @Test func statusesAreVerifiedAndCarryGracePeriods() throws {
        let api = try ScriptedServerAPI()
        let grace = Self.day(10)
        let subscription = try api.onlySubscription(
            ServerAPIScriptStatus(
                status: 4, transaction: ScriptedTransaction(id: "50", purchased: Self.day(-31), expires: Self.day(-1)),
                gracePeriodExpires: grace))
        #expect(subscription.status == 4)
        #expect(subscription.transaction?.transactionID == "50")
        let expires = try #require(subscription.renewalInfo?.gracePeriodExpiresDate)
        #expect(abs(expires.timeIntervalSince(grace)) < 0.01)
        #expect(api.received.map(\.path) == ["/production/inApps/v1/subscriptions/50"])
    }
}
