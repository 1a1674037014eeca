import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// HTTP 429 (`Retry-After` in Unix milliseconds, honoured) and the per-endpoint rate (`--rate` applies
/// to each endpoint of the API, CONTRACT §9).
@Suite(.serialized) struct ServerAPIRateLimitTests {
    static let day = ServerAPITestDates.day

    @Test func a429IsRetriedNoSoonerThanItsRetryAfter() throws {
        let api = try ScriptedServerAPI()
        api.script(
            .production, .transactionHistory, id: "90",
            [
                .tooManyRequests(retryAfter: .milliseconds(400)),
                .history([ScriptedTransaction(id: "90", purchased: Self.day(-1))]),
            ])
        let (lookup, traffic) = api.client().historyNow(of: "90")
        #expect(lookup.found != nil, "\(lookup)")
        try #require(api.received.count == 2)
        let waited = api.received[1].receivedAt - api.received[0].receivedAt
        #expect(waited >= .milliseconds(390), "retried after \(waited), Retry-After asked for 400 ms")
        #expect(traffic.throttled == 1)
    }

    @Test func a429StormEndsUnverifiedAfterMaxAttemptsHavingWaitedEachTime() throws {
        let api = try ScriptedServerAPI()
        api.scriptEverything([.tooManyRequests(retryAfter: .milliseconds(200))])
        let (lookup, _) = api.client(maxAttempts: 3).historyNow(of: "91")
        let detail = try #require(lookup.unverifiedDetail, "\(lookup)")
        #expect(detail.contains("429"), "\(detail)")
        try #require(api.received.count == 3)
        #expect(api.received.allSatisfy { $0.environment == .production })
        for (earlier, later) in zip(api.received, api.received.dropFirst()) {
            #expect(later.receivedAt - earlier.receivedAt >= .milliseconds(190))
        }
    }

    /// A client of a scripted Apple on `ExchangeDriverTests.Rig`'s virtual clock.
    static func client(maxWait: Duration = .seconds(5)) -> ServerAPIClient {
        ServerAPIClient(
            configuration: ServerAPIClient.Configuration(
                productionURL: URL(string: "http://apple.invalid/production")!,
                sandboxURL: URL(string: "http://apple.invalid/sandbox")!,
                budget: VerifyReceiptRetryBudget(maxAttempts: 4, maxWait: maxWait),
                backoff: BackoffPolicy(base: .milliseconds(10), cap: .milliseconds(50), seed: 7)),
            verifier: SignedDataVerifier(anchors: [TrustAnchor(NotificationHistoryWalkTests.chain.root)]))
    }

    /// On the virtual clock the answer lands after its 100 ms of latency: the lookup has ended by then,
    /// with no timer left, so nothing waited for the 30 s Apple asked for.
    @Test func aRetryAfterBeyondTheLongestWaitEndsAtOnce() throws {
        // Thirty seconds after the virtual clock's epoch (`VirtualClock`'s default), in Unix milliseconds.
        let later = Int64((VirtualClock().wallClock().timeIntervalSince1970 + 30) * 1000)
        let rig = ExchangeDriverTests.Rig { _, _ in
            .status(
                429, #"{"errorCode":4290000,"errorMessage":"Rate limit exceeded."}"#,
                headers: ["Retry-After": String(later)])
        }
        let outcome = rig.start(
            Self.client(maxWait: .seconds(2)).history(
                of: "92", bundleID: "com.example", environment: .production, mayHop: true))
        rig.clock.advance(by: .milliseconds(100))
        let lookup = try #require(outcome.value, "the lookup still waits after Apple's answer")
        #expect(rig.clock.pendingTimers == 0)
        let detail = try #require(lookup.unverifiedDetail, "\(lookup)")
        #expect(detail.contains("--max-retry-wait"), "\(detail)")
        #expect(rig.transport.sent.count == 1)
    }

    /// With rate R each endpoint gets R requests a second of its own: history and statuses asked side
    /// by side start at the same instants of the virtual clock, each 1/R apart, as either alone would.
    @Test func eachEndpointHasItsOwnRate() throws {
        let rig = ExchangeDriverTests.Rig(rate: 5, maxInFlight: 8) { request, _ in
            request.url.path.contains("/history/")
                ? .status(
                    200,
                    #"{"revision":"r","hasMore":false,"bundleId":"com.example","appAppleId":1234,"environment":"Production","signedTransactions":[]}"#
                )
                : .status(200, #"{"environment":"Production","bundleId":"com.example","appAppleId":1234,"data":[]}"#)
        }
        let client = Self.client()
        for index in 0..<6 {
            _ = rig.start(
                client.history(of: "\(100 + index)", bundleID: "com.example", environment: .production, mayHop: false))
            _ = rig.start(
                client.statuses(of: "\(200 + index)", bundleID: "com.example", environment: .production, purpose: .ask))
        }
        rig.clock.advance(by: .seconds(5))
        let sent = rig.transport.sent
        let history = sent.filter { $0.request.url.path.contains("/history/") }.map(\.started)
        let statuses = sent.filter { $0.request.url.path.contains("/subscriptions/") }.map(\.started)
        let first = try #require(sent.map(\.started).min())
        // Burst 1 at 5 a second: one every 200 ms from the first. One shared bucket would interleave the
        // twelve, 200 ms apart, over 2.2 s.
        let paced = (0..<6).map { first + .milliseconds(200 * $0) }
        #expect(history.sorted() == paced, "\(history)")
        #expect(statuses.sorted() == paced, "\(statuses)")
    }
}
