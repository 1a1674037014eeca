import AppStoreReceipts
import Foundation
import Synchronization
import TestSupport
import Testing

/// Get Notification History as the run will read it: pages, the one body, every record verified,
/// what is never believed, what ends a read incomplete; on the virtual clock with a scripted Apple.
@Suite struct NotificationHistoryWalkTests {
    static let chain = try! SigningChain.mint(
        notBefore: Date(timeIntervalSince1970: 1_700_000_000), notAfter: Date(timeIntervalSince1970: 1_900_000_000))
    static let otherChain = try! SigningChain.mint(
        name: "someone else", notBefore: Date(timeIntervalSince1970: 1_700_000_000),
        notAfter: Date(timeIntervalSince1970: 1_900_000_000))
    static let start = Date(timeIntervalSince1970: 1_799_000_000)
    static let end = Date(timeIntervalSince1970: 1_799_086_400)

    /// A signed notification about `originalID`'s renewal, with its transaction signed in turn.
    static func notification(
        _ uuid: String, originalID: String, type: String = "DID_RENEW", environment: String = "Production",
        signer: SigningChain = chain
    ) -> String {
        let transaction = signer.sign(
            payload: Array(
                #"{"transactionId":"\#(originalID)9","originalTransactionId":"\#(originalID)","bundleId":"com.example.app","productId":"com.example.monthly","type":"Auto-Renewable Subscription","environment":"\#(environment)","signedDate":1799000100000}"#
                    .utf8))
        return signer.sign(
            payload: Array(
                #"{"notificationType":"\#(type)","notificationUUID":"\#(uuid)","version":"2.0","signedDate":1799000100000,"data":{"environment":"\#(environment)","bundleId":"com.example.app","appAppleId":1234,"signedTransactionInfo":"\#(transaction)"}}"#
                    .utf8))
    }

