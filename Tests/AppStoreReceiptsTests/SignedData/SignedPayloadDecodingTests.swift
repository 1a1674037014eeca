import AppStoreReceipts
import Foundation
import Testing

/// What decoding a payload does with the unexpected: kinds told from their keys, codes Apple has
/// not invented yet, Xcode's dates, odd shapes, and bytes that are not a payload at all.
@Suite struct SignedPayloadDecodingTests {
    @Test(arguments: [
        (#"{"notificationType":"TEST","transactionId":"1"}"#, SignedDataFormat.notification),
        (#"{"transactionId":"1","receiptType":"Sandbox"}"#, .transaction),
        (#"{"receiptType":"Sandbox","bundleId":"a"}"#, .appTransaction),
        (#"{"applicationVersion":"1"}"#, .appTransaction),
        (#"{"originalApplicationVersion":"1"}"#, .appTransaction),
        (#"{"receiptCreationDate":1}"#, .appTransaction),
        (#"{"bundleId":"a","environment":"Sandbox"}"#, .transaction),
        (#"{"environment":"Sandbox","signedDate":1}"#, .renewalInfo),
        ("{}", .renewalInfo),
    ])
    func kindIsToldFromTheKeys(json: String, format: SignedDataFormat) throws {
        #expect(try SignedPayloadSamples.decode(json).format == format)
    }

    @Test func aKnownKindIsDecodedAsSuch() throws {
        let payload = try SignedPayload.decode(Array(#"{"bundleId":"a"}"#.utf8), as: .renewalInfo)
        #expect(payload == .renewalInfo(SignedRenewalInfo()))
    }

    @Test func unknownCodedValuesAreKept() throws {
        let transaction = try SignedPayloadSamples.decode(
            #"""
            {"transactionId":"1","type":"Future Type","offerType":9,"inAppOwnershipType":"BORROWED",
             "revocationReason":7,"revocationType":"REFUND_PARTIAL","offerDiscountType":"PAY_LATER",
             "transactionReason":"GIFT","environment":"Staging"}
            """#)
        guard case .transaction(let value) = transaction else {
            Issue.record("not a transaction")
            return
        }
        #expect(value.type == SignedTransaction.ProductType(rawValue: "Future Type"))
        #expect(value.type != .autoRenewable)
        #expect(value.offerType?.rawValue == 9)
        #expect(value.inAppOwnershipType?.rawValue == "BORROWED")
        #expect(value.revocationReason?.rawValue == 7)
        #expect(value.revocationType?.rawValue == "REFUND_PARTIAL")
        #expect(value.offerDiscountType?.rawValue == "PAY_LATER")
        #expect(value.transactionReason?.rawValue == "GIFT")
        #expect(value.environment?.rawValue == "Staging")
        #expect(value.environment?.appStoreEnvironment == nil)

        let renewal = try SignedPayloadSamples.decode(
            #"{"autoRenewStatus":2,"expirationIntent":99,"priceIncreaseStatus":3}"#)
        guard case .renewalInfo(let info) = renewal else {
            Issue.record("not renewal info")
            return
        }
        #expect(info.autoRenewStatus?.rawValue == 2)
        #expect(info.expirationIntent?.rawValue == 99)
        #expect(info.priceIncreaseStatus?.rawValue == 3)

        let notification = try SignedPayloadSamples.decode(
            #"{"notificationType":"SOMETHING_NEW","subtype":"ALSO_NEW","data":{"status":9}}"#)
        guard case .notification(let value) = notification else {
            Issue.record("not a notification")
            return
        }
        #expect(value.notificationType?.rawValue == "SOMETHING_NEW")
        #expect(value.subtype?.rawValue == "ALSO_NEW")
        #expect(value.data?.status?.rawValue == 9)
    }

    @Test func environmentsMapOnlyProductionAndSandbox() {
        #expect(SignedEnvironment.production.appStoreEnvironment == .production)
        #expect(SignedEnvironment.sandbox.appStoreEnvironment == .sandbox)
        #expect(SignedEnvironment(.sandbox) == .sandbox)
        #expect(SignedEnvironment.xcode.appStoreEnvironment == nil)
        #expect(SignedEnvironment.localTesting.appStoreEnvironment == nil)
        #expect(SignedEnvironment(rawValue: "production").appStoreEnvironment == nil, "Apple's spelling only")
    }

    @Test(arguments: [
        ("1697680122257.447", 1_697_680_122.257_447),
        ("-62135769600000", -62_135_769_600),
        ("0", 0),
        ("1.6981489e12", 1_698_148_900),
    ])
    func datesAreMillisecondsOfAnySign(literal: String, seconds: Double) throws {
        let payload = try SignedPayloadSamples.decode(#"{"transactionId":"1","signedDate":\#(literal)}"#)
        let date = try #require(payload.signedDate)
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    /// Whole milliseconds are exact to the millisecond, whatever their count of digits or sign.
    @Test(arguments: [
        ("1697680122257", 1_697_680_122.257),
        ("999999999999999", 999_999_999_999.999),
        ("1000000000000001", 1_000_000_000_000.001),
        ("-1", -0.001),
        ("-62135596800000", -62_135_596_800),
        ("253402300799999", 253_402_300_799.999),
    ])
    func wholeMillisecondsAreExact(literal: String, seconds: Double) throws {
        let payload = try SignedPayloadSamples.decode(#"{"transactionId":"1","signedDate":\#(literal)}"#)
        #expect(payload.signedDate == Date(timeIntervalSince1970: seconds))
        let quoted = try SignedPayloadSamples.decode(#"{"transactionId":"1","expiresDate":"\#(literal)"}"#)
        guard case .transaction(let transaction) = quoted else {
            Issue.record("not a transaction")
            return
        }
        #expect(transaction.expiresDate == Date(timeIntervalSince1970: seconds))
    }

    /// Other dates may be a string of a number, read as the number (what a field reader tolerates).
    @Test(arguments: [(#""1698148900000""#, 1_698_148_900), (#""1698148900000.5""#, 1_698_148_900.000_5)])
    func otherDatesMayBeStringsOfANumber(literal: String, seconds: Double) throws {
        let payload = try SignedPayloadSamples.decode(#"{"transactionId":"1","expiresDate":\#(literal)}"#)
        guard case .transaction(let transaction) = payload, let expires = transaction.expiresDate else {
            Issue.record("expiresDate \(literal) not read")
            return
        }
        #expect(abs(expires.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    static let oddDates = [
        "1e400", "-1e400", #""nan""#, #""inf""#, #""0x1p3""#, #""""#, "true", "null", "[1]", #"{"ms":1}"#,
        #""2023-10-19T01:48:42Z""#, #""-""#, #""--1""#, #""1-2""#, #""-+1""#,
    ]

    /// Any other date in an odd shape reads as absent: one odd field does not spoil the payload.
    @Test(arguments: oddDates)
    func oddDatesReadAsAbsent(literal: String) throws {
        let payload = try SignedPayloadSamples.decode(#"{"transactionId":"1","expiresDate":\#(literal)}"#)
        guard case .transaction(let transaction) = payload else {
            Issue.record("not a transaction")
            return
        }
        #expect(transaction.expiresDate == nil)
    }

    /// `signedDate` is the instant the certificates are checked at: absent, the verifier checks now (as
    /// Apple's library does); there but not a finite JSON number, the payload is refused, never "now",
    /// which would let data signed under a since-expired certificate pass as signed today.
    @Test(arguments: oddDates + [#""1698148900000""#])
    func aSignedDateThatIsNotANumberIsRefused(literal: String) {
        let payloads: [(String, SignedDataFormat, String)] = [
            (#"{"transactionId":"1","signedDate":\#(literal)}"#, .transaction, "signedDate"),
            (#"{"autoRenewStatus":1,"signedDate":\#(literal)}"#, .renewalInfo, "signedDate"),
            (#"{"notificationType":"TEST","signedDate":\#(literal)}"#, .notification, "signedDate"),
            (#"{"receiptType":"Production","signedDate":\#(literal)}"#, .appTransaction, "signedDate"),
            (
                #"{"receiptType":"Production","receiptCreationDate":\#(literal)}"#, .appTransaction,
                "receiptCreationDate"
            ),
        ]
        for (json, format, field) in payloads {
            #expect(throws: SignedPayloadError.signedDateNotANumber(field: field), "\(json)") {
                try SignedPayloadSamples.decode(json)
            }
            #expect(throws: SignedPayloadError.signedDateNotANumber(field: field), "\(json)") {
                try SignedPayload.decode(Array(json.utf8), as: format)
            }
        }
    }

    /// An app transaction is checked at its `signedDate`, else at `receiptCreationDate` (Apple's JSON
    /// name for `AppTransaction.signedDate`); with both, `signedDate` wins and the other is not judged.
    @Test func anAppTransactionIsCheckedAtItsSignedDate() throws {
        let both = try SignedPayloadSamples.decode(
            #"{"receiptType":"Production","receiptCreationDate":1000,"signedDate":2000}"#)
        #expect(both.signedDate == Date(timeIntervalSince1970: 2))
        let creation = try SignedPayloadSamples.decode(#"{"receiptType":"Production","receiptCreationDate":1000}"#)
        #expect(creation.signedDate == Date(timeIntervalSince1970: 1))
        let oddCreation = try SignedPayloadSamples.decode(
            #"{"receiptType":"Production","receiptCreationDate":"x","signedDate":2000}"#)
        #expect(oddCreation.signedDate == Date(timeIntervalSince1970: 2))
    }

    /// RFC 7515 §4 asks JWS parsers to refuse duplicate member names: two readers of one payload could
    /// believe two values (a revocation date hidden behind a second `revocationDate`). Escapes count.
    @Test(arguments: [
        #"{"transactionId":"1","transactionId":"2"}"#,
        #"{"transactionId":"1","revocationDate":null,"revocationDate":1}"#,
        #"{"transactionId":"1","t\u0072ansactionId":"2"}"#,
        #"{"notificationType":"TEST","data":{"bundleId":"a","bundleId":"b"}}"#,
        #"{"transactionId":"1","x":[{"a":1,"a":1}]}"#,
    ])
    func aPayloadNamingAMemberTwiceIsRefused(json: String) {
        #expect(throws: SignedPayloadError.duplicateKey) { try SignedPayloadSamples.decode(json) }
        #expect(SignedPayloadError.duplicateKey.description == "signed data payload names a member twice")
    }

    @Test func similarNamesAreNotDuplicates() throws {
        // Same length, first and last eight bytes: one fingerprint, two names.
        let payload = try SignedPayloadSamples.decode(
            #"{"transactionId":"1","abcdefgh1ijklmnop":1,"abcdefgh2ijklmnop":2,"a":1,"b":2}"#)
        #expect(payload.format == .transaction)
    }

    @Test func oddShapesReadAsAbsent() throws {
        let payload = try SignedPayloadSamples.decode(
            #"""
            {"transactionId":23456,"price":123456789012345678901234567890,"quantity":1.5,"isUpgraded":"maybe",
             "offerType":true,"bundleId":{"a":1},"currency":null,"revocationPercentage":"50000"}
            """#)
        guard case .transaction(let transaction) = payload else {
            Issue.record("not a transaction")
            return
        }
        #expect(transaction.transactionID == "23456", "a numeric id keeps its digits")
        #expect(transaction.price == nil, "beyond Int64")
        #expect(transaction.quantity == nil)
        #expect(transaction.isUpgraded == nil)
        #expect(transaction.offerType == nil, "a boolean is not a code")
        #expect(transaction.bundleID == nil)
        #expect(transaction.currency == nil)
        #expect(transaction.revocationPercentage == 50_000)

        let notification = try SignedPayloadSamples.decode(
            #"{"notificationType":"TEST","data":"oops","summary":{"appAppleId":"hi"}}"#)
        guard case .notification(let value) = notification else {
            Issue.record("not a notification")
            return
        }
        #expect(value.data == nil)
        #expect(value.summary?.appAppleID == nil)
        #expect(notification.appAppleID == nil)
    }

    @Test func notificationPartsAnswerInLibraryOrder() throws {
        let payload = try SignedPayloadSamples.decode(
            #"""
            {"notificationType":"TEST",
             "appData":{"environment":"Production","bundleId":"app","appAppleId":3},
             "summary":{"environment":"Sandbox","bundleId":"summary","appAppleId":2},
             "data":{"bundleId":"data"}}
            """#)
        #expect(payload.bundleID == "data")
        #expect(payload.environment == nil, "the first part present answers, even without the field")
        #expect(payload.appAppleID == nil)

        // Apple's verify_and_decode_notification reads externalPurchaseToken before appData.
        let tokenFirst = try SignedPayloadSamples.decode(
            #"""
            {"notificationType":"TEST","externalPurchaseToken":{"externalPurchaseId":"SANDBOX_1"},
             "appData":{"environment":"Production","bundleId":"app","appAppleId":3}}
            """#)
        #expect(tokenFirst.environment == .sandbox)
        #expect(tokenFirst.bundleID == nil)
        #expect(tokenFirst.appAppleID == nil)

        let appOnly = try SignedPayloadSamples.decode(
            #"{"notificationType":"TEST","appData":{"environment":"Production","bundleId":"app","appAppleId":3}}"#)
        #expect(appOnly.environment == .production)
        #expect(appOnly.bundleID == "app")
        #expect(appOnly.appAppleID == 3)
    }

    /// Apple's library: Sandbox when `externalPurchaseId` starts with `SANDBOX`, else Production, a
    /// token without an id included (`verify_and_decode_notification`).
    @Test(arguments: [
        (#"{"externalPurchaseId":"SANDBOX_b2158121"}"#, SignedEnvironment.sandbox),
        (#"{"externalPurchaseId":"SANDBOXb2158121"}"#, .sandbox),
        (#"{"externalPurchaseId":"b2158121-SANDBOX"}"#, .production),
        (#"{"externalPurchaseId":"sandbox_1"}"#, .production),
        (#"{"bundleId":"com.example"}"#, .production),
    ])
    func externalPurchaseTokenEnvironmentAsApple(token: String, environment: SignedEnvironment) throws {
        let payload = try SignedPayloadSamples.decode(
            #"{"notificationType":"EXTERNAL_PURCHASE_TOKEN","externalPurchaseToken":"# + token + "}")
        #expect(payload.environment == environment)
    }

    @Test(arguments: [
        ("", SignedPayloadError.notJSON(offset: 0)),
        ("not json", .notJSON(offset: 1)),  // `n` could start `null`
        (#"{"transactionId":"1",}"#, .notJSON(offset: 21)),
        (#"{"a":1} trailing"#, .notJSON(offset: 8)),
        ("[]", .notAnObject),
        (#"[{"transactionId":"1"}]"#, .notAnObject),
        (#""a string""#, .notAnObject),
        ("1e999999", .notAnObject),
        ("123456789012345678901234567890123456789012345678901234567890", .notAnObject),
        ("null", .notAnObject),
    ])
    func notAPayloadIsAOneLineError(input: String, error: SignedPayloadError) {
        #expect(throws: error) { try SignedPayloadSamples.decode(input) }
        #expect(error.description.count <= 80)
        #expect(!error.description.contains("\n"))
    }

    @Test func hostileBytesFailQuicklyWithoutEchoingThem() {
        let secret = "eyJzZWNyZXQiOiJ0b2tlbiJ9"
        let inputs: [[UInt8]] = [
            [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000),
            Array((#"{"transactionId":""# + secret).utf8),
            [0xFF, 0xFE, 0x00, 0x7B],
            Array(#"{"transactionId":"\#u{1}"}"#.utf8),
        ]
        for bytes in inputs {
            do {
                _ = try SignedPayload.decode(bytes)
                Issue.record("decoded \(bytes.count) hostile bytes")
            } catch {
                #expect(error.description.count <= 80)
                #expect(!error.description.contains(secret))
                #expect(!error.description.contains("\n"))
            }
        }
    }
}
