import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// Answers in Apple's exact JSON shapes: the conformance responses are the model, the project's own
/// decoder must read every answer, and the values it reads are the world's.
@Suite struct AnswerShapeTests {
    static let world = TestWorlds.small
    static let simulator = AppStoreSimulator(world: world)
    static let cases = TestWorlds.firstOfEachScenario(world)
    static let conformance = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../../shared/conformance/responses").standardized

    static func json(_ answer: AppleAnswer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(answer.jsonBytes)) as? [String: Any])
    }

    static func answer(
        _ scenario: WorldScenario, row: Int = 0, endpoint: AppStoreEnvironment = .production,
        excludeOld: Bool = true
    ) throws -> AppleAnswer {
        let (unit, user) = try #require(cases[scenario])
        return simulator.answer(
            body: try AppStoreSimulator.requestBody(unit.receiptData(user.receipts[row].slot), excludeOld: excludeOld),
            endpoint: endpoint)
    }

    static func fixtureKeys(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: conformance.appendingPathComponent(path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func everyAnswerDecodesWithTheProjectsDecoderToTheWorldsValues() throws {
        var decoded = 0
        for (unit, user) in TestWorlds.users(Self.world) {
            for row in user.receipts {
                for endpoint in AppStoreEnvironment.allCases {
                    for excludeOld in [true, false] {
                        let data = unit.receiptData(row.slot)
                        let answer = Self.simulator.answer(
                            body: try AppStoreSimulator.requestBody(data, excludeOld: excludeOld),
                            endpoint: endpoint)
                        let response = try VerifyReceiptResponse.decode(Data(answer.jsonBytes))
                        decoded += 1
                        #expect(response.rawStatus == answer.status)
                        #expect(response.environment == answer.environment)
                        #expect(response.isRetryable == answer.isRetryable)
                        #expect(response.latestReceiptInfo.count == (answer.latestReceiptInfo?.count ?? 0))
                        #expect(response.pendingRenewalInfo.count == (answer.pendingRenewalInfo?.count ?? 0))
                        if let receipt = answer.receipt {
                            #expect(response.receipt?.bundleID == receipt.bundleID)
                            #expect(response.receipt?.receiptCreationDate == WorldUnit.date(receipt.creationMs))
                            #expect(response.receipt?.inApp.count == receipt.inApp.count)
                            for (got, view) in zip(response.receipt!.inApp, receipt.inApp) {
                                #expect(got.transactionID == view.transaction.transactionID)
                                #expect(got.purchaseDate == WorldUnit.date(view.transaction.purchaseMs))
                                #expect(got.expiresDate == view.transaction.expiresMs.map(WorldUnit.date))
                                #expect(got.cancellationDate == view.cancellationMs.map(WorldUnit.date))
                                #expect((got.isUpgraded ?? false) == view.isUpgraded)
                            }
                        }
                        if let receipt = answer.transactionReceipt {
                            #expect(response.receipt?.format == .transactionReceipt)
                            #expect(
                                response.receipt?.transaction?.transactionID
                                    == receipt.transaction.transaction.transactionID)
                            #expect(
                                response.receipt?.transaction?.expiresDate
                                    == receipt.transaction.transaction.expiresMs.map(WorldUnit.date))
                        }
                        if let latest = answer.latestReceipt {
                            #expect(response.latestReceipt == latest)
                        }
                    }
                }
            }
        }
        #expect(decoded > 800)
    }

    /// Same members as Apple's recorded production answer (alexalok's `Valid_Production_Family_Shared`),
    /// and the same JSON types: strings for almost every number.
    @Test func anAppReceiptAnswerHasApplesMembersAndTypes() throws {
        let fixture = try Self.fixtureKeys("alexalok/Valid_Production_Family_Shared.json")
        let ours = try Self.json(try Self.answer(.subscriptionAutoRenewOff, excludeOld: false))
        #expect(Set(ours.keys) == Set(fixture.keys))
        let fixtureReceipt = try #require(fixture["receipt"] as? [String: Any])
        let receipt = try #require(ours["receipt"] as? [String: Any])
        #expect(Set(receipt.keys) == Set(fixtureReceipt.keys))
        let fixtureInApp = try #require((fixtureReceipt["in_app"] as? [[String: Any]])?.first)
        let inApp = try #require((receipt["in_app"] as? [[String: Any]])?.first)
        #expect(Set(inApp.keys) == Set(fixtureInApp.keys))
        let fixtureLatest = try #require((fixture["latest_receipt_info"] as? [[String: Any]])?.first)
        let latest = try #require((ours["latest_receipt_info"] as? [[String: Any]])?.first)
        #expect(Set(latest.keys) == Set(fixtureLatest.keys))

        #expect(ours["status"] is NSNumber)
        #expect(
            receipt["adam_id"] is NSNumber && receipt["app_item_id"] is NSNumber && receipt["download_id"] is NSNumber)
        #expect(receipt["version_external_identifier"] is NSNumber)
        for key in [
            "quantity", "transaction_id", "original_transaction_id", "purchase_date", "purchase_date_ms",
            "purchase_date_pst", "expires_date_ms", "web_order_line_item_id", "is_trial_period",
            "is_in_intro_offer_period",
        ] {
            #expect(inApp[key] is String, "\(key) is not a string")
        }
        #expect((inApp["purchase_date"] as? String)?.hasSuffix(" Etc/GMT") == true)
        #expect((inApp["purchase_date_pst"] as? String)?.hasSuffix(" America/Los_Angeles") == true)

        let renewal = try #require((ours["pending_renewal_info"] as? [[String: Any]])?.first)
        let fixtureRenewal = try #require((fixture["pending_renewal_info"] as? [[String: Any]])?.first)
        #expect(Set(renewal.keys).isSubset(of: Set(fixtureRenewal.keys)))
        #expect(renewal["auto_renew_status"] as? String == "0")
    }

    @Test func anExpiredIOS6AnswerHasVenicesShape() throws {
        let fixture = try Self.fixtureKeys("venice/receipt_expired_cancelled.json")
        let ours = try Self.json(try Self.answer(.ios6Expired))
        #expect(Set(ours.keys) == Set(fixture.keys))
        #expect(ours["status"] as? Int == 21006)
        #expect(ours["auto_renew_status"] is NSNumber)
        let receipt = try #require(ours["receipt"] as? [String: Any])
        let fixtureReceipt = try #require(fixture["receipt"] as? [String: Any])
        #expect(Set(receipt.keys) == Set(fixtureReceipt.keys))
        #expect((receipt["expires_date"] as? String).flatMap(Int64.init) != nil, "iOS 6 expires_date is milliseconds")
        let latest = try #require(ours["latest_expired_receipt_info"] as? [String: Any])
        #expect(
            Set(latest.keys)
                == Set(try #require(fixture["latest_expired_receipt_info"] as? [String: Any]).keys)
                .union(["version_external_identifier"]))
    }

    @Test func errorAnswersAreApplesBareBodies() throws {
        func text(_ answer: AppleAnswer) -> String { String(decoding: answer.jsonBytes, as: UTF8.self) }
        #expect(
            text(try Self.answer(.deletedAccount))
                == #"{"environment":"Production","status":21010,"is_retryable":false}"#)
        #expect(text(try Self.answer(.tamperedReceipt)) == #"{"status":21003}"#)
        #expect(text(try Self.answer(.garbageReceipt)) == #"{"status":21002}"#)
        #expect(text(try Self.answer(.xcodeReceipt)) == #"{"status":21002}"#, "Apple rejects StoreKit-testing receipts")
        #expect(text(try Self.answer(.emptyReceiptData)) == #"{"status":21002}"#)
        #expect(text(try Self.answer(.otherEnvironmentReceipt)) == #"{"status":21007}"#)
        #expect(text(try Self.answer(.proActive, endpoint: .sandbox)) == #"{"status":21008}"#)
        #expect(
            text(try Self.answer(.appleInternalError))
                == #"{"environment":"Production","status":21199,"is_retryable":false}"#)
        let secret = AppStoreSimulator(world: Self.world, options: SimulatorOptions(sharedSecret: "s"))
        let (unit, user) = try #require(Self.cases[.subscriptionActive])
        let body = try AppStoreSimulator.requestBody(unit.receiptData(user.receipts[0].slot), password: "wrong")
        #expect(
            text(secret.answer(body: body, endpoint: .production)) == #"{"environment":"Production","status":21004}"#)
        // The fixtures of these answers, minified, are the same bytes.
        let deleted = try Data(
            contentsOf: Self.conformance.appendingPathComponent("alexalok/Invalid_Account_Deleted_Not_Retryable.json"))
        let minified = String(decoding: deleted, as: UTF8.self).filter { !$0.isWhitespace }
        #expect(minified == text(try Self.answer(.deletedAccount)))
    }

    @Test func requestsThatAreNotVerifyReceiptRequests() throws {
        #expect(Self.simulator.answer(body: Array("not json".utf8), endpoint: .production).status == 21000)
        #expect(Self.simulator.answer(body: Array("{}".utf8), endpoint: .production).status == 21002)
        #expect(Self.simulator.answer(body: Array(#"{"receipt-data":""}"#.utf8), endpoint: .production).status == 21002)
        #expect(
            Self.simulator.answer(body: Array(#"{"receipt-data":"AAAA"}"#.utf8), endpoint: .production).status == 21002)
    }

    @Test func excludeOldTransactionsKeepsOnlyTheNewestPeriodOfEachChain() throws {
        let all = try #require(try Self.answer(.missedRenewal, excludeOld: false).latestReceiptInfo)
        let newest = try #require(try Self.answer(.missedRenewal, excludeOld: true).latestReceiptInfo)
        #expect(all.count > 2)
        #expect(newest.count == 1)
        #expect(newest[0] == all.max { $0.transaction.purchaseMs < $1.transaction.purchaseMs })
        // Consumables never appear in latest_receipt_info.
        let coins = try Self.answer(.duplicateReceipts, excludeOld: false)
        #expect(coins.receipt!.inApp.contains { $0.transaction.productID == WorldCatalog.coins.id })
        #expect(!coins.latestReceiptInfo!.contains { $0.transaction.productID == WorldCatalog.coins.id })
    }
}
