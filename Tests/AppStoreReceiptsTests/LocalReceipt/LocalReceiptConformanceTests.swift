import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// Real receipts from public projects (shared/conformance/receipts) decode to the values
/// recorded in EXPECTED.json, which were cross-checked with Apple's own library.
@Suite(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
struct LocalReceiptConformanceTests {
    static let receiptFiles = [
        "tpinappreceipt-receipt-production.b64",
        "tpinappreceipt-receipt-sandbox-g5.b64",
        "venice-ios6-receipt.b64",
    ]

    /// EXPECTED.json, or nil (with the notice `Conformance` prints) when the corpus is absent.
    static func expectations() throws -> [String: [String: Any]]? {
        guard Conformance.isAvailable else { return nil }
        let json = try JSONSerialization.jsonObject(with: Conformance.file("receipts/EXPECTED.json"))
        return try #require(json as? [String: [String: Any]])
    }

    static func base64(_ file: String) throws -> String {
        String(decoding: try Conformance.file("receipts/" + file), as: UTF8.self)
    }

    @Test(arguments: receiptFiles)
    func decodesToExpectedValues(file: String) throws {
        guard let expectations = try Self.expectations() else { return }
        let expected = try #require(expectations[file])
        let receipt = try LocalReceiptDecoder.decode(base64: Self.base64(file))

        let format: LocalReceipt.Format =
            expected["format"] as? String == "ios6-transaction-receipt"
            ? .transactionReceipt : .appReceipt
        #expect(receipt.format == format)
        #expect(receipt.bundleID == expected["bundle_id"] as? String)
        #expect(receipt.environment == expected["environment"] as? String)
        #expect(receipt.applicationVersion == expected["application_version"] as? String)
        if let count = expected["in_app_count"] as? Int {
            #expect(receipt.inApp.count == count)
        } else {
            #expect(receipt.inApp.count == 1, "an iOS 6 receipt is one purchase")
        }
        // In-app entries sit in a SET: compare sorted.
        #expect(
            receipt.inApp.compactMap(\.transactionID).sorted() == (expected["transaction_ids"] as? [String])?.sorted())
        #expect(
            receipt.inApp.compactMap(\.originalTransactionID).sorted()
                == (expected["original_transaction_ids"] as? [String])?.sorted())
        #expect(receipt.inApp.compactMap(\.productID).sorted() == (expected["product_ids"] as? [String])?.sorted())
        if let original = expected["original_application_version"] as? String {
            #expect(receipt.originalApplicationVersion == original)
        }
        if let created = expected["receipt_creation_date"] as? String {
            #expect(receipt.creationDate.map(isoString) == created)
        }
        if let length = expected["der_length"] as? Int {
            #expect(receipt.containerByteCount == length)
        }
        if let purchased = expected["purchase_date"] as? String {
            // "2012-04-30 15:05:55 Etc/GMT"; the receipt also carries the milliseconds.
            let seconds = receipt.inApp.first?.purchaseDate.map { $0.timeIntervalSince1970.rounded(.down) }
            #expect(
                seconds
                    == LocalReceiptSamples.date(
                        purchased.replacingOccurrences(of: " Etc/GMT", with: "Z")
                            .replacingOccurrences(of: " ", with: "T")
                    ).timeIntervalSince1970)
        }
        #expect(!receipt.isXcodeTestReceipt)
    }

    @Test func everyCorpusReceiptHasExpectations() throws {
        guard let expectations = try Self.expectations() else { return }
        let files = Conformance.files(in: "receipts", withExtension: "b64").map(\.lastPathComponent)
        #expect(Set(files) == Set(expectations.keys))
        #expect(Set(files) == Set(Self.receiptFiles), "a new corpus receipt needs adding to receiptFiles")
    }

    @Test func productionReceiptDetails() throws {
        guard Conformance.isAvailable else { return }
        let receipt = try LocalReceiptDecoder.decode(base64: Self.base64("tpinappreceipt-receipt-production.b64"))
        #expect(receipt.environmentKind == .production)
        #expect(receipt.sha1Hash?.count == 20)
        #expect(receipt.opaqueValue != nil)
        #expect(receipt.bundleIDValueDER?.first == 0x0C, "the bundle id is stored as a UTF8String")
        // Two of the four renewals carry a promotional offer (attribute 1721).
        #expect(receipt.inApp.compactMap(\.promotionalOfferID).count == 2)
        for purchase in receipt.inApp {
            #expect(purchase.quantity == 1)
            let purchased = try #require(purchase.purchaseDate)
            let expires = try #require(purchase.expiresDate)
            #expect(expires > purchased)
            #expect(purchase.cancellationDate == nil, "an empty IA5String reads as absent")
            #expect(purchase.webOrderLineItemID != nil)
        }
    }

    @Test func sandboxReceiptIsSandbox() throws {
        guard Conformance.isAvailable else { return }
        let receipt = try LocalReceiptDecoder.decode(base64: Self.base64("tpinappreceipt-receipt-sandbox-g5.b64"))
        #expect(receipt.environmentKind == .sandbox)
        #expect(receipt.appItemID == 0)
    }

    @Test(arguments: receiptFiles)
    func survivesReencodingAndTransportMangling(file: String) throws {
        guard Conformance.isAvailable else { return }
        let text = try Self.base64(file)
        let receipt = try LocalReceiptDecoder.decode(base64: text)

        // Line-wrapped at 76 with CRLF, as some clients store it.
        var wrapped = ""
        for (index, character) in text.enumerated() {
            if index > 0 && index % 76 == 0 { wrapped += "\r\n" }
            wrapped.append(character)
        }
        #expect(try LocalReceiptDecoder.decode(base64: "  " + wrapped + "\n") == receipt)
        // Base64-encoded twice.
        #expect(try LocalReceiptDecoder.decode(base64: Data(text.utf8).base64EncodedString()) == receipt)
        // Raw bytes.
        let bytes = try #require(Data(base64Encoded: text))
        #expect(try LocalReceiptDecoder.decode(bytes: bytes) == receipt)

        if receipt.format == .appReceipt {
            #expect(try LocalReceiptDecoder.decode(der: bytes) == receipt)
            // Re-encoded by our encoder, DER and Xcode-style BER: the same values.
            let expected = LocalReceiptSamples.comparable(receipt)
            let der = LocalReceiptEncoder.appReceipt(receipt)
            #expect(LocalReceiptSamples.comparable(try LocalReceiptDecoder.decode(der: der)) == expected)
            let ber = LocalReceiptEncoder.appReceipt(receipt, encoding: .indefiniteLengthBER(chunkSize: 1000))
            #expect(LocalReceiptSamples.comparable(try LocalReceiptDecoder.decode(der: ber)) == expected)
        } else {
            let reencoded = LocalReceiptEncoder.base64(receipt)
            #expect(try LocalReceiptDecoder.decode(base64: reencoded) == receipt)
        }
    }

    @Test func inspectOfProductionReceipt() throws {
        guard Conformance.isAvailable else { return }
        let receipt = try LocalReceiptDecoder.decode(base64: Self.base64("tpinappreceipt-receipt-production.b64"))
        let json = receipt.inspectJSON()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["format"] as? String == "app_receipt")
        #expect(object["environment"] as? String == "Production")
        #expect(object["bundle_id"] as? String == "org.getpure.pure-iphone")
        #expect(object["creation_date"] as? String == "2024-02-23T17:27:16Z")
        let inApp = try #require(object["in_app"] as? [[String: Any]])
        #expect(inApp.count == 4)
        #expect(inApp.allSatisfy { $0["quantity"] as? Int == 1 })
        #expect(inApp.allSatisfy { $0["original_transaction_id"] as? String == "340001196262039" })
        #expect(inApp.allSatisfy { $0["cancellation_date"] is NSNull })
    }

    @Test func inspectOfIOS6Receipt() throws {
        guard Conformance.isAvailable else { return }
        let receipt = try LocalReceiptDecoder.decode(base64: Self.base64("venice-ios6-receipt.b64"))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(receipt.inspectJSON().utf8)) as? [String: Any]
        )
        #expect(object["format"] as? String == "transaction_receipt")
        #expect(object["environment"] as? String == "Sandbox")
        #expect(object["application_version"] as? String == "20120427")
        #expect(object["creation_date"] is NSNull)
        let purchase = try #require((object["in_app"] as? [[String: Any]])?.first)
        #expect(purchase["purchase_date"] as? String == "2012-04-30T15:05:55.868Z")
        #expect(purchase["product_id"] as? String == "com.mindmobapp.download")
        #expect(purchase["quantity"] as? Int == 1)
    }

    private func isoString(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: date)
    }
}
