import ChildProcess
import Foundation
import TestSupport
import Testing

@testable import AppStoreReceipts

/// App receipts' PKCS#7 signatures (CONTRACT §9): Apple's real receipts verify to the built-in
/// Apple Inc. Root CA at their creation date and at no later instant, and every rule is broken one
/// at a time on receipts signed here with minted chains.
struct ReceiptSignatureVerifierTests {
    typealias Samples = ReceiptSignatureSamples

    // MARK: The built-in root

    /// The root built into the source is the corpus's file, whose SHA-256 its README states.
    @Test func builtInRootIsAppleIncRootCA() throws {
        let builtIn = TrustAnchor.appleIncRootCA.certificate
        #expect(builtIn.sha256 == TrustAnchor.appleIncRootCASHA256)
        #expect(builtIn.subject == "CN=Apple Root CA,OU=Apple Certification Authority,O=Apple Inc.,C=US")
        #expect(TrustAnchor.appleIncRootCA.isStrict)
        guard Conformance.isAvailable else { return }
        let file = try Conformance.file("receipts/apple-inc-root.cer")
        #expect(Array(file) == builtIn.der)
        let readme = String(decoding: try Conformance.file("README.md"), as: UTF8.self)
        let hex = builtIn.sha256.map { String(format: "%02x", $0) }.joined()
        #expect(readme.contains("SHA-256 of the file\n`\(hex)`") || readme.contains("`\(hex)`"))
    }

    // MARK: Apple's receipts

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func conformanceReceiptsVerifyAtTheirCreationDate() throws {
        let verifier = ReceiptSignatureVerifier()
        for (name, created) in Samples.appReceipts {
            let check = verifier.verify(der: try Samples.conformance(name), at: nil)
            #expect(check.result == .verified, "\(name): \(check.result)")
            #expect(check.checkedAt == Samples.date(created), "\(name)")
            #expect(check.digest == "sha256")
            #expect(check.chain.count == 3)
            #expect(check.chain[0].subject.hasSuffix("CN=Mac App Store and iTunes Store Receipt Signing"))
            #expect(check.chain[1].subject.contains("OU=G5"))
            #expect(check.chain[1].issuer == check.chain[2].subject)
            #expect(check.chain[2].subject.hasPrefix("CN=Apple Root CA"))
            // The same through base64, as stored.
            let text = String(decoding: try Conformance.file("receipts/\(name).b64"), as: UTF8.self)
            #expect(verifier.verify(base64: text) == check)
        }
    }

    /// Apple's receipt-signing leaves have expired since: checked now (or at any instant after the leaf's
    /// end), the same receipts fail. A verdict remembered from the creation date is not reused there.
    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func conformanceReceiptsFailAtALaterInstant() throws {
        let verifier = ReceiptSignatureVerifier()
        for (name, _) in Samples.appReceipts {
            let der = try Samples.conformance(name)
            #expect(verifier.verify(der: der, at: nil).isVerified)
            for later in [Date(), Samples.date("2030-01-01T00:00:00Z")] {
                let check = verifier.verify(der: der, at: later)
                #expect(check.failure?.contains("a certificate had expired at") == true, "\(name): \(check.result)")
                #expect(check.checkedAt == later)
                #expect(check.chain.count == 3, "the certificates presented are still shown")
            }
            // And before the leaf existed.
            let early = verifier.verify(der: der, at: Samples.date("2020-01-01T00:00:00Z"))
            #expect(early.failure?.contains("not yet valid") == true, "\(name): \(early.result)")
        }
    }

