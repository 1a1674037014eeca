import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// The payload of every JWS in shared/conformance/server-api/signed decodes as the kind it is,
/// with the field values EXPECTED.json records.
@Suite(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
struct SignedPayloadConformanceTests {
    /// Every JWS of the corpus and its kind; the other files there are receipts, not JWS.
    static let formats: [String: SignedDataFormat] = [
        "signed/generated/valid-transaction.jws": .transaction,
        "signed/generated/valid-renewal-info.jws": .renewalInfo,
        "signed/generated/invalid-leaf-oid.jws": .transaction,
        "signed/generated/invalid-intermediate-oid.jws": .transaction,
        "signed/generated/invalid-tampered-payload.jws": .transaction,
        "signed/generated/invalid-der-signature.jws": .transaction,
        "signed/generated/invalid-alg-es384-header.jws": .transaction,
        "signed/generated/invalid-chain-length-2.jws": .transaction,
        "signed/generated/invalid-expired-at-signed-date.jws": .transaction,
        "signed/generated/invalid-not-yet-valid-at-signed-date.jws": .transaction,
        "signed/library/transactionInfo": .transaction,
        "signed/library/renewalInfo": .renewalInfo,
        "signed/library/testNotification": .notification,
        "signed/library/wrongBundleId": .notification,
        "signed/library/missingX5CHeaderClaim": .notification,
        "signed/xcode/xcode-signed-transaction": .transaction,
        "signed/xcode/xcode-signed-renewal-info": .renewalInfo,
        "signed/xcode/xcode-signed-app-transaction": .appTransaction,
    ]
    static let receipts: Set = [
        "signed/library/legacyTransaction", "signed/xcode/xcode-app-receipt-with-transaction",
        "signed/xcode/xcode-app-receipt-empty",
    ]

    static func payload(_ file: String) throws -> SignedPayload {
        let jws = String(decoding: try Conformance.file("server-api/" + file), as: UTF8.self)
        return try SignedPayload.decode(try #require(SignedPayloadSamples.payloadSegment(jws)))
    }

    @Test func everyFileOfTheCorpusIsListed() throws {
        let directory = try #require(Conformance.directory).appendingPathComponent("server-api")
        var found: Set<String> = []
        for folder in ["generated", "library", "xcode"] {
            let names = try FileManager.default.contentsOfDirectory(
                atPath: directory.appendingPathComponent("signed/" + folder).path)
            found.formUnion(names.map { "signed/\(folder)/\($0)" })
        }
        #expect(found == Set(Self.formats.keys).union(Self.receipts))
        for receipt in Self.receipts {
            let text = String(decoding: try Conformance.file("server-api/" + receipt), as: UTF8.self)
            #expect(SignedPayloadSamples.payloadSegment(text) == nil, "\(receipt) is not a JWS")
        }
    }

    @Test(arguments: formats.keys.sorted())
    func decodesAsItsKind(file: String) throws {
        #expect(try Self.payload(file).format == Self.formats[file])
    }

    /// Each field EXPECTED.json lists (`payload` and `payload_has`), compared one by one: dates in
    /// milliseconds, prices in milliunits, coded values as raw values.
    @Test func payloadFieldsAreTheExpectedOnes() throws {
        let json = try JSONSerialization.jsonObject(with: Conformance.file("server-api/EXPECTED.json"))
        let signed = try #require((json as? [String: Any])?["signed"] as? [String: [String: Any]])
        var checked = 0
        for (name, entry) in signed {
            guard let fields = (entry["payload"] ?? entry["payload_has"]) as? [String: Any] else { continue }
            let payload = try Self.payload(name)
            for (key, expected) in fields {
                let field = try #require(SignedPayloadSamples.field(key, of: payload), "\(name): \(key) not read")
                #expect(field.matches(expected), "\(name): \(key) is \(field), expected \(expected)")
                checked += 1
            }
        }
        #expect(checked == 3 + 2 + 1 + 28 + 21)
    }

    @Test func libraryDataGivesWhatTheVerifierChecks() throws {
        let transaction = try Self.payload("signed/library/transactionInfo")
        #expect(transaction.environment == .sandbox)
        #expect(transaction.environment?.appStoreEnvironment == .sandbox)
        #expect(transaction.bundleID == "com.example")
        #expect(SignedPayloadSamples.milliseconds(transaction.signedDate) == 1_672_956_154_000)

        let renewalInfo = try Self.payload("signed/library/renewalInfo")
        #expect(renewalInfo.bundleID == nil, "renewal info has no bundleId")
        #expect(renewalInfo.environment == .sandbox)

        let notification = try Self.payload("signed/library/testNotification")
        #expect(notification.environment == .sandbox)
        #expect(notification.bundleID == "com.example")
        #expect(notification.appAppleID == 1234)
        #expect(SignedPayloadSamples.milliseconds(notification.signedDate) == 1_681_314_324_000)

        let wrongBundle = try Self.payload("signed/library/wrongBundleId")
        #expect(wrongBundle.bundleID == "com.example.wrong")
        #expect(wrongBundle.signedDate == nil, "checked at the current time")
        #expect(wrongBundle.environment == nil)
    }

    @Test func xcodeDataKeepsFractionalAndNegativeDates() throws {
        let transaction = try Self.payload("signed/xcode/xcode-signed-transaction")
        #expect(transaction.environment == .xcode)
        #expect(transaction.environment?.appStoreEnvironment == nil, "never an App Store environment")
        let signedDate = try #require(transaction.signedDate)
        #expect(abs(signedDate.timeIntervalSince1970 - 1_697_679_936.056_485) < 0.000_001)

        let appTransaction = try Self.payload("signed/xcode/xcode-signed-app-transaction")
        guard case .appTransaction(let app) = appTransaction else {
            Issue.record("not an app transaction")
            return
        }
        #expect(app.receiptType == .xcode)
        #expect(app.bundleID == "com.example.naturelab.backyardbirds.example")
        #expect(app.originalPurchaseDate?.timeIntervalSince1970 == -62_135_769_600)
        #expect(appTransaction.signedDate == app.receiptCreationDate)
        #expect(abs((appTransaction.signedDate?.timeIntervalSince1970 ?? 0) - 1_697_680_122.257_447) < 0.000_001)

        guard case .renewalInfo(let renewalInfo) = try Self.payload("signed/xcode/xcode-signed-renewal-info") else {
            Issue.record("not renewal info")
            return
        }
        #expect(renewalInfo.autoRenewStatus == .on)
        #expect(SignedPayloadSamples.milliseconds(renewalInfo.renewalDate) == 1_700_358_336_050)
    }
}
