import AppStoreReceipts
import Foundation
import Testing

/// What the simulator encodes, the job decodes: every field survives the trip, in both
/// container encodings and in the iOS 6 format.
@Suite struct LocalReceiptRoundTripTests {
    typealias Samples = LocalReceiptSamples

    @Test(arguments: [
        LocalReceiptEncoder.ContainerEncoding.der,
        .indefiniteLengthBER(chunkSize: 1),
        .indefiniteLengthBER(chunkSize: 7),
        .indefiniteLengthBER(chunkSize: 4096),
    ])
    func appReceiptRoundTrip(encoding: LocalReceiptEncoder.ContainerEncoding) throws {
        let bytes = LocalReceiptEncoder.appReceipt(Samples.appReceipt, encoding: encoding)
        let decoded = try LocalReceiptDecoder.decode(der: bytes)
        #expect(Samples.comparable(decoded) == Samples.comparable(Samples.appReceipt))
        #expect(decoded.containerByteCount == bytes.count)
        #expect(decoded.bundleIDValueDER == [0x0C, 0x0F] + Array("com.example.app".utf8))
        // Base64 of the same bytes decodes the same.
        #expect(try LocalReceiptDecoder.decode(base64: Data(bytes).base64EncodedString()) == decoded)
    }

    @Test func encodingsLookLikeApplesAndXcodes() {
        // App Store receipts are DER ("MII…"); Xcode's are BER beginning exactly like this
        // (research/verifyreceipt.md §7.1).
        let der = Data(LocalReceiptEncoder.appReceipt(Samples.appReceipt)).base64EncodedString()
        let ber = Data(
            LocalReceiptEncoder.appReceipt(Samples.appReceipt, encoding: .indefiniteLengthBER(chunkSize: 1000))
        )
        .base64EncodedString()
        #expect(der.hasPrefix("MII"))
        #expect(ber.hasPrefix("MIAGCSqGSIb3DQEHAqCA"))
        #expect(LocalReceiptEncoder.base64(Samples.appReceipt) == der)
        #expect(LocalReceiptEncoder.base64(Samples.appReceipt, encoding: .indefiniteLengthBER(chunkSize: 1000)) == ber)
    }

    @Test func absentValuesStayAbsent() throws {
        let bare = LocalReceipt(inApp: [LocalReceipt.InAppPurchase()])
        let decoded = try LocalReceiptDecoder.decode(der: LocalReceiptEncoder.appReceipt(bare))
        #expect(Samples.comparable(decoded) == bare)
        #expect(decoded.environmentKind == .unrecognized)
        #expect(!decoded.isXcodeTestReceipt)
    }

    @Test func receiptWithoutPurchases() throws {
        var receipt = Samples.appReceipt
        receipt.inApp = []
        let decoded = try LocalReceiptDecoder.decode(der: LocalReceiptEncoder.appReceipt(receipt))
        #expect(decoded.inApp.isEmpty)
        #expect(decoded.bundleID == "com.example.app")
    }

    @Test(arguments: [
        ("Production", LocalReceipt.Environment.production),
        ("ProductionVPP", .production),
        ("ProductionSandbox", .sandbox),
        ("ProductionVPPSandbox", .sandbox),
        ("Xcode", .xcode),
        ("Staging", .unrecognized),
    ])
    func environments(value: String, kind: LocalReceipt.Environment) throws {
        var receipt = Samples.appReceipt
        receipt.environment = value
        let decoded = try LocalReceiptDecoder.decode(
            der: LocalReceiptEncoder.appReceipt(receipt, encoding: .indefiniteLengthBER(chunkSize: 100))
        )
        #expect(decoded.environment == value)
        #expect(decoded.environmentKind == kind)
        #expect(decoded.isXcodeTestReceipt == (value == "Xcode"))
    }