    /// A flipped byte in the content, the signature or any of the three certificates fails.
    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func conformanceReceiptFailsAfterAFlippedByte() throws {
        let verifier = ReceiptSignatureVerifier()
        let der = try Samples.conformance(Samples.appReceipts[0].name)
        let regions: [(String, [Int])] = [
            ("content", [1, 0, 2, 1, 0]), ("leaf", [1, 0, 3, 0]), ("intermediate", [1, 0, 3, 1]),
            ("root", [1, 0, 3, 2]), ("signature", [1, 0, 4, 0, 4]),
        ]
        for (region, path) in regions {
            let range = Samples.range(of: path, in: der)
            // The middle, and a byte a third of the way in, of each region.
            for offset in [range.lowerBound + range.count / 2, range.lowerBound + range.count / 3] {
                var altered = der
                altered[offset] ^= 0x01
                let check = verifier.verify(der: altered, at: nil)
                #expect(!check.isVerified, "\(region) byte \(offset) flipped: still verified")
            }
        }
        // A flip inside the creation date itself is reported as what it is: altered content.
        var altered = der
        let content = Samples.range(of: [1, 0, 2, 1, 0], in: der)
        let date = Array("2024-02-23T17:27:16Z".utf8)
        let at = try #require(
            (content.lowerBound..<content.upperBound - date.count).first {
                der[$0..<$0 + date.count].elementsEqual(date)
            })
        altered[at + 3] = UInt8(ascii: "5")  // 2025
        #expect(verifier.verify(der: altered, at: nil).failure == "the signature does not match the receipt content")
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func iOS6ReceiptIsNotApplicable() throws {
        let text = String(decoding: try Conformance.file("receipts/venice-ios6-receipt.b64"), as: UTF8.self)
        let check = ReceiptSignatureVerifier().verify(base64: text)
        #expect(check.result == .notApplicable)
        #expect(check.checkedAt == nil && check.digest == nil && check.chain.isEmpty)
    }

