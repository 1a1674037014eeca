import Foundation
import TestSupport
import Testing

@testable import AppStoreReceipts

/// Look Up Order ID (research/server-api.md §2): Apple's `OrderLookupResponse` read as a table, the
/// order id's shape, and the exchange against a scripted App Store Server API: every signed transaction
/// verified before it is believed, status 1 a plain answer, the hop and the endpoint's own limits.
@Suite struct OrderLookupTests {
    static let day = ServerAPITestDates.day

    static func body(_ text: String) throws -> ServerAPIOrderLookupBody.Reading {
        try ServerAPIOrderLookupBody(Data(text.utf8)).reading
    }

    @Test(arguments: [
        (
            #"{"status":0,"signedTransactions":["a.b.c","d.e.f"]}"#,
            ServerAPIOrderLookupBody.Reading.valid(["a.b.c", "d.e.f"])
        ),
        (#"{"status":1}"#, .invalid),
        // Apple's own fixture carries transactions beside status 1: the status decides.
        (#"{"status":1,"signedTransactions":["x"]}"#, .invalid),
        (#"{"status":0}"#, .unreadable("order lookup: status 0 (valid) without a signed transaction")),
        (
            #"{"status":0,"signedTransactions":[]}"#,
            .unreadable("order lookup: status 0 (valid) without a signed transaction")
        ),
        (#"{"status":2}"#, .unreadable("order lookup: status 2, which Apple does not document (0 valid, 1 invalid)")),
        (#"{"signedTransactions":["a.b.c"]}"#, .unreadable("order lookup: the answer has no status")),
    ])
    func readsOrderLookupResponse(_ text: String, _ expected: ServerAPIOrderLookupBody.Reading) throws {
        #expect(try Self.body(text) == expected)
    }

    @Test func aBodyThatIsNotJSONIsAnError() {
        #expect(throws: ServerAPIDecodingError.self) { try Self.body("<html>Service Unavailable</html>") }
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func applesLibraryFixtureDecodes() throws {
        let body = try ServerAPIOrderLookupBody(try Conformance.file("server-api/models/lookupOrderIdResponse.json"))
        #expect(body.status == 1)
        #expect(body.signedTransactions == ["signed_transaction_one", "signed_transaction_two"])
        #expect(body.reading == .invalid)
    }

    @Test(arguments: [
        ("MK5TTTVWJH", true), ("W002182", true), ("mk5tttvwjh", true), ("1", true),
        (String(repeating: "A", count: 32), true), (String(repeating: "A", count: 33), false), ("", false),
        ("MK5 TTTVWJH", false), ("MK5-TTTVWJH", false), ("../lookup", false), ("MK5TTTVWJH%2F", false),
        ("ÄBC", false),
    ])
    func orderIDShape(_ id: String, _ wellFormed: Bool) {
        #expect(ServerAPIClient.isWellFormedOrderID(id) == wellFormed)
    }

    // MARK: - The exchange

    @Test func validOrderIsFoundWithItsVerifiedTransactions() throws {
        let api = try ScriptedServerAPI()
        api.script(
            .production, .orderLookup, id: "MK5TTTVWJH",
            [
                .orderLookup(
                    status: 0,
                    [
                        ScriptedTransaction(id: "700", purchased: Self.day(-2), expires: Self.day(28)),
                        ScriptedTransaction(
                            id: "701", product: "lifetime", type: "Non-Consumable", purchased: Self.day(-2)),
                    ])
            ])
        let (result, traffic) = api.client().orderLookupNow("MK5TTTVWJH")
        guard case .found(let transactions, let environment) = result else {
            Issue.record("expected found: \(result)")
            return
        }
        #expect(environment == .production)
        #expect(transactions.map(\.transactionID) == ["700", "701"])
        #expect(transactions.map(\.productID) == ["monthly", "lifetime"])
        #expect(api.received.map(\.path) == ["/production/inApps/v1/lookup/MK5TTTVWJH"])
        #expect(api.received.first?.token?.bid == "com.example")
        #expect(traffic.requestsByEndpoint == ["order_lookup": 1])
    }

    /// Status 1 in production and in the sandbox: a plain "invalid", never a failure.
    @Test func statusOneEverywhereIsInvalid() throws {
        let api = try ScriptedServerAPI()
        let (result, traffic) = api.client().orderLookupNow("MNOSUCHORD")
        guard case .invalid(let detail) = result else {
            Issue.record("expected invalid: \(result)")
            return
        }
        #expect(detail.contains("status 1"), "\(detail)")
        #expect(api.received.map(\.environment) == [.production, .sandbox])
        #expect(traffic.hops == 1)
    }

    /// Apple serves order ids in production only: the sandbox failing after production's status 1 leaves
    /// the order invalid; production failing leaves no verdict, whatever the sandbox said.
    @Test func onlyProductionsStatusOneProvesAnOrderIDInvalid() throws {
        let api = try ScriptedServerAPI()
        api.script(.sandbox, .orderLookup, id: "MPRODONE", [.raw(status: 404, body: "")])
        api.script(.production, .orderLookup, id: "MPRODFAIL", [.error(5_000_001, status: 500)])
        let rig = api.client(maxAttempts: 2)
        guard case .invalid(let detail) = rig.orderLookupNow("MPRODONE").result else {
            Issue.record("production's status 1 is the verdict")
            return
        }
        #expect(detail.contains("in production") && detail.contains("sandbox: "), "\(detail)")
        guard case .unverified(let failed) = rig.orderLookupNow("MPRODFAIL").result else {
            Issue.record("a production that did not answer is no verdict")
            return
        }
        #expect(failed.contains("only the sandbox answered"), "\(failed)")
    }

    @Test func foundOnlyInTheSandboxIsFoundThere() throws {
        let api = try ScriptedServerAPI()
        api.script(
            .sandbox, .orderLookup, id: "MSANDBOX",
            [.orderLookup(status: 0, [ScriptedTransaction(id: "702", purchased: Self.day(-1), expires: Self.day(6))])])
        guard case .found(let transactions, .sandbox) = api.client().orderLookupNow("MSANDBOX").result else {
            Issue.record("expected found in the sandbox")
            return
        }
        #expect(transactions.map(\.transactionID) == ["702"])
    }

    @Test func aForgedTransactionIsNotBelieved() throws {
        let api = try ScriptedServerAPI()
        api.script(
            .production, .orderLookup, id: "MFORGED",
            [
                .orderLookup(
                    status: 0,
                    [
                        ScriptedTransaction(id: "703", purchased: Self.day(-1), expires: Self.day(29)),
                        ScriptedTransaction(id: "704", purchased: Self.day(-1), expires: Self.day(29), forged: true),
                    ])
            ])
        guard case .unverified(let detail) = api.client().orderLookupNow("MFORGED").result else {
            Issue.record("a forged transaction must not be believed")
            return
        }
        #expect(detail.contains("rejected"), "\(detail)")
        #expect(api.received.count == 1, "no hop: Apple's answer was there, it was not believable")
    }

    @Test func aTransactionOfAnotherAppIsNotBelieved() throws {
        let api = try ScriptedServerAPI()
        api.script(
            .production, .orderLookup, id: "MOTHERAPP",
            [.orderLookup(status: 0, [ScriptedTransaction(id: "705", bundleID: "com.other", purchased: Self.day(-1))])])
        guard case .unverified(let detail) = api.client().orderLookupNow("MOTHERAPP").result else {
            Issue.record("another app's transaction must not be believed")
            return
        }
        #expect(detail.contains("com.other"), "\(detail)")
    }

    @Test func rateLimitedThenAnsweredWaitsAndRetries() throws {
        let api = try ScriptedServerAPI()
        api.script(
            .production, .orderLookup, id: "MTHROTTLED",
            [
                .tooManyRequests(retryAfter: .milliseconds(50)),
                .orderLookup(
                    status: 0, [ScriptedTransaction(id: "706", purchased: Self.day(-1), expires: Self.day(29))]),
            ])
        let (result, traffic) = api.client().orderLookupNow("MTHROTTLED")
        guard case .found = result else {
            Issue.record("expected found after the 429: \(result)")
            return
        }
        #expect(traffic.retries == 1)
        #expect(api.received.count == 2)
    }

    @Test func aRefusedKeyIsAConfigurationError() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .orderLookup, id: "MKEY", [.unauthorized])
        guard case .configuration = api.client().orderLookupNow("MKEY").result else {
            Issue.record("401 after a fresh token is the configuration's")
            return
        }
    }

    @Test func aMalformedOrderIDIsNeverSent() throws {
        let api = try ScriptedServerAPI()
        guard case .invalid(let detail) = api.client().orderLookupNow("MK5/../x").result else {
            Issue.record("expected invalid without a request")
            return
        }
        #expect(detail.contains("not asked"))
        #expect(api.received.isEmpty)
    }
}