    @Test func xcodeStyleReceipt() throws {
        // Like Apple's synthetic Xcode receipt: transaction id "0", expiration 4001-01-01.
        let receipt = LocalReceipt(
            environment: "Xcode", appItemID: 0, bundleID: "com.example.naturelab.backyardbirds.example",
            applicationVersion: "1", creationDate: Samples.date("2023-10-19T01:45:40Z"),
            expirationDate: Samples.date("4001-01-01T00:00:00Z"),
            inApp: [
                LocalReceipt.InAppPurchase(
                    quantity: 1, productID: "pass.premium", transactionID: "0",
                    isInIntroOfferPeriod: true)
            ]
        )
        let text = Data(LocalReceiptEncoder.appReceipt(receipt, encoding: .indefiniteLengthBER(chunkSize: 512)))
            .base64EncodedString()
        let decoded = try LocalReceiptDecoder.decode(base64: text)
        #expect(decoded.isXcodeTestReceipt)
        #expect(decoded.expirationDate == receipt.expirationDate)
        #expect(decoded.inApp.first?.transactionID == "0")
    }

    @Test func extremeValues() throws {
        let purchase = LocalReceipt.InAppPurchase(
            quantity: -1, productID: "ünïcødé \"quoted\" \\ 製品 🎟", transactionID: String(repeating: "9", count: 40),
            // 0001-01-01, proleptic Gregorian
            purchaseDate: Date(timeIntervalSince1970: -62_135_596_800), productType: Int(Int32.max),
            expiresDate: Samples.date("9999-12-31T23:59:59Z"), webOrderLineItemID: String(Int64.max)
        )
        let receipt = LocalReceipt(appItemID: .min, bundleID: "b", inApp: [purchase])
        let decoded = try LocalReceiptDecoder.decode(der: LocalReceiptEncoder.appReceipt(receipt))
        #expect(Samples.comparable(decoded) == receipt)
    }

    @Test func manyPurchases() throws {
        var receipt = Samples.appReceipt
        receipt.inApp = (0..<2000).map { index in
            var purchase = Samples.subscription
            purchase.transactionID = String(2_000_000_000_000_000 + index)
            purchase.purchaseDate = Date(timeIntervalSince1970: 1_500_000_000 + Double(index) * 604_800)
            return purchase
        }
        let bytes = LocalReceiptEncoder.appReceipt(receipt)
        let decoded = try LocalReceiptDecoder.decode(der: bytes)
        #expect(decoded.inApp.count == 2000)
        #expect(Samples.comparable(decoded) == Samples.comparable(receipt))
    }

    // MARK: iOS 6

    @Test func transactionReceiptRoundTrip() throws {
        let text = LocalReceiptEncoder.base64(Samples.transactionReceipt)
        #expect(text.hasPrefix("ewoJ"), "base64 of \"{\\n\\t\", as devices stored it")
        let decoded = try LocalReceiptDecoder.decode(base64: text)
        #expect(decoded == Samples.transactionReceipt)
        #expect(decoded.environmentKind == .sandbox)
    }

    @Test func transactionReceiptIntegersAtTheLimits() throws {
        // Found by the fuzzer: "-" and 19 digits once failed a length guard.
        for value in [Int64.min, Int64.max, -7_226_696_670_173_622_350] {
            var receipt = Samples.transactionReceipt
            receipt.appItemID = value
            receipt.inApp[0].quantity = Int(value)
            #expect(try LocalReceiptDecoder.decode(base64: LocalReceiptEncoder.base64(receipt)) == receipt)
        }
    }

    @Test func transactionReceiptWithoutEnvironmentIsProduction() throws {
        var receipt = Samples.transactionReceipt
        receipt.environment = nil
        let plist = String(decoding: LocalReceiptEncoder.transactionReceipt(receipt), as: UTF8.self)
        #expect(!plist.contains("environment"))
        let decoded = try LocalReceiptDecoder.decode(bytes: Array(plist.utf8))
        #expect(decoded.environment == "Production")
        #expect(decoded.environmentKind == .production)
    }