    /// A page of the answer: each record with its delivery results.
    static func page(_ records: [(String, [String])], token: String? = nil) -> ScriptedTransport.Reply {
        let items = records.map { jws, results in
            let attempts = results.map { #"{"attemptDate":1799000100000,"sendAttemptResult":"\#($0)"}"# }
            return #"{"signedPayload":"\#(jws)","sendAttempts":[\#(attempts.joined(separator: ","))]}"#
        }
        let more = token.map { #","hasMore":true,"paginationToken":"\#($0)""# } ?? #","hasMore":false"#
        return .status(200, #"{"notificationHistory":[\#(items.joined(separator: ","))]\#(more)}"#)
    }

    static func client(maxAttempts: Int = 3) -> ServerAPIClient {
        ServerAPIClient(
            configuration: ServerAPIClient.Configuration(
                productionURL: URL(string: "http://apple.invalid/production")!,
                sandboxURL: URL(string: "http://apple.invalid/sandbox")!,
                budget: VerifyReceiptRetryBudget(maxAttempts: maxAttempts),
                backoff: BackoffPolicy(base: .milliseconds(10), cap: .milliseconds(50), seed: 1)),
            verifier: SignedDataVerifier(anchors: [TrustAnchor(chain.root)]))
    }

    static func read(_ rig: ExchangeDriverTests.Rig, client: ServerAPIClient = client()) -> (
        NotificationHistoryRead?, AppleTraffic
    ) {
        let outcome = rig.start(
            client.notificationHistory(
                bundleID: "com.example.app",
                audience: NotificationAudience(
                    acceptedBundleIDs: ["com.example.app"], appAppleIDs: ["com.example.app": 1234],
                    environment: .production), from: start, to: end))
        rig.clock.advance(by: .seconds(10))
        return (outcome.value, outcome.recorded)
    }

    @Test func everyPageIsReadWithItsTokenAndTheSameBody() throws {
        let first = Self.page(
            [
                (Self.notification("u1", originalID: "100"), ["SUCCESS"]),
                (Self.notification("u2", originalID: "200"), ["TIMED_OUT", "TIMED_OUT"]),
            ], token: "next/page+1")
        let second = Self.page([(Self.notification("u3", originalID: "300"), ["NO_RESPONSE", "SUCCESS"])])
        let rig = ExchangeDriverTests.Rig { _, index in index == 0 ? first : second }
        let (read, traffic) = Self.read(rig)
        guard case .complete(let batch)? = read else {
            Issue.record("a read of every page is complete: \(String(describing: read))")
            return
        }
        #expect(batch.pages == 2)
        #expect(batch.notifications.map(\.originalTransactionID) == ["100", "200", "300"])
        #expect(batch.notifications.map(\.deliveryFailed) == [false, true, false], "u2 never reached the app")
        #expect(
            batch.notifications.map { $0.type?.rawValue } == [
                "DID_RENEW", "DID_RENEW", "DID_RENEW",
            ])
        #expect(batch.rejected.isEmpty)
        let sent = rig.transport.sent
        #expect(sent.map(\.request.method) == [.post, .post])
        #expect(
            sent.map(\.request.url.path) == Array(repeating: "/production/inApps/v1/notifications/history", count: 2))
        #expect(sent[0].request.url.query == nil)
        #expect(sent[1].request.url.query == "paginationToken=next%2Fpage%2B1")
        #expect(sent[0].request.body == sent[1].request.body, "every page asks with the same body")
        let body = String(decoding: sent[0].request.body, as: UTF8.self)
        #expect(body == #"{"startDate":1799000000000,"endDate":1799086400000}"#)
        #expect(sent[0].request.headers["Content-Type"] == "application/json")
        #expect(traffic.requestsByEndpoint == ["notification_history": 2])
    }

    /// A read's batch waits for the run to store it, several at once: each record is what the night
    /// stores of it, taken from its verified notification and nested transaction.
    @Test func aBatchHoldsEachRecordAsTheFieldsANightStores() throws {
        let rig = ExchangeDriverTests.Rig { _, _ in
            Self.page([
                (Self.notification("u1", originalID: "100"), ["SUCCESS"]),
                (Self.notification("u2", originalID: "200"), ["SUCCESS"]),
            ])
        }
        guard case .complete(let batch)? = Self.read(rig).0 else {
            Issue.record("a read of its one page is complete")
            return
        }
        #expect(batch.notifications.map(\.uuid) == ["u1", "u2"])
        #expect(batch.notifications.map(\.transactionID) == ["1009", "2009"])
        #expect(batch.notifications.allSatisfy { $0.productID == "com.example.monthly" })
        #expect(batch.notifications.allSatisfy { $0.bundleID == "com.example.app" })
        #expect(batch.notifications.allSatisfy { $0.environment == .production })
        #expect(batch.notifications.allSatisfy { $0.signedDate == Date(timeIntervalSince1970: 1_799_000_100) })
    }

    @Test func aForgedNotificationIsNeverBelievedAndAnUnknownTypeIsKept() {
        let reply = Self.page([
            (Self.notification("forged", originalID: "666", signer: Self.otherChain), ["SUCCESS"]),
            (Self.notification("new", originalID: "100", type: "SOMETHING_APPLE_ADDS_LATER"), ["SUCCESS"]),
            (Self.notification("sandbox", originalID: "700", environment: "Sandbox"), ["SUCCESS"]),
        ])
        let rig = ExchangeDriverTests.Rig { _, _ in reply }
        let (read, _) = Self.read(rig)
        guard case .complete(let batch)? = read else {
            Issue.record("rejected records do not end the read: \(String(describing: read))")
            return
        }
        #expect(batch.notifications.map(\.originalTransactionID) == ["100"])
        #expect(batch.notifications.first?.type?.rawValue == "SOMETHING_APPLE_ADDS_LATER")
        #expect(batch.rejected.count == 2)
        #expect(batch.rejected[0].detail.contains("rejected"))
        #expect(batch.rejected[1].detail.contains("signed for Sandbox"))
    }

    @Test func aPageThatKeepsFailingEndsTheReadIncompleteWithWhatWasRead() {
        let first = Self.page([(Self.notification("u1", originalID: "100"), ["SUCCESS"])], token: "t")
        let rig = ExchangeDriverTests.Rig { _, index in index == 0 ? first : .status(500, #"{"errorCode":5000001}"#) }
        let (read, traffic) = Self.read(rig)
        guard case .incomplete(let batch, let detail)? = read else {
            Issue.record("a page that fails after its retries leaves the read incomplete: \(String(describing: read))")
            return
        }
        #expect(batch.notifications.map(\.originalTransactionID) == ["100"])
        #expect(detail.hasPrefix("notification history:"))
        #expect(traffic.requests == 1 + 3, "the failing page was asked --max-attempts times")
        #expect(traffic.retries == 2)
    }

    @Test func aTokenAppleNoLongerTakesRestartsOnceWithoutCountingAnyNotificationTwice() {
        let first = Self.page([(Self.notification("u1", originalID: "100"), ["SUCCESS"])], token: "t")
        let last = Self.page([(Self.notification("u2", originalID: "200"), ["SUCCESS"])])
        let rig = ExchangeDriverTests.Rig { _, index in
            switch index {
            case 0, 2: first
            case 1: .status(400, #"{"errorCode":4000014}"#)
            default: last
            }
        }
        let (read, _) = Self.read(rig)
        guard case .complete(let batch)? = read else {
            Issue.record("a restarted read completes: \(String(describing: read))")
            return
        }
        #expect(batch.notifications.map(\.originalTransactionID) == ["100", "200"])
        #expect(rig.transport.sent.count == 4)
    }

    @Test func aDrainingRunDoesNotStartARead() {
        let rig = ExchangeDriverTests.Rig { _, _ in Self.page([]) }
        rig.draining.store(true, ordering: .relaxed)
        let (read, _) = Self.read(rig)
        guard case .incomplete(let batch, _)? = read else {
            Issue.record("a read not begun is incomplete: \(String(describing: read))")
            return
        }
        #expect(batch.pages == 0)
        #expect(rig.transport.sent.isEmpty)
    }
}
