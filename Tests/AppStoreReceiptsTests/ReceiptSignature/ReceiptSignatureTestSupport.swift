import Foundation
import TestSupport

@testable import AppStoreReceipts

/// Receipts signed here with minted chains, and the conformance corpus's real ones.
enum ReceiptSignatureSamples {
    static let created = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21
    static let year: TimeInterval = 365 * 86_400

    /// A chain valid a year either side of `created`.
    static let chain = try! SigningChain.mint(notBefore: created - year, notAfter: created + year)
    /// Another, unrelated chain: a foreign signer.
    static let otherChain = try! SigningChain.mint(
        name: "another signer", notBefore: created - year, notAfter: created + year)

    static func receipt(created: Date = created, transactionID: String = "2000000123456789") -> LocalReceipt {
        LocalReceipt(
            environment: "Production", appItemID: 1_234_567, bundleID: "com.example", applicationVersion: "42",
            opaqueValue: [1, 2, 3, 4], sha1Hash: Array(repeating: 7, count: 20), creationDate: created,
            originalApplicationVersion: "1.0",
            inApp: [
                LocalReceipt.InAppPurchase(
                    quantity: 1, productID: "com.example.monthly", transactionID: transactionID,
                    purchaseDate: created - 86_400, originalTransactionID: transactionID,
                    originalPurchaseDate: created - 86_400, productType: 3, expiresDate: created + 29 * 86_400)
            ])
    }

    /// `receipt` signed by `chain` with `digest`, DER.
    static func signed(
        _ receipt: LocalReceipt = receipt(), by chain: SigningChain = chain, digest: ReceiptDigest = .sha256
    ) -> [UInt8] {
        try! ReceiptSigner(chain: chain, digest: digest).appReceipt(receipt)
    }

    /// A verifier trusting `chain`'s root instead of Apple's.
    static func verifier(trusting chain: SigningChain = chain) -> ReceiptSignatureVerifier {
        ReceiptSignatureVerifier(roots: [chain.root])
    }

    /// A conformance receipt's DER, nil when the corpus is absent.
    static func conformance(_ name: String) throws -> [UInt8] {
        let text = try Conformance.file("receipts/\(name).b64")
        return try LocalReceiptBase64.decode(Array(text))
    }

    /// The two PKCS#7 receipts of the corpus and their creation dates (EXPECTED.json).
    static let appReceipts: [(name: String, created: String)] = [
        ("tpinappreceipt-receipt-production", "2024-02-23T17:27:16Z"),
        ("tpinappreceipt-receipt-sandbox-g5", "2025-12-26T18:39:47Z"),
    ]

    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    /// The byte range of the element `path` leads to (child positions from the root), header included.
    static func range(of path: [Int], in bytes: [UInt8]) -> Range<Int> {
        let document = try! BERDocument(parsing: bytes[...])
        var index = BERDocument.root
        for position in path { index = document.child(position, of: index)! }
        return document[index].headerStart..<document[index].contentEnd
    }
}
