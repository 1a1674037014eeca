import Foundation
import TestSupport
import Testing

@testable import AppStoreReceipts

/// `VerifyReceiptResponse.decode` (AppleJSONParser) against the JSONDecoder-based decoder it
/// replaced (`LegacyVerifyReceiptDecoder`): the same responses, field for field, on real and
/// simulator answers and on every lenient shape; and the few places where it deliberately differs.
@Suite struct VerifyReceiptDecoderDifferentialTests {
    typealias Outcome = Result<VerifyReceiptResponse, VerifyReceiptDecodingError>

    static func both(_ body: Data) -> (new: Outcome, old: Outcome) {
        (decodingResult(body), legacyDecodingResult(body))
    }

    @Test(
        "every conformance response decodes exactly as before",
        .enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func conformance() throws {
        let files =
            Conformance.files(in: "responses/alexalok", withExtension: "json")
            + Conformance.files(in: "responses/venice", withExtension: "json")
        #expect(files.count == 11)
        for file in files {
            let (new, old) = Self.both(try Data(contentsOf: file))
            #expect(new == old, "\(file.lastPathComponent)")
            #expect(throws: Never.self) { try new.get() }
        }
    }

    @Test("every simulator answer decodes exactly as before")
    func simulatorAnswers() {
        var transactions = 0
        for answer in SimulatorAnswers.all {
            let (new, old) = Self.both(Data(answer))
            #expect(new == old, "\(String(decoding: answer.prefix(120), as: UTF8.self))")
            transactions += (try? new.get())?.allTransactions.count ?? 0
        }
        #expect(SimulatorAnswers.all.count > 800)
        #expect(transactions > 1_000)
    }

    /// Bodies in every shape the lenient readers accept or drop, iOS 6 included, and bodies that
    /// fail the same way in both.
    static let shapes: [String] = [
        #"{"status":0}"#, #"{"status":"21007"}"#, #"{"status":" 21007 "}"#, #"{"status":2.1007e4}"#, #"{"status":-0}"#,
        #"{"status":0.0}"#, #"{"status":true}"#, #"{"status":null}"#, #"{"environment":"Sandbox"}"#,
        #"{"status":"ok"}"#,
        #"{"status":[0]}"#, #"{"status":{"code":0}}"#, #"{"status":99999999999999999999}"#, #"{"status":1.5}"#,
        #"{"status":0,"status":21007}"#, #"{"status":null,"status":0}"#,
        #"{"stat\u0075s":21007,"environm\u0065nt":"X"}"#,
        #"{"status":0,"environment":"A","environment":"B"}"#,
        #"{"status":0,"environment":["Production"],"receipt":"garbage"}"#,
        #"{"status":21150,"is_retryable":1}"#, #"{"status":21150,"is-retryable":"0"}"#,
        #"{"status":21150,"is_retryable":"maybe","is-retryable":true}"#,
        #"{"status":0,"receipt":{"app_item_id":12345678901234567890123,"download_id":null,"adam_id":5,"version_external_identifier":"7"}}"#,
        #"{"status":0,"receipt":{"bid":null,"transaction_id":"5"}}"#,
        #"{"status":0,"receipt":{"transaction_id":"5","in_app":null}}"#,
        #"{"status":0,"receipt":{"bid":"com.a","bvrs":"3","item_id":9,"expires_date":"1550386188000","original_transaction_id":1}}"#,
        #"{"status":0,"receipt":{"bundle_id":"a","bid":"b","application_version":null,"bvrs":"2","in_app":[]}}"#,
        #"{"status":0,"receipt":{"expiration_date":"1401924047883","request_date":"2020-06-22 06:57:04 America/Los_Angeles","receipt_creation_date_ms":"x","receipt_creation_date":"2020-06-22T13:57:04.5+02:00"}}"#,
        #"{"status":0,"latest_receipt_info":[{"transaction_id":"1"},42,"x",null,[],{"transaction_id":"2"}],"pending_renewal_info":{"product_id":"single"}}"#,
        #"{"status":0,"latest_receipt_info":{},"latest_expired_receipt_info":[{}],"pending_renewal_info":[]}"#,
        #"{"status":0,"latest_receipt_info":"x","pending_renewal_info":7}"#,
        #"{"status":0,"latest_receipt_info":[[{"transaction_id":"1"}]]}"#,
        #"{"status":21006,"receipt":{"bid":"b","transaction_id":"7","original_transaction_id":"6","product_id":"p"},"auto_renew_status":0,"expiration_intent":"1","is_in_billing_retry_period":"0"}"#,
        #"{"status":21006,"latest_expired_receipt_info":{"transaction_id":"7","product_id":"q","original_transaction_id":"6"},"auto_renew_product_id":"r"}"#,
        #"{"status":0,"pending_renewal_info":null,"auto_renew_status":1,"grace_period_expires_date_ms":1608936445000}"#,
        #"{"status":0,"pending_renewal_info":[null],"price_consent_status":"1"}"#,
        #"{"status":0,"latest_receipt":null,"latest_receipt_info":[{"quantity":null,"expires_date_ms":null,"expires_date":"2020-06-22 13:57:04 Etc/GMT","is_trial_period":null}]}"#,
        #"{"status":0,"latest_receipt":"MIIV8AYJ\/\/+=","latest_receipt_info":[{"transaction_id":1000000070107111,"web_order_line_item_id":98765432109876543210,"quantity":"99999999999999999999"}]}"#,
        #"{"status":0,"latest_receipt_info":[{"transaction_id":-0,"quantity":1.0,"cancellation_reason":1e3,"is_trial_period":1.0,"is_upgraded":0e5,"purchase_date_ms":1592575024000.000,"original_purchase_date_ms":15925750240e2}]}"#,
        #"{"status":0,"latest_receipt_info":[{"transaction_id":9223372036854775807,"original_transaction_id":-9223372036854775808,"web_order_line_item_id":9223372036854775808,"quantity":-9223372036854775809}]}"#,
        #"{"status":0,"latest_receipt_info":[{"quantity":"1.0","cancellation_reason":"1e3","expiration_intent":"+1","is_trial_period":" TRUE ","is_upgraded":"no","is_in_intro_offer_period":"yes"}]}"#,
        #"{"status":0,"latest_receipt_info":[{"quantity":" 1.0 ","cancellation_reason":"5.","is_trial_period":"2","is_upgraded":2,"is_in_intro_offer_period":"0.0"}]}"#,
        #"{"status":0,"latest_receipt_info":[{"quantity":"1000e-3","cancellation_reason":"+1.0","is_trial_period":"","is_upgraded":"","expires_date_ms":"1000.0"}]}"#,
        #"{"status":0,"latest_receipt_info":[{"expires_date_ms":true,"purchase_date_ms":false,"cancellation_date":true,"original_purchase_date":"","expires_date":"1"}]}"#,
        #"{"status":0,"latest_receipt_info":[{"expires_date_ms":"soon","expires_date":"2020-06-22 13:57:04 Etc/GMT","expires_date_formatted":"1999-01-01 00:00:00 Etc/GMT"}]}"#,
        #"{"status":0,"latest_receipt_info":[{"expires_date":"next tuesday","expires_date_formatted":"2020-06-22T13:57:04Z"}]}"#,
        #"{"status":0,"latest_receipt_info":[{"expires_date":" 1000","purchase_date":"1.5e3","cancellation_date_ms":"-5"}]}"#,
        #"{"status":0,"latest_receipt_info":[{"expires_date":{"ms":1},"purchase_date":["1000"],"cancellation_date":"2020-02-30 00:00:00 Etc/GMT"}]}"#,
        #"{"status":0,"latest_receipt_info":[{"product_id":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/","in_app_ownership_type":"FAMILY_SHARED","app_account_token":"é"}]}"#,
        #"{"status":0,"exception":"x","future":{"nested":[1,{"a":null}],"deeper":[[[[[[[[[[[]]]]]]]]]]]},"receipt":{"new_field":[{}]}}"#,
        " \n\t{\"status\":21007}\r\n ",
        #"{"status":0,"receipt":{"bundle_id":"com.exa"#, #"{"status":0}}"#, #"{"status":0"#, #"{"status":0,"x":tru}"#,
        #"{"status":0,"x":NaN}"#, #"{'status':0}"#, #"{"status":0 /* c */}"#, #"{status:0}"#, #"{"status" 0}"#,
        "", "  ", "<html><body>503</body></html>", "[{\"status\":0}]", "\"status\"", "21002", "null", "true",
    ]

    @Test("every lenient shape decodes exactly as before", arguments: shapes)
    func shape(_ body: String) {
        let (new, old) = Self.both(Data(body.utf8))
        #expect(new == old)
    }

    @Test("a byte order mark is handled as before")
    func byteOrderMark() {
        for body in [#"{"status":0}"#, "  {\"status\":21007}", "", "<html>", #"{"status":0"#] {
            let (new, old) = Self.both(Data([0xEF, 0xBB, 0xBF]) + Data(body.utf8))
            #expect(new == old)
        }
    }

    // MARK: - Deliberate differences

    /// Bodies the JSONDecoder-based decoder read despite broken JSON, usually by dropping the
    /// broken field. A damaged answer is now refused as a whole (the client retries it): reading
    /// what is left could drop a cancellation date.
    static let brokenButReadBefore: [[UInt8]] = [
        Array(#"{"status":0,"environment":"Production",}"#.utf8),
        Array(#"{"status":0,"latest_receipt_info":[{"transaction_id":"1"},]}"#.utf8),
        Array(#"{"status":0,"environment":"\ud800"}"#.utf8),
        Array(#"{"status":0,"environment":"\x"}"#.utf8),
        Array(#"{"status":0,"latest_receipt_info":[{"cancellation_date_ms":"15"#.utf8) + [0x0A]
            + Array(#"00"}]}"#.utf8),
        Array(#"{"status":0,"environment":""#.utf8) + [0xFF] + Array(#""}"#.utf8),
        Array(#"{"status":0,"quantity":01}"#.utf8),
        Array(#"{"status":0,"x":"#.utf8) + Array(repeating: UInt8(ascii: "["), count: 100)
            + Array(repeating: UInt8(ascii: "]"), count: 100) + [UInt8(ascii: "}")],
        Array("{\"status\":21007}".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
    ]

    @Test("broken JSON the old decoder read around is now refused as malformed", arguments: brokenButReadBefore)
    func nowRefused(_ body: [UInt8]) {
        let (new, old) = Self.both(Data(body))
        #expect(new == .failure(.malformedJSON(byteCount: body.count)))
        #expect(throws: Never.self) { try old.get() }
    }

    @Test("numbers that are not plain integers keep their literal when read as text")
    func numberText() throws {
        // JSONDecoder went through Decimal: 38 digits at most, exponents expanded or lost.
        let response = try verifyReceiptResponse(
            #"{"status":0,"latest_receipt_info":[{"transaction_id":1.50,"original_transaction_id":123456789012345678901234567890123456789012,"web_order_line_item_id":1e400,"product_id":1.0,"item_id":1e3}]}"#
        )
        let purchase = try #require(response.latestReceiptInfo.first)
        #expect(purchase.transactionID == "1.50")  // was "1.5"
        #expect(purchase.originalTransactionID == "123456789012345678901234567890123456789012")  // was ...789000
        #expect(purchase.webOrderLineItemID == "1e400")  // was nil
        #expect(purchase.productID == "1")  // as before: integral numbers read plainly
        #expect(purchase.itemID == "1000")  // as before
    }

    @Test("numbers in strings must be whole numbers; Decimal(string:) read a prefix")
    func numberStrings() throws {
        for text in ["1.0abc", "1e", "e3", "1..0", "1.0.0", "1e3e"] {
            let response = try verifyReceiptResponse(#"{"status":0,"latest_receipt_info":[{"quantity":"\#(text)"}]}"#)
            #expect(response.latestReceiptInfo.first?.quantity == nil, "\(text)")
        }
        // Exact arithmetic where Decimal rounded at 38 digits or underflowed to zero.
        let response = try verifyReceiptResponse(
            #"{"status":0,"latest_receipt_info":[{"quantity":3.0000000000000000000000000000000000000001,"cancellation_reason":1e-400}]}"#
        )
        #expect(response.latestReceiptInfo.first?.quantity == nil)  // was 3
        #expect(response.latestReceiptInfo.first?.cancellationReason == nil)  // was 0
    }
}
