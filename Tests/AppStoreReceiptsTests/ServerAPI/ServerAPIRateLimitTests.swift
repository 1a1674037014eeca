import AppStoreReceipts
import Dispatch
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
            .production, .history, id: "90",
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

    @Test func aRetryAfterBeyondTheLongestWaitEndsAtOnce() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .history, id: "92", [.tooManyRequests(retryAfter: .seconds(30))])
        let started = ContinuousClock.now
        let (lookup, _) = api.client(maxWait: .seconds(2)).historyNow(of: "92")
        #expect(ContinuousClock.now - started < .seconds(2))
        let detail = try #require(lookup.unverifiedDetail, "\(lookup)")
        #expect(detail.contains("--max-retry-wait"), "\(detail)")
        #expect(api.received.count == 1)
    }

    /// With rate R each endpoint gets R requests a second of its own: history and statuses asked side
    /// by side take about as long as either alone, and neither goes faster than R.
    @Test func eachEndpointHasItsOwnRate() throws {
        let api = try ScriptedServerAPI()
        api.scriptEveryID(.production, .history, [.history([ScriptedTransaction(id: "1", purchased: Self.day(-1))])])
        api.scriptEveryID(.production, .statuses, [.statuses([])])
        let rate = 5.0
        let rig = api.client(rate: rate)
        let group = DispatchGroup()
        let started = ContinuousClock.now
        for index in 0..<6 {
            group.enter()
            rig.driver.start(
                rig.client.history(
                    of: "\(100 + index)", bundleID: "com.example", environment: .production, mayHop: false)
            ) { _ in group.leave() }
            group.enter()
            rig.driver.start(
                rig.client.statuses(
                    of: "\(200 + index)", bundleID: "com.example", environment: .production, purpose: .ask)
            ) { _ in group.leave() }
        }
        group.wait()
        let elapsed = ContinuousClock.now - started
        for endpoint in [ScriptedServerAPI.Endpoint.history, .statuses] {
            let times = api.received.filter { $0.endpoint == endpoint }.map(\.receivedAt)
            try #require(times.count == 6)
            // Burst 1: six requests need five intervals of 1/R.
            let span = try #require(times.max()) - times.min()!
            #expect(span >= .milliseconds(900), "\(endpoint): 6 requests in \(span) at \(rate)/s")
        }
        // One shared bucket would need eleven intervals (2.2 s).
        #expect(elapsed < .milliseconds(1_800), "both endpoints together took \(elapsed)")
    }
}