    /// Replacement roots replace: Apple's own receipt no longer verifies when another root is configured.
    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func configuredRootsReplaceAppleIncRootCA() throws {
        let check = Samples.verifier().verify(der: try Samples.conformance(Samples.appReceipts[0].name), at: nil)
        #expect(
            check.failure?.contains("does not chain to the configured root (receipt-recon simulator Root CA)") == true)
        // Both roots configured: Apple's receipt and the minted one verify.
        let both = ReceiptSignatureVerifier(roots: [TrustAnchor.appleIncRootCA.certificate, Samples.chain.root])
        #expect(both.verify(der: try Samples.conformance(Samples.appReceipts[0].name), at: nil).isVerified)
        #expect(both.verify(der: Samples.signed(), at: nil).isVerified)
    }

    // MARK: Minted chains

    @Test(arguments: ReceiptDigest.allCases)
    func mintedReceiptVerifiesWithEitherDigest(digest: ReceiptDigest) {
        let check = Samples.verifier().verify(der: Samples.signed(digest: digest), at: nil)
        #expect(check.result == .verified)
        #expect(check.digest == digest.rawValue)
        #expect(check.checkedAt == Samples.created)
        #expect(
            check.chain.map(\.subject)
                == [Samples.chain.receiptLeaf, Samples.chain.intermediate, Samples.chain.root].map(\.subject))
    }

    /// A receipt signed by a chain that does not end at the configured root fails against the
    /// built-in root, and verifies once that root is configured.
    @Test func foreignSignerFailsUntilItsRootIsConfigured() {
        let der = Samples.signed(by: Samples.otherChain)
        let builtIn = ReceiptSignatureVerifier().verify(der: der, at: nil)
        #expect(builtIn.failure == "certificate chain rejected: does not chain to the configured root (Apple Root CA)")
        #expect(builtIn.chain.count == 3, "the certificates presented are shown")
        #expect(!Samples.verifier().verify(der: der, at: nil).isVerified)
        #expect(Samples.verifier(trusting: Samples.otherChain).verify(der: der, at: nil).isVerified)
    }

    /// Every single-byte change of a signed receipt fails: content, signature, certificates and the
    /// envelope around them.
    @Test(arguments: ReceiptDigest.allCases)
    func everyFlippedByteFails(digest: ReceiptDigest) {
        let verifier = Samples.verifier()
        let der = Samples.signed(digest: digest)
        #expect(verifier.verify(der: der, at: nil).isVerified)
        var survivors: [Int] = []
        for offset in der.indices {
            var altered = der
            altered[offset] ^= 0x01
            if verifier.verify(der: altered, at: nil).isVerified { survivors.append(offset) }
        }
        #expect(survivors.isEmpty, "flips at \(survivors) still verify")
    }

    @Test func checkedAtTheCreationDateNotToday() {
        // The leaf expired long before today, as Apple's do; the receipt was made while it was valid.
        let created = Date(timeIntervalSince1970: 1_500_000_000)  // 2017
        let old = try! SigningChain.mint(
            notBefore: created - Samples.year, notAfter: created + Samples.year)
        let der = Samples.signed(Samples.receipt(created: created), by: old)
        let verifier = Samples.verifier(trusting: old)
        #expect(verifier.verify(der: der, at: nil).isVerified)
        #expect(verifier.verify(der: der, at: Date()).failure?.contains("expired") == true)
        // A receipt claiming a creation date outside its leaf's validity fails.
        let late = Samples.signed(Samples.receipt(created: created + 2 * Samples.year), by: old)
        #expect(verifier.verify(der: late, at: nil).failure?.contains("expired") == true)
    }

    @Test func unsignedAndMalformedReceiptsFail() {
        let verifier = Samples.verifier()
        let unsigned = LocalReceiptEncoder.appReceipt(Samples.receipt())
        #expect(verifier.verify(der: unsigned, at: nil).failure == "the receipt is not signed (no SignerInfo)")
        #expect(verifier.verify(der: [], at: nil).failure != nil)
        #expect(verifier.verify(der: [0x30, 0x03, 0x02, 0x01, 0x01], at: nil).failure == "not PKCS#7 SignedData")
        #expect(verifier.verify(base64: "not base64!").failure?.hasPrefix("not a receipt") == true)
        var noDate = Samples.receipt()
        noDate.creationDate = nil
        #expect(
            verifier.verify(der: Samples.signed(noDate), at: nil).failure
                == "the receipt has no creation date (attribute 12) to check its certificates at")
        // A date given by the caller is used instead.
        #expect(verifier.verify(der: Samples.signed(noDate), at: Samples.created).isVerified)
        // Random bytes behind a SEQUENCE tag: a reason, never a crash.
        var random = SplitMix64(seed: 25)
        for _ in 0..<200 {
            let bytes = [0x30] + random.bytes(Int.random(in: 0...300, using: &random))
            #expect(verifier.verify(der: bytes, at: nil).failure != nil)
        }
    }

    @Test func transactionReceiptIsNotApplicable() {
        var receipt = Samples.receipt()
        receipt.format = .transactionReceipt
        let check = Samples.verifier().verify(base64: LocalReceiptEncoder.base64(receipt))
        #expect(check.result == .notApplicable)
    }

    /// A certificate the receipt carries beyond its chain must be a configured root.
    @Test func extraCertificatesMustBeConfiguredRoots() throws {
        let chain = Samples.chain
        let der = Samples.signed()
        #expect(
            Self.replacingCertificates(der, with: [chain.receiptLeaf.der, chain.intermediate.der, chain.root.der])
                == der)
        // The embedded root replaced by another chain's: the chain still verifies, the extra does not.
        let altered = Self.replacingCertificates(
            der, with: [chain.receiptLeaf.der, chain.intermediate.der, Samples.otherChain.root.der])
        #expect(
            Samples.verifier().verify(
                der: Self.replacingCertificates(der, with: [chain.receiptLeaf.der, chain.intermediate.der]), at: nil
            ).isVerified)
        #expect(
            Samples.verifier().verify(der: altered, at: nil).failure
                == "the receipt carries a certificate that is neither its signer's chain nor a configured root")
    }

    /// Apple's layout: the RSA-2048 receipt leaf (not the chain's P-256 JWS leaf) signs PKCS #1 v1.5,
    /// named `rsaEncryption`, so a minted receipt costs what a real one does to verify.
    @Test func mintedReceiptsAreSignedLikeApplesWithTheRSALeaf() throws {
        let der = Samples.signed()
        let signed = try ReceiptSignedData(der[...])
        #expect(signed.signatureAlgorithm == .rsa(nil))
        #expect(signed.signature.count == 256)
        #expect(signed.signer.der.elementsEqual(Samples.chain.receiptLeaf.der))
        #expect(signed.intermediate.der.elementsEqual(Samples.chain.intermediate.der))
        #expect(try ReceiptSignedData(Samples.signed(digest: .sha1)[...]).signature.count == 256)
    }

    /// Deterministic signatures: the simulator rebuilds a receipt and compares bytes.
    @Test func signaturesAreDeterministic() throws {
        let first = Samples.signed()
        #expect(Samples.signed() == first)
        #expect(try ReceiptSigner(chain: Samples.chain).appReceipt(Samples.receipt()) == first)
        #expect(Samples.signed(Samples.receipt(transactionID: "2000000123456780")) != first)
    }

    /// `isContainer` (the simulator's check of a receipt sent back) says what comparing with a new
    /// signature would, without signing: exactly the signer's bytes, not one byte changed.
    @Test func isContainerRecognisesExactlyTheSignersBytes() throws {
        let signer = try ReceiptSigner(chain: Samples.chain)
        let payload = LocalReceiptEncoder.payload(Samples.receipt())
        let bytes = signer.container(payload: payload)
        #expect(signer.isContainer(bytes, of: payload))
        for index in [0, bytes.count / 2, bytes.count - 300, bytes.count - 1] {
            var altered = bytes
            altered[index] ^= 0x01
            #expect(!signer.isContainer(altered, of: payload), "byte \(index)")
        }
        #expect(!signer.isContainer(Array(bytes.dropLast()), of: payload))
        #expect(!signer.isContainer(bytes, of: LocalReceiptEncoder.payload(Samples.receipt(transactionID: "1"))))
        #expect(
            !signer.isContainer(try ReceiptSigner(chain: Samples.otherChain).container(payload: payload), of: payload))
    }

    /// OpenSSL's own command line agrees with both sides: it verifies what the signer makes, and what
    /// it signs itself with the RSA receipt leaf (with signed attributes, which Apple does not use)
    /// verifies here; what it signs with the P-256 JWS leaf does not, as Apple never signs a receipt
    /// with ECDSA.
    @Test func opensslAgreesWithSignerAndVerifier() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recon-pkcs7-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Samples.chain.write(to: directory)
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        for name in [
            SigningChain.rootFile, SigningChain.intermediateFile, SigningChain.leafFile, SigningChain.receiptLeafFile,
        ] {
            _ = try ChildProcess.run(
                "/usr/bin/openssl", ["x509", "-inform", "der", "-in", path(name), "-out", path(name + ".pem")])
        }
        let receipt = path("receipt.der")
        try Data(Samples.signed()).write(to: URL(fileURLWithPath: receipt))
        let at = String(Int(Samples.created.timeIntervalSince1970))
        let verified = try ChildProcess.run(
            "/usr/bin/openssl",
            [
                "cms", "-verify", "-inform", "DER", "-in", receipt, "-binary", "-out", path("content"),
                "-CAfile", path(SigningChain.rootFile + ".pem"), "-attime", at, "-purpose", "any",
            ])
        #expect(verified.status == 0, "\(verified.stderr)")

        let payload = LocalReceiptEncoder.payload(Samples.receipt())
        try Data(payload).write(to: URL(fileURLWithPath: path("payload")))
        _ = try ChildProcess.run(
            "/bin/sh",
            [
                "-c",
                "cat '\(path(SigningChain.intermediateFile)).pem' '\(path(SigningChain.rootFile)).pem' > '\(path("extra.pem"))'",
            ])
        let leaves = [
            (SigningChain.receiptLeafFile, SigningChain.receiptLeafKeyFile, true),
            (SigningChain.leafFile, SigningChain.leafKeyFile, false),
        ]
        for (leaf, key, verifies) in leaves {
            for attributes in [[], ["-noattr"]] {
                let signed = try ChildProcess.run(
                    "/usr/bin/openssl",
                    [
                        "cms", "-sign", "-binary", "-nodetach", "-in", path("payload"), "-signer",
                        path(leaf + ".pem"), "-inkey", path(key), "-certfile", path("extra.pem"), "-md", "sha256",
                        "-outform", "DER", "-out", path("openssl.der"),
                    ] + attributes)
                #expect(signed.status == 0, "\(signed.stderr)")
                let der = Array(try Data(contentsOf: URL(fileURLWithPath: path("openssl.der"))))
                let check = Samples.verifier().verify(der: der, at: nil)
                if verifies {
                    #expect(check.isVerified, "openssl cms -sign \(leaf) \(attributes): \(check.result)")
                } else {
                    #expect(
                        check.failure == "the signature algorithm is not RSA over the receipt's digest",
                        "openssl cms -sign \(leaf) \(attributes): \(check.result)")
                }
            }
        }
    }

    /// `der` with its certificates replaced by `certificates`, everything else as it was.
    static func replacingCertificates(_ der: [UInt8], with certificates: [[UInt8]]) -> [UInt8] {
        let document = try! BERDocument(parsing: der[...])
        func element(_ index: Int) -> [UInt8] { Array(der[document[index].headerStart..<document[index].contentEnd]) }
        let root = BERDocument.root
        let signedData = document.child(0, of: document.child(1, of: root)!)!
        var parts = document.childIndices(of: signedData).map(element)
        parts[3] = BERWriter.element(.contextSpecific(0), children: certificates)
        return BERWriter.element(
            .sequence,
            children: [
                element(document.child(0, of: root)!),
                BERWriter.element(.contextSpecific(0), children: [BERWriter.element(.sequence, children: parts)]),
            ])
    }
}
