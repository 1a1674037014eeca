import Foundation
import TestSupport
import Testing

@testable import AppStoreReceipts

/// Receipt data decoded once for both the reading and the signature check (the Server API backend's
/// path) gives what decoding the text and checking its signature separately give: the same receipt or
/// the same error, and the same verdict, reason, instant and chain.
struct DecodedReceiptDataTests {
    typealias Samples = ReceiptSignatureSamples

    /// The two paths agree on `text`, whether it decodes or not.
    private func expectSameAsSeparately(_ text: String, verifier: ReceiptSignatureVerifier, _ label: String) {
        let separately = Result { () throws(ReceiptDecodingError) in try LocalReceiptDecoder.decode(base64: text) }
        let once = Result { () throws(ReceiptDecodingError) in try LocalReceiptDecoder.decodeData(base64: text) }
        switch (separately, once) {
        case (.success(let receipt), .success(let decoded)):
            #expect(decoded.receipt == receipt, "\(label)")
            #expect(verifier.verify(decoded) == verifier.verify(base64: text), "\(label)")
        case (.failure(let error), .failure(let same)):
            #expect(same == error, "\(label)")
        default:
            Issue.record("\(label): decoded separately \(separately), once \(once)")
        }
    }

    private static func base64(_ der: [UInt8]) -> String { Data(der).base64EncodedString() }

    @Test(arguments: ReceiptDigest.allCases)
    func signedReceiptsAgree(digest: ReceiptDigest) {
        let verifier = Samples.verifier()
        let der = Samples.signed(digest: digest)
        #expect(verifier.verify(try! LocalReceiptDecoder.decodeData(base64: Self.base64(der))).isVerified)
        expectSameAsSeparately(Self.base64(der), verifier: verifier, "as signed")
        // Every single flipped byte: a receipt that no longer decodes, or one whose check fails alike.
        for offset in der.indices {
            var altered = der
            altered[offset] ^= 0x01
            expectSameAsSeparately(Self.base64(altered), verifier: verifier, "byte \(offset) flipped")
        }
    }

    @Test func failingReceiptsGiveTheSameReason() {
        let verifier = Samples.verifier()
        var noDate = Samples.receipt()
        noDate.creationDate = nil
        let late = Samples.receipt(created: Samples.created + 2 * Samples.year)
        let cases: [(String, [UInt8])] = [
            ("no creation date", Samples.signed(noDate)),
            ("another signer", Samples.signed(by: Samples.otherChain)),
            ("expired at its creation date", Samples.signed(late)),
            ("unsigned", LocalReceiptEncoder.appReceipt(Samples.receipt())),
        ]
        for (label, der) in cases {
            let decoded = try! LocalReceiptDecoder.decodeData(base64: Self.base64(der))
            #expect(verifier.verify(decoded).failure != nil, "\(label)")
            expectSameAsSeparately(Self.base64(der), verifier: verifier, label)
        }
        // Twice encoded, empty, not base64, and an iOS 6 transaction receipt.
        var transaction = Samples.receipt()
        transaction.format = .transactionReceipt
        let texts = [
            Self.base64(Array(Self.base64(Samples.signed()).utf8)), "", "not base64!",
            Self.base64(LocalReceiptEncoder.transactionReceipt(transaction)),
        ]
        for text in texts { expectSameAsSeparately(text, verifier: verifier, "\(text.prefix(12))") }
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func applesReceiptsAgree() throws {
        let verifier = ReceiptSignatureVerifier()
        for (name, _) in Samples.appReceipts {
            let text = String(decoding: try Conformance.file("receipts/\(name).b64"), as: UTF8.self)
            #expect(verifier.verify(try LocalReceiptDecoder.decodeData(base64: text)).isVerified, "\(name)")
            expectSameAsSeparately(text, verifier: verifier, name)
        }
        let iOS6 = String(decoding: try Conformance.file("receipts/venice-ios6-receipt.b64"), as: UTF8.self)
        #expect(verifier.verify(try LocalReceiptDecoder.decodeData(base64: iOS6)).result == .notApplicable)
    }
}
