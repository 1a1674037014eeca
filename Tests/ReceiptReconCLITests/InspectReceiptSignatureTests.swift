import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// `receipt-recon inspect` on app receipts shows the verdict on their PKCS#7 signature, checked as
/// `--backend server-api` checks it: `signature`, `reason`, `digest`, `checked_at` (the creation
/// date) and the signer `chain`; a failed signature prints the object and exits 65.
@Suite struct InspectReceiptSignatureTests {
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static let created = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21T14:13:20Z

    static let receipt = LocalReceipt(
        environment: "Production", bundleID: "com.example", applicationVersion: "3", creationDate: created,
        inApp: [
            LocalReceipt.InAppPurchase(
                quantity: 1, productID: "monthly", transactionID: "2000000000000001", purchaseDate: created - 60,
                originalTransactionID: "2000000000000001", productType: 3, expiresDate: created + 30 * 86_400)
        ])

    /// A minted chain written to a directory, and `receipt` signed by it into a file.
    struct Signed {
        let directory: URL
        let chain: SigningChain
        var rootFile: String { directory.appendingPathComponent(SigningChain.rootFile).path }
        var receiptFile: String { directory.appendingPathComponent("receipt.b64").path }

        init(digest: ReceiptDigest = .sha256) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("recon-receipt-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            chain = try SigningChain.mint(notBefore: created - 86_400, notAfter: created + 86_400)
            try chain.write(to: directory)
            let text = try ReceiptSigner(chain: chain, digest: digest).base64(InspectReceiptSignatureTests.receipt)
            try Data(text.utf8).write(to: URL(fileURLWithPath: receiptFile))
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func conformanceReceiptsShowAVerifiedSignatureAtTheirCreationDate() throws {
        for (name, created, leafEnd) in [
            ("tpinappreceipt-receipt-production", "2024-02-23T17:27:16Z", "2024-10-01T19:13:56Z"),
            ("tpinappreceipt-receipt-sandbox-g5", "2025-12-26T18:39:47Z", "2026-08-23T"),
        ] {
            let path = Conformance.directory!.appendingPathComponent("receipts/\(name).b64").path
            let result = try ReceiptReconBinary.run(["inspect", path])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let printed = try Self.object(result.stdout)
            #expect(printed["signature"] as? String == "verified", "\(name)")
            #expect(printed["reason"] is NSNull)
            #expect(printed["digest"] as? String == "sha256")
            #expect(printed["checked_at"] as? String == created)
            #expect(printed["creation_date"] as? String == created)
            let chain = try #require(printed["chain"] as? [[String: Any]])
            #expect(chain.count == 3)
            #expect(
                (chain[0]["subject"] as? String)?.contains("CN=Mac App Store and iTunes Store Receipt Signing") == true)
            #expect((chain[0]["not_after"] as? String)?.hasPrefix(leafEnd) == true, "\(chain[0])")
            #expect((chain[1]["subject"] as? String)?.contains("OU=G5") == true)
            #expect(
                chain[2]["subject"] as? String == "CN=Apple Root CA,OU=Apple Certification Authority,O=Apple Inc.,C=US")
            // Key order: the receipt's own fields, then the verdict, then the purchases.
            let keys = ["creation_date", "signature", "reason", "digest", "checked_at", "chain", "in_app"]
            let positions = keys.compactMap { result.stdout.range(of: "\"\($0)\":")?.lowerBound }
            #expect(positions.count == keys.count && positions == positions.sorted())
        }
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func iOS6ReceiptSignatureIsNotApplicable() throws {
        let path = Conformance.directory!.appendingPathComponent("receipts/venice-ios6-receipt.b64").path
        let result = try ReceiptReconBinary.run(["inspect", path])
        #expect(result.status == 0, "\(result.stderr)")
        let printed = try Self.object(result.stdout)
        #expect(printed["signature"] as? String == "not_applicable")
        #expect(printed["checked_at"] is NSNull)
        #expect((printed["chain"] as? [Any])?.isEmpty == true)
    }

    /// A receipt signed by another root fails against Apple's (65, the object printed, the reason on
    /// stderr) and verifies when that root replaces it, by flag or by variable.
    @Test(arguments: ReceiptDigest.allCases)
    func aForeignRootFailsUntilItIsConfigured(digest: ReceiptDigest) throws {
        let signed = try Signed(digest: digest)
        defer { signed.remove() }
        let refused = try ReceiptReconBinary.run(["inspect", signed.receiptFile])
        #expect(refused.status == 65, "\(refused.output)")
        let printed = try Self.object(refused.stdout)
        #expect(printed["signature"] as? String == "failed")
        #expect(
            printed["reason"] as? String
                == "certificate chain rejected: does not chain to the configured root (Apple Root CA)")
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(refused.stderr.contains("signature is not valid: certificate chain rejected"), "\(refused.stderr)")

        for configured in [
            try ReceiptReconBinary.run(["inspect", signed.receiptFile, "--apple-root-certificate", signed.rootFile]),
            try ReceiptReconBinary.run(
                ["inspect", signed.receiptFile], environment: ["APPLE_ROOT_CERTIFICATES": signed.rootFile]),
        ] {
            #expect(configured.status == 0, "\(configured.output)")
            let verified = try Self.object(configured.stdout)
            #expect(verified["signature"] as? String == "verified")
            #expect(verified["digest"] as? String == digest.rawValue)
            #expect(verified["checked_at"] as? String == "2026-09-21T14:13:20Z")
            let chain = try #require(verified["chain"] as? [[String: Any]])
            #expect(
                chain.map { $0["subject"] as? String }
                    == [signed.chain.receiptLeaf, signed.chain.intermediate, signed.chain.root].map(\.subject))
            #expect(chain[0]["issuer"] as? String == signed.chain.intermediate.subject)
        }
    }

    @Test func alteredContentFailsWithItsReason() throws {
        let signed = try Signed()
        defer { signed.remove() }
        var bytes = [UInt8](
            try #require(Data(base64Encoded: try String(contentsOfFile: signed.receiptFile, encoding: .utf8))))
        let product = Array("monthly".utf8)
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: product) })
        bytes[at] = UInt8(ascii: "M")
        let file = signed.directory.appendingPathComponent("altered.b64")
        try Data(Data(bytes).base64EncodedString().utf8).write(to: file)
        let result = try ReceiptReconBinary.run(["inspect", file.path, "--apple-root-certificate", signed.rootFile])
        #expect(result.status == 65)
        let printed = try Self.object(result.stdout)
        #expect(printed["reason"] as? String == "the signature does not match the receipt content")
        #expect(((printed["in_app"] as? [[String: Any]])?.first?["product_id"] as? String) == "Monthly")
        #expect(!result.stderr.contains(Data(bytes).base64EncodedString().prefix(24)))
    }

    @Test func anUnsignedReceiptFails() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recon-unsigned-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("unsigned.b64")
        try Data(LocalReceiptEncoder.base64(Self.receipt).utf8).write(to: file)
        let result = try ReceiptReconBinary.run(["inspect", file.path])
        #expect(result.status == 65)
        #expect(try Self.object(result.stdout)["reason"] as? String == "the receipt is not signed (no SignerInfo)")
    }
}
