import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// `GET /{production|sandbox}/inApps/v1/lookup/{orderId}` over the world: order ids derived from the
/// transactions (no draw of their own, so the reference world is unchanged), status 0 with the order's
/// transaction signed by the seeded chain, status 1 for every other order id, the endpoint's own limit.
@Suite struct OrderLookupEndpointTests {
    typealias Fixture = ServerAPIFixture

    @Test(arguments: ["1", "2000000000000001", "2000000123456789", String(UInt64.max)])
    func anOrderIDLeadsBackToItsTransaction(_ id: String) throws {
        let order = try #require(WorldTransaction.orderID(ofTransactionID: id))
        #expect(order.first == "M" && order.count <= 14)
        #expect(order.allSatisfy { $0.isNumber || $0.isUppercase })
        #expect(WorldTransaction.transactionID(ofOrderID: order) == id)
    }

    /// docs/simulator.md's example.
    @Test func theDocumentedExample() {
        #expect(WorldTransaction.orderID(ofTransactionID: "2000000000000001") == "MJOXVBDJ37L")
    }

    @Test(arguments: ["", "M", "X2000", "m2000", "M20-00", "M" + String(repeating: "Z", count: 14)])
    func textNoOrderIDCanBeLeadsNowhere(_ text: String) {
        #expect(WorldTransaction.transactionID(ofOrderID: text) == nil)
    }

    @Test func anAccountsOrderIDIsFoundWithItsSignedTransaction() async throws {
        let (_, account, _) = try Fixture.account(.subscriptionActive)
        let transaction = try #require(account.transactions.first)
        let order = try #require(transaction.orderID)
        try await withServerAPISimulator { simulator in
            let response = try simulator.get("/production/inApps/v1/lookup/\(order)", token: Fixture.token())
            #expect(response.status == 200)
            #expect(response.json["status"] as? Int == 0)
            let signed = try #require(response.json["signedTransactions"] as? [String])
            #expect(signed.count == 1)
            let verification = Fixture.verifier(.production).verify(Array(signed[0].utf8))
            #expect(verification.isValid, "\(String(describing: verification.failure))")
            guard case .transaction(let decoded)? = verification.payload else {
                Issue.record("not a transaction")
                return
            }
            #expect(decoded.transactionID == transaction.transactionID)

            // Not an order of the sandbox, nor any order at all: status 1, no transactions.
            for path in ["/sandbox/inApps/v1/lookup/\(order)", "/production/inApps/v1/lookup/MNOSUCHORDER"] {
                let invalid = try simulator.get(path, token: Fixture.token())
                #expect(invalid.status == 200)
                #expect(invalid.json["status"] as? Int == 1)
                #expect(invalid.json["signedTransactions"] == nil)
            }
            #expect(simulator.stats.requestsByEndpoint["production/order_lookup"] == 2)
        }
    }

    @Test func aDeletedAccountsOrderIsInvalidAndAnotherAppsTokenIsRefused() async throws {
        let deleted = try AppleReadingEndpointTests.account(.deletedAccountLifetime, row: 0)
        guard case .deleted = deleted.standing else {
            Issue.record("the first account is not deleted")
            return
        }
        let order = try #require(deleted.transactions.first?.orderID)
        let (_, active, _) = try Fixture.account(.subscriptionActive)
        let activeOrder = try #require(active.transactions.first?.orderID)
        try await withServerAPISimulator { simulator in
            let gone = try simulator.get("/production/inApps/v1/lookup/\(order)", token: Fixture.token())
            #expect(gone.json["status"] as? Int == 1)
            let refused = try simulator.get(
                "/production/inApps/v1/lookup/\(activeOrder)", token: Fixture.token(bundleID: "com.other"))
            #expect(refused.status == 401)
        }
    }

    @Test func theOrderLookupHasItsOwnRateLimit() async throws {
        let (_, account, id) = try Fixture.account(.subscriptionActive)
        let order = try #require(account.transactions.first?.orderID)
        try await withServerAPISimulator(options: SimulatorOptions(rateLimit: 2, rateLimitBurst: 2)) { simulator in
            let answers = try (0..<4).map { _ in
                try simulator.get("/production/inApps/v1/lookup/\(order)", token: Fixture.token())
            }
            let limited = try #require(answers.first { $0.status == 429 })
            #expect(limited.errorCode == 4_290_000)
            #expect(limited.headers["Retry-After"].flatMap { Int64($0) } != nil)
            // Another endpoint still answers.
            let history = try simulator.get("/production/inApps/v2/history/\(id)", token: Fixture.token())
            #expect(history.status == 200)
        }
    }
}
