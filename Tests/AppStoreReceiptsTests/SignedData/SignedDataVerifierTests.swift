import ChildProcess
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import AppStoreReceipts

/// The verifier's rules on chains minted here: root → intermediate → leaf with Apple's OIDs, so
/// every rule can be broken one at a time, with no fixture files.
struct SignedDataVerifierTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21
    static let year: TimeInterval = 365 * 86_400
    static let chain = try! SigningChain.mint(notBefore: now - year, notAfter: now + year)

    static func payload(signedDate: Date? = now, environment: String = "Production", bundleID: String = "com.example")
        -> [UInt8]
    {
        var fields = [
            "\"transactionId\":\"2000000001\"", "\"originalTransactionId\":\"2000000000\"",
            "\"bundleId\":\"\(bundleID)\"", "\"productId\":\"com.example.premium\"",
            "\"environment\":\"\(environment)\"", "\"expiresDate\":1800000000000",
        ]
        if let signedDate { fields.append("\"signedDate\":\(Int64(signedDate.timeIntervalSince1970 * 1000))") }
        return Array(("{" + fields.joined(separator: ",") + "}").utf8)
    }

    static func verifier(
        _ chain: SigningChain = chain, strict: Bool = true, bundleIDs: Set<String> = [],
        environment: AppStoreEnvironment? = nil
    ) -> SignedDataVerifier {
        SignedDataVerifier(
            anchors: [TrustAnchor(chain.root, strict: strict)], acceptedBundleIDs: bundleIDs, environment: environment)
    }

    static func verify(_ jws: String, with verifier: SignedDataVerifier = verifier()) -> SignedDataVerification {
        verifier.verify(Array(jws.utf8), now: now)
    }

    /// Replaces one dot-separated segment of `jws`.
    static func replacing(segment index: Int, of jws: String, with text: String) -> String {
        var parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[index] = text
        return parts.joined(separator: ".")
    }

    static func header(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }

    /// A JWS with `header` (base64url) and `payload`, properly signed by `key`.
    static func signed(header: String, payload: [UInt8] = payload(), key: ES256Key) -> String {
        let input = header + "." + Base64URL.encode(payload)
        return input + "." + Base64URL.encode(key.sign(Array(input.utf8)) ?? [])
    }

    static func x5c(_ certificates: [X509Certificate]) -> String {
        certificates.map { "\"" + Data($0.der).base64EncodedString() + "\"" }.joined(separator: ",")
    }

    @Test func mintedChainVerifiesUnderStrictChecks() {
        let verification = Self.verify(Self.chain.sign(payload: Self.payload()))
        #expect(verification.failure == nil)
        #expect(verification.chain.map(\.subject).allSatisfy { $0.contains("receipt-recon simulator") })
        #expect(verification.checkedAt == Self.now)
        #expect(verification.payload?.format == .transaction)
    }

    /// OpenSSL's own command line agrees: the minted chain passes `openssl verify -x509_strict`.
    @Test func opensslCommandLineAcceptsTheMintedChainStrictly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recon-pki-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.chain.write(to: directory)
        func pem(_ name: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            _ = try ChildProcess.run(
                "/usr/bin/openssl", ["x509", "-inform", "der", "-in", path, "-out", path + ".pem"])
            return path + ".pem"
        }
        let result = try ChildProcess.run(
            "/usr/bin/openssl",
            [
                "verify", "-x509_strict", "-attime", String(Int(Self.now.timeIntervalSince1970)), "-CAfile",
                try pem(SigningChain.rootFile), "-untrusted", try pem(SigningChain.intermediateFile),
                try pem(SigningChain.leafFile),
            ])
        #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        // A root given as PEM reads as the same certificate as its DER.
        let pemRoot = try X509Certificate(
            file: Array(try Data(contentsOf: URL(fileURLWithPath: try pem(SigningChain.rootFile)))))
        #expect(pemRoot.der == Self.chain.root.der)
        #expect(throws: SignedDataFailure.self) { try X509Certificate(file: Array("not a certificate".utf8)) }
        let reread = try SigningChain.read(from: directory)
        #expect(Self.verify(reread.sign(payload: Self.payload())).failure == nil)
        let mode =
            try FileManager.default.attributesOfItem(
                atPath: directory.appendingPathComponent(SigningChain.leafKeyFile).path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// About one ES256 signature in 128 has an R or S shorter than 32 bytes: every one must round-trip.
    @Test func shortRAndSArePadded() {
        let verifier = Self.verifier()
        let failures = (0..<400).filter { index in
            let jws = Self.chain.sign(
                payload: Array("{\"transactionId\":\"\(index)\",\"signedDate\":1790000000000}".utf8))
            return !verifier.verify(Array(jws.utf8), now: Self.now).isValid
        }
        #expect(failures.isEmpty)
    }

    @Test func tamperedPayloadFailsTheSignature() {
        let jws = Self.chain.sign(payload: Self.payload())
        let forged = Self.replacing(segment: 1, of: jws, with: Base64URL.encode(Self.payload(bundleID: "com.example2")))
        guard case .badSignature = Self.verify(forged).failure else {
            Issue.record("a changed payload verified")
            return
        }
    }

    @Test func derSignatureIsRefused() throws {
        let jws = Self.chain.sign(payload: Self.payload())
        let signingInput = jws.split(separator: ".").prefix(2).joined(separator: ".")
        // The same signature, DER-encoded as OpenSSL makes it.
        let raw = try #require(Base64URL.decode(Array(jws.split(separator: ".")[2].utf8)[...]))
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            let trimmed = Array(bytes.drop { $0 == 0 })
            return [0x02, UInt8(trimmed.count + (trimmed.first! >= 0x80 ? 1 : 0))]
                + (trimmed.first! >= 0x80 ? [0] : []) + trimmed
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        let der = [0x30, UInt8(body.count)] + body
        let verification = Self.verify(signingInput + "." + Base64URL.encode(der))
        guard case .badSignature(let reason) = verification.failure else {
            Issue.record("a DER signature was accepted: \(String(describing: verification.failure))")
            return
        }
        #expect(reason.contains("\(der.count) bytes"))
    }

    @Test func onlyES256IsAccepted() {
        let jws = Self.chain.sign(payload: Self.payload())
        for alg in ["ES384", "none", "HS256", "RS256"] {
            let header = Self.header(
                "{\"alg\":\"\(alg)\",\"x5c\":[\(Self.x5c([Self.chain.leaf, Self.chain.intermediate, Self.chain.root]))]}"
            )
            #expect(
                Self.verify(Self.replacing(segment: 0, of: jws, with: header)).failure == .unsupportedAlgorithm(alg))
        }
    }

    @Test func x5cMustHoldExactlyThreeCertificates() {
        let jws = Self.chain.sign(payload: Self.payload())
        let certificates = [Self.chain.leaf, Self.chain.intermediate, Self.chain.root, Self.chain.root]
        for count in [0, 1, 2, 4] {
            let header = Self.header(
                "{\"alg\":\"ES256\",\"x5c\":[\(Self.x5c(Array(certificates.prefix(count))))]}")
            #expect(Self.verify(Self.replacing(segment: 0, of: jws, with: header)).failure == .chainLength(count))
        }
        let missing = Self.replacing(segment: 0, of: jws, with: Self.header("{\"alg\":\"ES256\"}"))
        #expect(Self.verify(missing).failure == .missingCertificateChain)
    }

    /// x5c[2] is never trusted: the chain goes to the configured root whatever sits there, and a
    /// JWS that names the configured root in x5c[2] but was signed under another root fails.
    @Test func x5cRootIsNeverTrusted() throws {
        let other = try SigningChain.mint(
            name: "other", notBefore: Self.now - Self.year, notAfter: Self.now + Self.year)
        let foreignRoot = Self.header(
            "{\"alg\":\"ES256\",\"x5c\":[\(Self.x5c([Self.chain.leaf, Self.chain.intermediate, other.root]))]}")
        #expect(Self.verify(Self.signed(header: foreignRoot, key: Self.chain.leafKey)).failure == nil)

        let claimingOurRoot = Self.header(
            "{\"alg\":\"ES256\",\"x5c\":[\(Self.x5c([other.leaf, other.intermediate, Self.chain.root]))]}")
        // Another signer's chain, whole and correctly signed, fails at its root only: never believed,
        // but told from altered data.
        let anotherSigner = Self.verify(Self.signed(header: claimingOurRoot, key: other.leafKey)).failure
        guard case .untrustedRoot = anotherSigner else {
            Issue.record("a chain to another root: \(String(describing: anotherSigner))")
            return
        }
        // The same chain over a signature its leaf did not make is altered data.
        let altered = Self.verify(Self.signed(header: claimingOurRoot, key: Self.chain.leafKey)).failure
        guard case .badSignature = altered else {
            Issue.record("another chain with a foreign signature: \(String(describing: altered))")
            return
        }
    }

    @Test func appleOIDsAreRequired() throws {
        let noLeafOID = try SigningChain.mint(
            notBefore: Self.now - Self.year, notAfter: Self.now + Self.year, leafOID: "1.2.840.113635.100.6.11.2")
        #expect(
            Self.verify(noLeafOID.sign(payload: Self.payload()), with: Self.verifier(noLeafOID)).failure
                == .missingAppleExtension(certificate: "leaf", oid: TrustChainVerifier.leafOID))
        let noIntermediateOID = try SigningChain.mint(
            notBefore: Self.now - Self.year, notAfter: Self.now + Self.year, intermediateOID: nil)
        #expect(
            Self.verify(noIntermediateOID.sign(payload: Self.payload()), with: Self.verifier(noIntermediateOID)).failure
                == .missingAppleExtension(certificate: "intermediate", oid: TrustChainVerifier.intermediateOID))
    }

    /// Certificates are checked at the payload's signedDate: data signed by a leaf that has expired
    /// since still verifies; data signed after the leaf expired does not; and a chain verified once
    /// is not reused for an instant outside its validity.
    @Test func certificatesAreCheckedAtSignedDate() throws {
        let rotated = try SigningChain.mint(
            notBefore: Self.now - 3 * Self.year, notAfter: Self.now + Self.year,
            leafValidity: (Self.now - 2 * Self.year)...(Self.now - Self.year))
        let verifier = Self.verifier(rotated)
        let signedWhileValid = rotated.sign(payload: Self.payload(signedDate: Self.now - 1.5 * Self.year))
        let signedAfterExpiry = rotated.sign(payload: Self.payload(signedDate: Self.now - 0.5 * Self.year))
        let signedBeforeValid = rotated.sign(payload: Self.payload(signedDate: Self.now - 2.5 * Self.year))
        #expect(Self.verify(signedWhileValid, with: verifier).failure == nil)
        guard case .untrustedChain(let expired) = Self.verify(signedAfterExpiry, with: verifier).failure else {
            Issue.record("data signed after the leaf expired verified")
            return
        }
        #expect(expired.contains("expired"))
        guard case .untrustedChain(let early) = Self.verify(signedBeforeValid, with: verifier).failure else {
            Issue.record("data signed before the leaf was valid verified")
            return
        }
        #expect(early.contains("not yet valid"))
        // Without a signedDate: the current time, where this leaf has expired.
        let undated = rotated.sign(payload: Self.payload(signedDate: nil))
        let verification = Self.verify(undated, with: verifier)
        #expect(verification.checkedAt == Self.now)
        #expect(verification.failure != nil)
    }

    @Test func applicationChecksFollowTheSignature() {
        let verifier = Self.verifier(bundleIDs: ["com.example"], environment: .production)
        #expect(Self.verify(Self.chain.sign(payload: Self.payload()), with: verifier).failure == nil)
        let otherBundle = Self.verify(Self.chain.sign(payload: Self.payload(bundleID: "com.other")), with: verifier)
        #expect(otherBundle.failure == .bundleNotAccepted(bundleID: "com.other", accepted: ["com.example"]))
        #expect(otherBundle.failure?.isSignatureValid == true)
        let sandbox = Self.verify(Self.chain.sign(payload: Self.payload(environment: "Sandbox")), with: verifier)
        #expect(sandbox.failure == .wrongEnvironment(signed: "Sandbox", served: "production"))
        #expect(sandbox.failure?.isSignatureValid == true)
        for local in ["Xcode", "LocalTesting"] {
            let xcode = Self.verify(Self.chain.sign(payload: Self.payload(environment: local)))
            #expect(xcode.failure == .testEnvironment(local))
            #expect(xcode.failure?.isSignatureValid == false)
        }
    }

    @Test func hostileTextIsNotJWS() {
        let cases = [
            "", "   ", "a.b", "a.b.c.d", "eyJ.eyJ.", "!!!.eyJ9.AAAA", "eyJhbGciOiJFUzI1NiJ9.e30=.AAAA",
            Self.header("[1]") + ".e30.AAAA", Self.header("{\"alg\":7}") + ".e30.AAAA",
            String(repeating: "A", count: 300_000) + ".e30.AAAA",
        ]
        for text in cases {
            guard case .notJWS(let reason) = Self.verify(text).failure else {
                Issue.record("'\(text.prefix(40))' was not refused as not a JWS")
                continue
            }
            #expect(!reason.contains("\n") && reason.count < 80)
        }
    }

    @Test func recognisesJWSBesideReceipts() {
        #expect(SignedDataVerifier.looksLikeJWS(Array(Self.chain.sign(payload: Self.payload()).utf8)))
        #expect(
            SignedDataVerifier.looksLikeJWS(Array("  \n".utf8) + Array(Self.chain.sign(payload: Self.payload()).utf8)))
        #expect(
            !SignedDataVerifier.looksLikeJWS(Array("MIITtgYJKoZIhvcNAQcCoIITpzCCE6MCAQExCzAJBgUrDgMCGgUAMIIDVwYJ".utf8))
        )
        #expect(!SignedDataVerifier.looksLikeJWS(Array("ewoJInNpZ25hdHVyZSIgPSAiQXBNVUJD".utf8)))
        #expect(!SignedDataVerifier.looksLikeJWS([]))
    }

    /// A notification's nested signed data is verified in place, and a forged one fails the whole.
    @Test func notificationNestedDataIsVerified() {
        let transaction = Self.chain.sign(payload: Self.payload())
        func notification(nested: String) -> String {
            Self.chain.sign(
                payload: Array(
                    """
                    {"notificationType":"DID_RENEW","signedDate":1790000000000,"data":{"environment":"Production",\
                    "bundleId":"com.example","appAppleId":1234,"signedTransactionInfo":"\(nested)"}}
                    """.utf8))
        }
        let verification = Self.verify(notification(nested: transaction))
        #expect(verification.failure == nil)
        #expect(verification.payload?.format == .notification)
        #expect(verification.nested.map(\.field) == ["signedTransactionInfo"])
        #expect(verification.nested.first?.verification.payload?.format == .transaction)

        let forged = Self.replacing(segment: 1, of: transaction, with: Base64URL.encode(Self.payload(bundleID: "x")))
        let failed = Self.verify(notification(nested: forged))
        guard case .nested(let field, let inner) = failed.failure, case .badSignature = inner.failure else {
            Issue.record("a notification with forged nested data verified: \(String(describing: failed.failure))")
            return
        }
        #expect(field == "signedTransactionInfo")
        #expect(failed.failure?.description.hasPrefix("signedTransactionInfo: signature rejected") == true)
    }

    /// The run verifies from every worker thread at once through one verifier: one chain cache, one
    /// trust store, one leaf key. Every verdict must still be right, forged ones included.
    @Test func concurrentVerificationsShareOneVerifier() {
        let verifier = Self.verifier()
        let valid = (0..<8).map { Self.chain.sign(payload: Self.payload(bundleID: "com.example.\($0)")) }
        let forged = valid.map { Self.replacing(segment: 1, of: $0, with: Base64URL.encode(Self.payload())) }
        let wrong = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<150 {
                let isForged = round % 3 == 0
                let jws = isForged ? forged[worker] : valid[worker]
                if verifier.verify(Array(jws.utf8), now: Self.now).isValid == isForged {
                    wrong.withLock { $0 += 1 }
                }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
    }

    /// R‖S to DER by hand: minimal INTEGERs, a zero byte before a set high bit, leading zeros dropped.
    @Test func rawSignaturesBecomeMinimalDER() {
        let high = [UInt8](repeating: 0x80, count: 32)
        let short = [0, 0] + [UInt8](repeating: 0x11, count: 30)
        #expect(
            ES256Key.derSignature(rs: high + short)
                == [0x30, 0x43, 0x02, 0x21, 0x00] + high + [0x02, 0x1E] + [UInt8](repeating: 0x11, count: 30))
        #expect(
            ES256Key.derSignature(rs: [UInt8](repeating: 0, count: 64)) == [
                0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00,
            ])
        #expect(ES256Key.derSignature(rs: [UInt8](repeating: 1, count: 63)) == nil)
    }
}
