import AppStoreReceipts
import Foundation
import Testing

/// Shapes Apple has sent (or may send) that a strict decoder would reject.
@Suite struct VerifyReceiptLenientDecodingTests {
    @Test("numbers as strings and strings as numbers read the same")
    func numbersAndStringsInterchange() throws {
        let response = try verifyReceiptResponse(
            #"""
            {"status":"0","environment":"Production","receipt":{"app_item_id":"123","download_id":456,
             "version_external_identifier":789,"in_app":[{"quantity":2,"transaction_id":1000000070107111,
             "original_transaction_id":"1000000070107111","purchase_date_ms":1592575024000,
             "cancellation_date_ms":"1592575025000","cancellation_reason":"1","web_order_line_item_id":270000260708564,
             "subscription_group_identifier":20621425}]}}
            """#)
        #expect(response.status == .valid)
        let receipt = try #require(response.receipt)
        #expect(receipt.appItemID == "123")
        #expect(receipt.downloadID == "456")
        #expect(receipt.versionExternalIdentifier == "789")
        let purchase = try #require(receipt.inApp.first)
        #expect(purchase.quantity == 2)
        #expect(purchase.transactionID == "1000000070107111")
        #expect(purchase.purchaseDate == appleDate(milliseconds: 1_592_575_024_000))
        #expect(purchase.cancellationDate == appleDate(milliseconds: 1_592_575_025_000))
        #expect(purchase.cancellationReason == 1)
        #expect(purchase.webOrderLineItemID == "270000260708564")
        #expect(purchase.subscriptionGroupIdentifier == "20621425")
    }

    @Test(
        "booleans in every spelling Apple and proxies use",
        arguments: [
            (#""true""#, true), (#""false""#, false), (#""1""#, true), (#""0""#, false),
            ("true", true), ("false", false), ("1", true), ("0", false), (#""TRUE""#, true),
        ])
    func booleans(_ json: String, _ expected: Bool) throws {
        let response = try verifyReceiptResponse(
            #"{"status":0,"receipt":{"in_app":[{"is_trial_period":\#(json),"is_in_intro_offer_period":\#(json),"is_upgraded":\#(json)}]}}"#
        )
        let purchase = try #require(response.receipt?.inApp.first)
        #expect(purchase.isTrialPeriod == expected)
        #expect(purchase.isInIntroOfferPeriod == expected)
        #expect(purchase.isUpgraded == expected)
    }

    @Test(
        "is_retryable in both spellings and every type",
        arguments: [
            (#""is_retryable":true"#, true), (#""is_retryable":false"#, false),
            (#""is_retryable":1"#, true), (#""is_retryable":"0""#, false), (#""is_retryable":"true""#, true),
            (#""is-retryable":false"#, false), (#""is-retryable":"1""#, true), (#""is-retryable":0"#, false),
        ])
    func isRetryable(_ field: String, _ expected: Bool) throws {
        let response = try verifyReceiptResponse(#"{"status":21150,\#(field)}"#)
        #expect(response.isRetryable == expected)
        #expect(response.status == .internalError(21_150))
    }

    @Test("unreadable or absent is_retryable is nil, which the rules treat as retryable")
    func isRetryableAbsent() throws {
        #expect(try verifyReceiptResponse(#"{"status":21100}"#).isRetryable == nil)
        #expect(try verifyReceiptResponse(#"{"status":21100,"is_retryable":"maybe"}"#).isRetryable == nil)
        #expect(try verifyReceiptResponse(#"{"status":21100,"is_retryable":null}"#).isRetryable == nil)
    }

    @Test(
        "dates as _ms strings, ms numbers, Apple text, ISO 8601 and Pacific time all give the same instant",
        arguments: [
            #""expires_date_ms":"1592834224000""#,
            #""expires_date_ms":1592834224000"#,
            #""expires_date":"2020-06-22 13:57:04 Etc/GMT""#,
            #""expires_date":"2020-06-22T13:57:04Z""#,
            #""expires_date":"2020-06-22T15:57:04+02:00""#,
            #""expires_date":"2020-06-22T13:57:04.000Z""#,
            #""expires_date":"2020-06-22 06:57:04 America/Los_Angeles""#,
            #""expires_date":"1592834224000""#,
            #""expires_date_formatted":"2020-06-22 13:57:04 Etc/GMT""#,
            // _ms wins over text that disagrees; unreadable _ms falls back to text.
            #""expires_date_ms":"1592834224000","expires_date":"1999-01-01 00:00:00 Etc/GMT""#,
            #""expires_date_ms":"soon","expires_date":"2020-06-22 13:57:04 Etc/GMT""#,
        ])
    func dates(_ fields: String) throws {
        let response = try verifyReceiptResponse(#"{"status":0,"latest_receipt_info":[{\#(fields)}]}"#)
        #expect(response.latestReceiptInfo.first?.expiresDate == appleDate(milliseconds: 1_592_834_224_000))
    }

    @Test(
        "an unreadable date is absent, not a failure",
        arguments: [
            #""expires_date":"next tuesday""#, #""expires_date":"2020-02-30 00:00:00 Etc/GMT""#,
            #""expires_date":"2020-06-22 13:57:04 Mars/Olympus""#, #""expires_date":true"#,
            #""expires_date":{"ms":1}"#, #""expires_date":"""#,
        ])
    func unreadableDate(_ field: String) throws {
        let response = try verifyReceiptResponse(
            #"{"status":0,"latest_receipt_info":[{"transaction_id":"1",\#(field)}]}"#)
        #expect(response.latestReceiptInfo.first?.transactionID == "1")
        #expect(response.latestReceiptInfo.first?.expiresDate == nil)
    }

    @Test("a UTF-8 byte order mark and surrounding whitespace are accepted")
    func byteOrderMark() throws {
        let response = try VerifyReceiptResponse.decode(
            Data([0xEF, 0xBB, 0xBF]) + Data(" \n\t{\"status\":21007}\r\n".utf8))
        #expect(response.status == .sandboxReceiptSentToProduction)
    }

    @Test("unknown fields, at any depth, are ignored")
    func unknownFields() throws {
        let response = try verifyReceiptResponse(
            #"""
            {"status":0,"exception":"com.apple.jingle.foo","future":{"nested":[1,{"a":null}]},
             "receipt":{"bundle_id":"com.example","new_field":[{}],"in_app":[{"transaction_id":"7","renewal_price":{"amount":9.99}}]},
             "pending_renewal_info":[{"product_id":"p","price_increase_status":"1","offer_type":2}]}
            """#)
        #expect(response.receipt?.bundleID == "com.example")
        #expect(response.receipt?.inApp.first?.transactionID == "7")
        #expect(response.pendingRenewalInfo.first?.productID == "p")
    }

    @Test("null anywhere reads as absent")
    func nulls() throws {
        let response = try verifyReceiptResponse(
            #"""
            {"status":0,"environment":null,"latest_receipt":null,"latest_receipt_info":null,"pending_renewal_info":null,
             "receipt":{"bundle_id":null,"download_id":null,"in_app":[{"transaction_id":"1","quantity":null,
             "expires_date_ms":null,"expires_date":"2020-06-22 13:57:04 Etc/GMT","is_trial_period":null}]}}
            """#)
        #expect(response.rawEnvironment == nil)
        #expect(response.latestReceiptInfo.isEmpty)
        #expect(response.receipt?.bundleID == nil)
        let purchase = try #require(response.receipt?.inApp.first)
        #expect(purchase.quantity == nil)
        #expect(purchase.isTrialPeriod == nil)
        #expect(purchase.expiresDate == appleDate(milliseconds: 1_592_834_224_000))
    }

    @Test("a field of the wrong shape is dropped, the rest of the response survives")
    func wrongShapes() throws {
        let response = try verifyReceiptResponse(
            #"""
            {"status":0,"environment":["Production"],"receipt":"garbage",
             "latest_receipt_info":[{"transaction_id":"1"},42,"x",null,{"transaction_id":"2"}],
             "pending_renewal_info":{"product_id":"single"}}
            """#)
        #expect(response.status == .valid)
        #expect(response.rawEnvironment == nil)
        #expect(response.receipt == nil)
        #expect(response.latestReceiptInfo.map(\.transactionID) == ["1", "2"])
        #expect(response.pendingRenewalInfo.map(\.productID) == ["single"])
    }

    @Test("latest_receipt_info as an iOS 6 object is one transaction")
    func latestReceiptInfoObject() throws {
        let response = try verifyReceiptResponse(
            #"{"status":0,"latest_receipt_info":{"transaction_id":"9","expires_date":"1550386188000","bid":"com.foo"}}"#
        )
        #expect(response.latestReceiptInfo.count == 1)
        #expect(response.latestReceiptInfo.first?.expiresDate == appleDate(milliseconds: 1_550_386_188_000))
    }

    @Test("pending renewal info: grace period, billing retry, price consent")
    func pendingRenewalInfo() throws {
        let response = try verifyReceiptResponse(
            #"""
            {"status":0,"pending_renewal_info":[{"auto_renew_product_id":"pro.yearly","auto_renew_status":"1",
             "is_in_billing_retry_period":"1","grace_period_expires_date_ms":"1608936445000",
             "grace_period_expires_date":"2020-12-25 22:47:25 Etc/GMT","original_transaction_id":"42",
             "product_id":"pro.monthly","price_consent_status":"0","expiration_intent":"2"}]}
            """#)
        let renewal = try #require(response.pendingRenewalInfo.first)
        #expect(renewal.autoRenewProductID == "pro.yearly")
        #expect(renewal.willAutoRenew == true)
        #expect(renewal.isInBillingRetryPeriod == true)
        #expect(renewal.gracePeriodExpiresDate == appleDate(milliseconds: 1_608_936_445_000))
        #expect(renewal.originalTransactionID == "42")
        #expect(renewal.productID == "pro.monthly")
        #expect(renewal.priceConsentStatus == 0)
        #expect(renewal.expirationIntent == 2)
    }

    @Test("every documented transaction field is read")
    func transactionFields() throws {
        let response = try verifyReceiptResponse(
            #"""
            {"status":0,"latest_receipt_info":[{"product_id":"pro","transaction_id":"11","original_transaction_id":"10",
             "quantity":"1","purchase_date_ms":"1000","original_purchase_date_ms":"500","expires_date_ms":"2000",
             "cancellation_date_ms":"1500","cancellation_reason":"0","is_trial_period":"false",
             "is_in_intro_offer_period":"true","is_upgraded":"true","web_order_line_item_id":"77",
             "in_app_ownership_type":"FAMILY_SHARED","subscription_group_identifier":"g","promotional_offer_id":"promo",
             "offer_code_ref_name":"code","app_account_token":"8F0C4D2E-0000-4000-8000-000000000000"}]}
            """#)
        let expected = VerifyReceiptTransaction(
            productID: "pro", transactionID: "11", originalTransactionID: "10", quantity: 1,
            purchaseDate: appleDate(milliseconds: 1_000), originalPurchaseDate: appleDate(milliseconds: 500),
            expiresDate: appleDate(milliseconds: 2_000), cancellationDate: appleDate(milliseconds: 1_500),
            cancellationReason: 0, isTrialPeriod: false, isInIntroOfferPeriod: true, isUpgraded: true,
            webOrderLineItemID: "77", inAppOwnershipType: "FAMILY_SHARED", subscriptionGroupIdentifier: "g",
            promotionalOfferID: "promo", offerCodeRefName: "code",
            appAccountToken: "8F0C4D2E-0000-4000-8000-000000000000")
        #expect(response.latestReceiptInfo == [expected])
    }

    @Test("huge numbers keep every digit as ids and never crash as counts")
    func hugeNumbers() throws {
        let response = try verifyReceiptResponse(
            #"""
            {"status":0,"receipt":{"app_item_id":12345678901234567890123,"in_app":[{
             "transaction_id":"123456789012345678901234567890","web_order_line_item_id":98765432109876543210,
             "quantity":"99999999999999999999","cancellation_reason":1e400,"purchase_date_ms":"99999999999999999999999"}]}}
            """#)
        #expect(response.receipt?.appItemID == "12345678901234567890123")
        let purchase = try #require(response.receipt?.inApp.first)
        #expect(purchase.transactionID == "123456789012345678901234567890")
        #expect(purchase.webOrderLineItemID == "98765432109876543210")
        #expect(purchase.quantity == nil)
        #expect(purchase.purchaseDate == nil)
    }

    @Test("a status Apple adds tomorrow decodes and keeps its code", arguments: [21_199, 21_300, 31_337, 2])
    func unknownStatus(_ code: Int) throws {
        let response = try verifyReceiptResponse(#"{"status":\#(code)}"#)
        #expect(response.rawStatus == code)
        #expect(response.status.rawValue == code)
    }

    @Test("environment: Apple's spelling, any case; something else stays raw")
    func environment() throws {
        #expect(try verifyReceiptResponse(#"{"status":0,"environment":"Sandbox"}"#).environment == .sandbox)
        #expect(try verifyReceiptResponse(#"{"status":0,"environment":"production"}"#).environment == .production)
        let odd = try verifyReceiptResponse(#"{"status":0,"environment":"Xcode"}"#)
        #expect(odd.environment == nil)
        #expect(odd.rawEnvironment == "Xcode")
    }

    @Test("a response's description never shows latest_receipt")
    func responseDescriptionIsSafe() throws {
        let response = try verifyReceiptResponse(
            #"{"status":0,"environment":"Production","latest_receipt":"MIIV8AYJKoZIhvcNAQcCoIIV4TCCFd0CAQExCzAJBgUrDgMCGgUA","receipt":{"bundle_id":"com.example","in_app":[]}}"#
        )
        for text in [response.description, String(reflecting: response), "\(response)"] {
            #expect(!text.contains("MIIV8AYJ"))
            #expect(text.contains("status 0"))
        }
    }

    // MARK: - Bodies that are not a response

    struct BrokenBody: CustomTestStringConvertible, Sendable {
        var name: String
        var body: Data
        var expected: VerifyReceiptDecodingError
        var testDescription: String { name }
    }

    static let brokenBodies: [BrokenBody] = [
        BrokenBody(name: "empty", body: Data(), expected: .emptyBody),
        BrokenBody(name: "whitespace", body: Data(" \r\n ".utf8), expected: .emptyBody),
        BrokenBody(name: "BOM only", body: Data([0xEF, 0xBB, 0xBF]), expected: .emptyBody),
        BrokenBody(
            name: "HTML error page",
            body: Data("<html>\n<head><title>503 Service Temporarily Unavailable</title></head></html>".utf8),
            expected: .notJSON(prefix: "<html>")),
        BrokenBody(
            name: "long HTML line",
            body: Data("<!DOCTYPE html><html lang=\"en\"><head><title>Apple - Error</title>".utf8),
            expected: .notJSON(prefix: "<!DOCTYPE html><html lang=\"en\"><head><ti")),
        BrokenBody(
            name: "receipt echoed back",
            body: Data("MIIV8AYJKoZIhvcNAQcCoIIV4TCCFd0CAQExCzAJBgUrDgMCGgUAMIIFkQYJKoZIhvcNAQcB".utf8),
            expected: .notJSON(prefix: "[base64-like data]")),
        BrokenBody(name: "binary", body: Data([0x00, 0xFF, 0x41]), expected: .notJSON(prefix: "??A")),
        BrokenBody(name: "array", body: Data(#"[{"status":0}]"#.utf8), expected: .notAnObject(kind: "an array")),
        BrokenBody(name: "string", body: Data(#""status""#.utf8), expected: .notAnObject(kind: "a string")),
        BrokenBody(name: "number", body: Data("21002".utf8), expected: .notAnObject(kind: "a number")),
        BrokenBody(name: "null", body: Data("null".utf8), expected: .notAnObject(kind: "null")),
        BrokenBody(
            name: "truncated", body: Data(#"{"status":0,"receipt":{"bundle_id":"com.exa"#.utf8),
            expected: .malformedJSON(byteCount: 43)),
        BrokenBody(
            name: "trailing garbage", body: Data(#"{"status":0}}"#.utf8), expected: .malformedJSON(byteCount: 13)),
        BrokenBody(name: "no status", body: Data(#"{"environment":"Production"}"#.utf8), expected: .missingStatus),
        BrokenBody(name: "null status", body: Data(#"{"status":null}"#.utf8), expected: .missingStatus),
        BrokenBody(name: "text status", body: Data(#"{"status":"ok"}"#.utf8), expected: .statusNotANumber),
        BrokenBody(name: "object status", body: Data(#"{"status":{"code":0}}"#.utf8), expected: .statusNotANumber),
        BrokenBody(
            name: "huge status", body: Data(#"{"status":99999999999999999999}"#.utf8), expected: .statusNotANumber),
    ]

    @Test("bodies that are not a response fail with a one-line reason", arguments: brokenBodies)
    func brokenBody(_ row: BrokenBody) {
        #expect(throws: row.expected) { try VerifyReceiptResponse.decode(row.body) }
        #expect(!row.expected.description.contains("\n"))
        #expect(row.expected.description.count <= 80)
    }

    @Test("the reason for an HTML page names its first bytes")
    func htmlDescription() {
        let error = VerifyReceiptDecodingError.notJSON(prefix: "<html>")
        #expect(error.description == "response is not JSON (starts with '<html>')")
    }

    @Test("a real response cut anywhere fails cleanly, never crashes", arguments: [1, 2, 10, 100, 1_000, 3_000])
    func truncatedRealResponse(_ length: Int) throws {
        let full = Data(
            #"{"status":0,"environment":"Production","receipt":{"bundle_id":"com.example","in_app":[{"transaction_id":"1","expires_date_ms":"1"}]},"latest_receipt_info":[]}"#
                .utf8)
        let cut = full.prefix(min(length, full.count - 1))
        #expect(throws: VerifyReceiptDecodingError.self) { try VerifyReceiptResponse.decode(cut) }
    }
}
