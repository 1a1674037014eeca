import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// Every real response in the shared conformance corpus decodes to what its README states.
@Suite(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
struct VerifyReceiptConformanceTests {
    struct Expectation: CustomTestStringConvertible, Sendable {
        var file: String
        var status: VerifyReceiptStatus
        var environment: String?
        var format: VerifyReceiptDecodedReceipt.Format?
        var inApp = 0
        var latestReceiptInfo = 0
        var latestExpiredReceiptInfo = 0
        var pendingRenewalInfo = 0
        var allTransactions = 0
        var verdict: VerificationVerdict
        var testDescription: String { file }
    }

    /// The README's table, plus the verdict each answer gets on the production endpoint.
    static let table: [Expectation] = [
        Expectation(
            file: "alexalok/Invalid_Account_Deleted_Not_Retryable.json", status: .accountNotFound,
            environment: "Production", verdict: .invalid(.accountNotFound)),
        Expectation(
            file: "alexalok/Invalid_Bad_App_Password.json", status: .sharedSecretMismatch,
            environment: "Production", verdict: .configurationError(.sharedSecretMismatch)),
        Expectation(
            file: "alexalok/Invalid_Malformed_Receipt_Data.json", status: .malformedReceiptData,
            verdict: .transient(.appleStatus(.malformedReceiptData), retryAfter: nil)),
        Expectation(
            file: "alexalok/Invalid_Receipt_Is_From_Production_Environment.json",
            status: .productionReceiptSentToSandbox,
            verdict: .unverified(.hopLimitReached(.productionReceiptSentToSandbox))),
        Expectation(
            file: "alexalok/Invalid_Receipt_Is_From_Test_Environment.json", status: .sandboxReceiptSentToProduction,
            verdict: .reroute(to: .sandbox)),
        Expectation(
            file: "alexalok/Valid_Production_Excluding_Old_Subscriptions.json", status: .valid,
            environment: "Production", format: .appReceipt, inApp: 1, latestReceiptInfo: 1, pendingRenewalInfo: 1,
            allTransactions: 2, verdict: .valid),
        Expectation(
            file: "alexalok/Valid_Production_Family_Shared.json", status: .valid, environment: "Production",
            format: .appReceipt, inApp: 1, latestReceiptInfo: 1, pendingRenewalInfo: 2, allTransactions: 2,
            verdict: .valid),
        Expectation(
            file: "alexalok/Valid_Production_Null_Download_Id.json", status: .valid, environment: "Production",
            format: .appReceipt, inApp: 2, latestReceiptInfo: 1, pendingRenewalInfo: 1, allTransactions: 3,
            verdict: .valid),
        Expectation(
            file: "alexalok/Valid_Sandbox_Consumable_And_Active_Subscription_Excluding_Old_Transactions.json",
            status: .valid, environment: "Sandbox", format: .appReceipt, inApp: 7, latestReceiptInfo: 1,
            pendingRenewalInfo: 1, allTransactions: 8, verdict: .valid),
        Expectation(
            file: "venice/receipt_expired_cancelled.json", status: .subscriptionExpired, format: .transactionReceipt,
            latestExpiredReceiptInfo: 1, pendingRenewalInfo: 1, allTransactions: 1, verdict: .valid),
        Expectation(
            file: "venice/receipt_not_expired_cancelled.json", status: .valid, environment: "Production",
            format: .appReceipt, inApp: 1, pendingRenewalInfo: 1, allTransactions: 1, verdict: .valid),
    ]

    static func response(_ file: String) throws -> VerifyReceiptResponse {
        try VerifyReceiptResponse.decode(Conformance.file("responses/" + file))
    }

    @Test("each corpus response decodes with the README's status, environment and counts", arguments: table)
    func decodes(_ expected: Expectation) throws {
        let data = try Conformance.file("responses/" + expected.file)
        let response = try VerifyReceiptResponse.decode(data)
        #expect(response.status == expected.status)
        #expect(response.rawStatus == expected.status.rawValue)
        #expect(response.rawEnvironment == expected.environment)
        #expect(response.receipt?.format == expected.format)
        #expect((response.receipt?.inApp.count ?? 0) == expected.inApp)
        #expect(response.latestReceiptInfo.count == expected.latestReceiptInfo)
        #expect(response.latestExpiredReceiptInfo.count == expected.latestExpiredReceiptInfo)
        #expect(response.pendingRenewalInfo.count == expected.pendingRenewalInfo)
        #expect(response.allTransactions.count == expected.allTransactions)
        let verdict = VerifyReceiptClassifier.verdict(
            for: .httpResponse(statusCode: 200, bodyData: data), attempt: VerifyReceiptAttempt(endpoint: .production),
            now: Date())
        #expect(verdict == expected.verdict)
    }

    @Test("the table covers every response file in the corpus")
    func tableCoversCorpus() {
        let files =
            (Conformance.files(in: "responses/alexalok", withExtension: "json")
            + Conformance.files(in: "responses/venice", withExtension: "json"))
            .map { $0.deletingLastPathComponent().lastPathComponent + "/" + $0.lastPathComponent }
        #expect(Set(files) == Set(Self.table.map(\.file)))
    }

    @Test("21010 carries is_retryable false, in the underscore spelling")
    func accountDeletedIsNotRetryable() throws {
        let response = try Self.response("alexalok/Invalid_Account_Deleted_Not_Retryable.json")
        #expect(response.isRetryable == false)
        #expect(response.environment == .production)
        #expect(response.receipt == nil)
    }

    @Test("bare redirect answers have no environment")
    func bareRedirectHasNoEnvironment() throws {
        let response = try Self.response("alexalok/Invalid_Receipt_Is_From_Test_Environment.json")
        #expect(response.environment == nil)
        #expect(response.isRetryable == nil)
        #expect(response.allTransactions.isEmpty)
    }

    @Test("the BOM file decodes, with download_id null and PURCHASED ownership")
    func byteOrderMarkAndNullDownloadID() throws {
        let data = try Conformance.file("responses/alexalok/Valid_Production_Null_Download_Id.json")
        #expect(data.starts(with: [0xEF, 0xBB, 0xBF]))
        let response = try VerifyReceiptResponse.decode(data)
        let receipt = try #require(response.receipt)
        #expect(receipt.downloadID == nil)
        #expect(receipt.bundleID == "com.test.app")
        #expect(receipt.appItemID == "123")
        #expect(receipt.versionExternalIdentifier == "837591391")
        #expect(receipt.receiptCreationDate == appleDate(milliseconds: 1_608_101_331_000))
        #expect(receipt.inApp.allSatisfy { $0.inAppOwnershipType == "PURCHASED" && !$0.isFamilyShared })
        let latest = try #require(response.latestReceiptInfo.first)
        #expect(latest.transactionID == "120000938859451")
        #expect(latest.originalTransactionID == "120000931683041")
        #expect(latest.expiresDate == appleDate(milliseconds: 1_608_936_445_000))
        #expect(latest.subscriptionGroupIdentifier == "20621425")
        #expect(response.pendingRenewalInfo.first?.willAutoRenew == true)
        #expect(response.latestReceipt == "[[REDACTED]]")
    }

    @Test("family sharing is visible on both in_app and latest_receipt_info")
    func familyShared() throws {
        let response = try Self.response("alexalok/Valid_Production_Family_Shared.json")
        let inApp = try #require(response.receipt?.inApp.first)
        #expect(inApp.transactionID == "540000823485156")
        #expect(inApp.isFamilyShared)
        #expect(inApp.isTrialPeriod == true)
        #expect(response.latestReceiptInfo.first?.transactionID == "1234")
        #expect(response.latestReceiptInfo.first?.isFamilyShared == true)
        #expect(Set(response.pendingRenewalInfo.compactMap(\.originalTransactionID)) == ["1234", "540000823485156"])
        #expect(
            response.pendingRenewalInfo.allSatisfy { $0.expirationIntent == 1 && $0.isInBillingRetryPeriod == false })
        // A real receipt, kept for the next re-verification.
        let latestReceipt = try #require(response.latestReceipt)
        #expect(Data(base64Encoded: latestReceipt)?.first == 0x30)
    }

    @Test("latest_receipt_info holds a renewal newer than in_app, and both are kept")
    func excludingOldSubscriptions() throws {
        let response = try Self.response("alexalok/Valid_Production_Excluding_Old_Subscriptions.json")
        #expect(response.receipt?.inApp.first?.isTrialPeriod == true)
        let renewal = try #require(response.latestReceiptInfo.first)
        #expect(renewal.transactionID == "500")
        #expect(renewal.originalTransactionID == "400")
        #expect(renewal.isTrialPeriod == false)
        #expect(renewal.quantity == 1)
        #expect(renewal.webOrderLineItemID == "600")
        #expect(renewal.expiresDate == appleDate(milliseconds: 1_624_370_224_000))
        #expect(response.allTransactions.map(\.transactionID) == ["500", "400"])
        #expect(response.pendingRenewalInfo.first?.willAutoRenew == false)
        #expect(response.receipt?.downloadID == "200")
    }

    @Test("the sandbox file: 7 in_app, one consumable without expiry among subscription renewals")
    func sandboxConsumable() throws {
        let response = try Self.response(
            "alexalok/Valid_Sandbox_Consumable_And_Active_Subscription_Excluding_Old_Transactions.json")
        #expect(response.environment == .sandbox)
        let receipt = try #require(response.receipt)
        #expect(receipt.receiptType == "ProductionSandbox")
        #expect(receipt.appItemID == "0")
        #expect(receipt.originalApplicationVersion == "1.0")
        #expect(receipt.originalPurchaseDate == appleDate(milliseconds: 1_375_340_400_000))
        #expect(receipt.inApp.count == 7)
        let withoutExpiry = receipt.inApp.filter { $0.expiresDate == nil }
        #expect(withoutExpiry.map(\.productID) == ["com.test.app.mercury"])
        #expect(withoutExpiry.first?.transactionID == "1000000736318436")
        #expect(withoutExpiry.first?.isInIntroOfferPeriod == nil)
        let renewals = receipt.inApp.filter { $0.productID == "com.test.app.mars" }
        #expect(renewals.count == 6)
        #expect(renewals.allSatisfy { $0.originalTransactionID == "1000000735911195" && $0.expiresDate != nil })
        let renewalInfo = try #require(response.pendingRenewalInfo.first)
        #expect(renewalInfo.expirationIntent == 1)
        #expect(renewalInfo.isInBillingRetryPeriod == false)
        #expect(renewalInfo.autoRenewStatus == 0)
    }

    @Test("venice 21006: an iOS 6 flat receipt with latest_expired_receipt_info as an object")
    func expiredTransactionReceipt() throws {
        let response = try Self.response("venice/receipt_expired_cancelled.json")
        #expect(response.status == .subscriptionExpired)
        #expect(response.environment == nil)
        #expect(response.latestReceiptInfo.isEmpty)
        let receipt = try #require(response.receipt)
        #expect(receipt.format == .transactionReceipt)
        #expect(receipt.bundleID == "com.foo.bar")
        #expect(receipt.applicationVersion == "68")
        #expect(receipt.appItemID == "1387514950")
        #expect(receipt.versionExternalIdentifier == "827235835")
        #expect(receipt.inApp.isEmpty)
        let purchase = try #require(receipt.transaction)
        #expect(purchase.transactionID == "140000527258824")
        #expect(purchase.productID == "com.foo.product1")
        #expect(purchase.itemID == "1450637621")
        // iOS 6 `expires_date` is milliseconds; `expires_date_formatted` agrees.
        #expect(purchase.expiresDate == appleDate(milliseconds: 1_550_386_188_000))
        #expect(purchase.purchaseDate == appleDate(milliseconds: 1_549_781_388_000))
        #expect(purchase.isTrialPeriod == true)
        let expired = try #require(response.latestExpiredReceiptInfo.first)
        #expect(expired.transactionID == "140000527258824")
        #expect(expired.expiresDate == appleDate(milliseconds: 1_550_386_188_000))
        // The top-level renewal fields (auto_renew_status as a JSON number) become one element.
        let renewal = try #require(response.pendingRenewalInfo.first)
        #expect(renewal.autoRenewStatus == 0)
        #expect(renewal.autoRenewProductID == "com.foo.product1")
        #expect(renewal.expirationIntent == 1)
        #expect(renewal.isInBillingRetryPeriod == false)
        #expect(renewal.originalTransactionID == "140000527258824")
        #expect(response.allTransactions.map(\.transactionID) == ["140000527258824"])
    }

    @Test("venice status 0: no latest_receipt_info, in_app expires_date without _ms")
    func notExpiredWithoutLatestReceiptInfo() throws {
        let response = try Self.response("venice/receipt_not_expired_cancelled.json")
        #expect(response.latestReceiptInfo.isEmpty)
        #expect(response.latestReceipt == nil)
        let receipt = try #require(response.receipt)
        #expect(receipt.appItemID == "7654321")  // only adam_id is sent
        #expect(receipt.expirationDate == appleDate(milliseconds: 1_401_924_047_883))
        let purchase = try #require(receipt.inApp.first)
        #expect(purchase.transactionID == "1000000070107111")
        #expect(purchase.expiresDate == appleDate(milliseconds: 1_403_966_873_000))  // 2014-06-28 14:47:53 Etc/GMT
        #expect(response.pendingRenewalInfo.first?.originalTransactionID == "37xxxxxxxxx89")
    }
}
