import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// Issue 25's scenarios as a client meets them over HTTP: the Server API's answers (tokens minted with
/// the seeded key) and verifyReceipt's for the same users, one world served by one simulator.
@Suite struct AppleReadingEndpointTests {
    typealias Fixture = ServerAPIFixture

    static func user(_ scenario: WorldScenario) throws -> (unit: WorldUnit, user: WorldUser) {
        try #require(Fixture.cases[scenario])
    }

    /// The account behind row `row` of the first user of `scenario`.
    static func account(_ scenario: WorldScenario, row: Int = 0) throws -> WorldAccount {
        let (unit, user) = try user(scenario)
        return unit.accounts[try #require(unit.receipts[user.receipts[row].slot].account)]
    }

    /// A JWS's payload, read without verifying it (what the simulator signed is checked elsewhere).
    static func payload(_ jws: String) throws -> [String: Any] {
        let parts = jws.split(separator: ".")
        try #require(parts.count == 3)
        var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        let data = try #require(Data(base64Encoded: text))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// A JSON number as Int64, however JSONSerialization bridged it.
    static func number(_ value: Any?) -> Int64? { (value as? NSNumber)?.int64Value }

    /// Every transaction of the history of `id` (all pages), as payloads.
    static func history(
        _ simulator: AppStoreSimulator, _ id: String, environment: String = "production"
    ) throws -> [[String: Any]] {
        var payloads: [[String: Any]] = []
        var revision: String?
        for _ in 0..<20 {
            let query = revision.map { "?revision=\($0)" } ?? ""
            let response = try simulator.get("/\(environment)/inApps/v2/history/\(id)\(query)", token: Fixture.token())
            try #require(response.status == 200, "\(response.text)")
            for jws in response.json["signedTransactions"] as? [String] ?? [] { payloads.append(try payload(jws)) }
            revision = response.json["revision"] as? String
            if response.json["hasMore"] as? Bool != true { break }
        }
        return payloads
    }

    /// One verifyReceipt POST over HTTP, as JSON.
    static func verifyReceipt(
        _ simulator: AppStoreSimulator, _ receiptData: String, endpoint: String = "production"
    ) throws -> [String: Any] {
        let client = try RawHTTPClient(port: simulator.port)
        let body = String(decoding: try AppStoreSimulator.requestBody(receiptData), as: UTF8.self)
        try client.post("/\(endpoint)/verifyReceipt", body: body, headers: "Content-Type: application/json\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    static func receiptData(_ scenario: WorldScenario, row: Int = 0) throws -> String {
        let (unit, user) = try user(scenario)
        return unit.receiptData(user.receipts[row].slot, signingChain: Fixture.chain)
    }

    @Test func anIDAppleKnowsIsNotFoundAloneAndListedByTheOtherIDsHistory() async throws {
        let account = try Self.account(.knownIDNotFound)
        let lost = try #require(account.idsTheServerAPILoses.first)
        // The receipt's first in-app id, the one a client asks about first.
        #expect(account.transactions.first?.transactionID == lost)
        let other = try #require(account.transactions.last?.transactionID)
        #expect(other != lost)
        let receipt = try Self.receiptData(.knownIDNotFound)
        try await withServerAPISimulator { simulator in
            for environment in ["production", "sandbox"] {
                for route in ["v2/history", "v1/transactions"] {
                    let response = try simulator.get(
                        "/\(environment)/inApps/\(route)/\(lost)", token: Fixture.token())
                    #expect(response.status == 404 && response.errorCode == 4_040_010, "\(environment) \(route)")
                }
            }
            let listed = try Self.history(simulator, other).compactMap { $0["transactionId"] as? String }
            #expect(listed.contains(lost) && listed.contains(other))
            // verifyReceipt never loses it.
            let answer = try Self.verifyReceipt(simulator, receipt)
            #expect(answer["status"] as? Int == 0)
            let inApp = (answer["receipt"] as? [String: Any])?["in_app"] as? [[String: Any]] ?? []
            #expect(inApp.compactMap { $0["transaction_id"] as? String }.contains(lost))
        }
    }

    @Test func aDeletedAccountIsNotFoundInEitherEnvironmentAndTheOtherAccountsRefundIsThere() async throws {
        let deleted = try Self.account(.deletedAccountLifetime, row: 0)
        let current = try Self.account(.deletedAccountLifetime, row: 1)
        guard case .deleted(let at) = deleted.standing else {
            Issue.record("the first account is not deleted")
            return
        }
        #expect(at <= Fixture.world.asOfMs)
        #expect(deleted.transactions.map(\.productID) == [WorldCatalog.pro.id])
        let deletedID = try #require(deleted.transactions.first?.transactionID)
        let currentID = try #require(current.transactions.first?.transactionID)
        let receipts = [
            try Self.receiptData(.deletedAccountLifetime, row: 0),
            try Self.receiptData(.deletedAccountLifetime, row: 1),
        ]
        try await withServerAPISimulator { simulator in
            for environment in ["production", "sandbox"] {
                for route in ["v2/history", "v1/transactions", "v1/subscriptions"] {
                    let response = try simulator.get(
                        "/\(environment)/inApps/\(route)/\(deletedID)", token: Fixture.token())
                    #expect(response.status == 404 && response.errorCode == 4_040_001, "\(environment) \(route)")
                }
            }
            let revoked = try Self.history(simulator, currentID).filter { $0["revocationDate"] != nil }
            #expect(revoked.count == 1)
            #expect(revoked.first?["revocationType"] as? String == "REFUND_FULL")
            #expect(revoked.first?["revocationPercentage"] == nil)

            // verifyReceipt: 21010 for the deleted account's receipt (not retryable), the refund for the other.
            let gone = try Self.verifyReceipt(simulator, receipts[0])
            #expect(gone["status"] as? Int == 21_010 && gone["is_retryable"] as? Bool == false)
            let answered = try Self.verifyReceipt(simulator, receipts[1])
            let latest = answered["latest_receipt_info"] as? [[String: Any]] ?? []
            #expect(latest.contains { $0["cancellation_date_ms"] != nil })
        }
    }

    @Test func aProratedRefundCarriesItsTypeAndPercentageOnlyInSignedData() async throws {
        let account = try Self.account(.proratedRefund)
        let refunded = try #require(account.transactions.last { $0.refund != nil })
        let percentage = try #require(refunded.refund?.percentage)
        #expect(percentage % 10_000 == 0 && (10_000...90_000).contains(percentage))
        #expect(refunded.productID == WorldCatalog.premiumYearly.id)
        let receipt = try Self.receiptData(.proratedRefund)
        try await withServerAPISimulator { simulator in
            let payloads = try Self.history(simulator, refunded.transactionID)
            let signed = try #require(payloads.first { $0["transactionId"] as? String == refunded.transactionID })
            #expect(signed["revocationType"] as? String == "REFUND_PRORATED")
            #expect(signed["revocationPercentage"] as? Int == percentage)
            #expect(Self.number(signed["revocationDate"]) == refunded.refund?.at)
            #expect(signed["price"] as? Int == 49_990)

            let answer = try Self.verifyReceipt(simulator, receipt)
            let latest = answer["latest_receipt_info"] as? [[String: Any]] ?? []
            let cancelled = try #require(latest.first { $0["transaction_id"] as? String == refunded.transactionID })
            #expect(cancelled["cancellation_date_ms"] as? String == refunded.refund.map { String($0.at) })
            #expect(
                !String(decoding: try JSONSerialization.data(withJSONObject: answer), as: UTF8.self).contains("percent")
            )
        }
    }

    @Test func aFamilyRevocationAndAnUpgradeAreNoRefunds() async throws {
        let family = try Self.account(.familySharingRevoked)
        let familyID = try #require(family.transactions.last?.transactionID)
        let upgraded = try Self.account(.upgradedToYearly)
        let monthly = try #require(upgraded.transactions.first { $0.upgradedAt != nil })
        try await withServerAPISimulator { simulator in
            let copy = try #require(try Self.history(simulator, familyID).first { $0["revocationDate"] != nil })
            #expect(copy["inAppOwnershipType"] as? String == "FAMILY_SHARED")
            #expect(copy["revocationType"] as? String == "FAMILY_REVOKE")
            #expect(copy["revocationPercentage"] == nil)

            let payloads = try Self.history(simulator, monthly.transactionID)
            let period = try #require(payloads.first { $0["transactionId"] as? String == monthly.transactionID })
            #expect(period["isUpgraded"] as? Bool == true)
            #expect(Self.number(period["revocationDate"]) == monthly.upgradedAt)
            #expect(period["revocationType"] == nil && period["revocationReason"] == nil)
            // The yearly period carries on the chain, not revoked.
            let yearly = payloads.filter { $0["productId"] as? String == WorldCatalog.premiumYearly.id }
            #expect(yearly.count == 1 && yearly.first?["revocationDate"] == nil)
        }
    }

    @Test(arguments: [WorldScenario.twoChainsLapsedAndGrace, .twoChainsActiveAndGrace])
    func oneOfTwoChainsIsInItsGracePeriodPastTheOthersEnd(scenario: WorldScenario) async throws {
        let first = try Self.account(scenario, row: 0)
        let second = try Self.account(scenario, row: 1)
        let asOf = Fixture.world.asOfMs
        let firstExpiry = try #require(first.transactions.last?.expiresMs)
        let grace = try #require(second.renewals.first?.gracePeriodExpiresMs)
        #expect(grace > asOf && grace > firstExpiry)
        #expect(try #require(second.transactions.last?.expiresMs) < firstExpiry)
        try await withServerAPISimulator { simulator in
            func status(_ account: WorldAccount) throws -> [String: Any] {
                let id = try #require(account.transactions.first?.transactionID)
                let response = try simulator.get("/production/inApps/v1/subscriptions/\(id)", token: Fixture.token())
                #expect(response.status == 200)
                let data = try #require(response.json["data"] as? [[String: Any]])
                return try #require((data.first?["lastTransactions"] as? [[String: Any]])?.first)
            }
            #expect(try status(first)["status"] as? Int == (scenario == .twoChainsLapsedAndGrace ? 2 : 1))
            let inGrace = try status(second)
            #expect(inGrace["status"] as? Int == 4)
            let renewal = try Self.payload(try #require(inGrace["signedRenewalInfo"] as? String))
            #expect(Self.number(renewal["gracePeriodExpiresDate"]) == grace)
        }
    }

    @Test func aCraftedIDIsRefusedByBothServices() async throws {
        let (unit, user) = try Self.user(.craftedTransactionID)
        let slot = user.receipts[0].slot
        guard case .craftedTransaction(let account, _) = unit.receipts[slot] else {
            Issue.record("not a crafted receipt")
            return
        }
        let crafted = unit.craftedTransactionID(account: account)
        #expect(crafted.count == 20 && crafted.allSatisfy(\.isNumber) && UInt64(crafted) == nil)
        // A well-formed iOS 6 receipt a client decodes, naming the crafted id.
        let local = try LocalReceiptDecoder.decode(base64: unit.receiptData(slot))
        #expect(local.format == .transactionReceipt && local.inApp.first?.transactionID == crafted)
        try await withServerAPISimulator { simulator in
            for environment in ["production", "sandbox"] {
                let response = try simulator.get("/\(environment)/inApps/v2/history/\(crafted)", token: Fixture.token())
                #expect(response.status == 400 && response.errorCode == 4_000_006)
            }
            for endpoint in ["production", "sandbox"] {
                let answer = try Self.verifyReceipt(simulator, unit.receiptData(slot), endpoint: endpoint)
                #expect(answer["status"] as? Int == 21_003)
            }
        }
    }

    @Test func theClonesIDsAreRefusedToItsBidAndUnknownToTheApps() async throws {
        let clone = try Self.account(.storeKit2OtherBundle)
        #expect(clone.bundleID == WorldCatalog.cloneBundleID)
        let id = try #require(clone.transactions.first?.transactionID)
        let stored = try Self.payload(try Self.receiptData(.storeKit2OtherBundle))
        #expect(stored["bundleId"] as? String == WorldCatalog.cloneBundleID && stored["transactionId"] as? String == id)
        try await withServerAPISimulator { simulator in
            let asClone = try simulator.get(
                "/production/inApps/v2/history/\(id)", token: Fixture.token(bundleID: WorldCatalog.cloneBundleID))
            #expect(asClone.status == 401 && asClone.body.isEmpty)
            let asApp = try simulator.get("/production/inApps/v2/history/\(id)", token: Fixture.token())
            #expect(asApp.status == 404 && asApp.errorCode == 4_040_010)
            #expect(simulator.stats.requestsByEndpoint["production/history"] == 2)
        }
    }

    @Test func aStaleSignedRowPredatesTheRefundAndTheAppsRevoke() async throws {
        let (_, user) = try Self.user(.storeKit2StaleAfterRevoke)
        let account = try Self.account(.storeKit2StaleAfterRevoke)
        let purchase = try #require(account.transactions.first)
        let refund = try #require(purchase.refund)
        let row = try #require(user.entitlements.first)
        #expect(row.entitlement == "pro" && !row.active && row.updatedMs >= refund.at)
        let stored = try Self.payload(try Self.receiptData(.storeKit2StaleAfterRevoke))
        let signedDate = try #require(Self.number(stored["signedDate"]))
        #expect(signedDate < refund.at && signedDate < row.updatedMs)
        #expect(stored["revocationDate"] == nil)
        try await withServerAPISimulator { simulator in
            let now = try #require(try Self.history(simulator, purchase.transactionID).first)
            #expect(Self.number(now["revocationDate"]) == refund.at)
            #expect(now["revocationType"] as? String == "REFUND_FULL")
        }
    }
}