    @Test func transactionReceiptEscapesStrings() throws {
        var receipt = Samples.transactionReceipt
        receipt.bundleID = "com.example.\"quoted\"\\back\nslash é 🎟"
        let decoded = try LocalReceiptDecoder.decode(base64: LocalReceiptEncoder.base64(receipt))
        #expect(decoded.bundleID == receipt.bundleID)
    }

    @Test func transactionReceiptWithTextDatesOnly() throws {
        // Older receipts without the -ms keys: the text form is read instead.
        let info = """
            {
            \t"transaction-id" = "1000000000000001";
            \t"purchase-date" = "2012-04-30 15:05:55 Etc/GMT";
            \t"expires-date-formatted" = "2012-05-30 15:05:55 Etc/GMT";
            \t"cancellation-date" = "2012-05-01 10:00:00 Etc/GMT";
            \tquantity = 2;
            }
            """
        let outer =
            "{ \"purchase-info\" = \"\(Data(info.utf8).base64EncodedString())\"; \"environment\" = \"Sandbox\"; }"
        let decoded = try LocalReceiptDecoder.decode(base64: Data(outer.utf8).base64EncodedString())
        let purchase = try #require(decoded.inApp.first)
        #expect(purchase.purchaseDate == Samples.date("2012-04-30T15:05:55Z"))
        #expect(purchase.expiresDate == Samples.date("2012-05-30T15:05:55Z"))
        #expect(purchase.cancellationDate == Samples.date("2012-05-01T10:00:00Z"))
        #expect(purchase.quantity == 2)
    }
}

/// The job's decoding before it asks Apple: the receipt's own facts, not its purchases.
@Suite struct LocalReceiptSummaryTests {
    typealias Samples = LocalReceiptSamples

    @Test func theSummaryIsTheWholeDecodingWithoutPurchases() throws {
        for receipt in [Samples.appReceipt, LocalReceipt(bundleID: "b", inApp: [])] {
            let text = LocalReceiptEncoder.base64(receipt)
            var whole = try LocalReceiptDecoder.decode(base64: text)
            let summary = try LocalReceiptDecoder.decodeSummary(base64: text)
            #expect(summary.inApp.isEmpty)
            whole.inApp = []
            #expect(summary == whole)
        }
        // iOS 6 receipts are one purchase: the summary is the whole decoding.
        let text = LocalReceiptEncoder.base64(Samples.transactionReceipt)
        #expect(try LocalReceiptDecoder.decodeSummary(base64: text) == LocalReceiptDecoder.decode(base64: text))
    }

    @Test func onlyTheWholeDecodingRejectsAMalformedPurchase() throws {
        var bytes = LocalReceiptEncoder.appReceipt(Samples.appReceipt)
        // The subscription's product id appears only inside its purchase's nested SET: make the
        // length before it claim more bytes than the purchase holds.
        let productID = Array(try #require(Samples.subscription.productID).utf8)
        let at = try #require(
            (0...(bytes.count - productID.count)).first { Array(bytes[$0..<$0 + productID.count]) == productID })
        bytes[at - 1] = 0x7F
        let text = Data(bytes).base64EncodedString()
        #expect(throws: ReceiptDecodingError.self) { try LocalReceiptDecoder.decode(base64: text) }
        let summary = try LocalReceiptDecoder.decodeSummary(base64: text)
        #expect(summary.bundleID == Samples.appReceipt.bundleID)
        // And whatever the summary rejects, the whole decoding rejects too.
        for broken in ["", "not base64!", Data(bytes.prefix(40)).base64EncodedString()] {
            #expect(throws: ReceiptDecodingError.self) { try LocalReceiptDecoder.decodeSummary(base64: broken) }
            #expect(throws: ReceiptDecodingError.self) { try LocalReceiptDecoder.decode(base64: broken) }
        }
    }
}
