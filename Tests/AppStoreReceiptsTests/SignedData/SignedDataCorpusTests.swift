import Foundation
import TestSupport
import Testing

@testable import AppStoreReceipts

/// Every entry of conformance/server-api/EXPECTED.json reaches its verdict: Apple's library
/// fixtures, Xcode's locally signed data and the generated files that each break one rule.
@Suite(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
struct SignedDataCorpusTests {
    /// EXPECTED.json's `signed` and `chains` entries, or nil (with `Conformance`'s notice) without the corpus.
    static func expected(_ section: String) throws -> [String: [String: Any]]? {
        guard Conformance.isAvailable else { return nil }
        let json = try JSONSerialization.jsonObject(with: Conformance.file("server-api/EXPECTED.json"))
        let sections = try #require(json as? [String: Any])
        return try #require(sections[section] as? [String: [String: Any]])
    }

    static func anchor(_ relativePath: String) throws -> TrustAnchor {
        TrustAnchor(try X509Certificate(file: Array(try Conformance.file("server-api/" + relativePath))))
    }

    /// The failure the EXPECTED reason describes, as a predicate on the verifier's failure.
    static func matches(_ failure: SignedDataFailure, reason: String) -> Bool {
        switch failure {
        case .missingCertificateChain: reason.contains("no x5c")
        case .chainLength(let count): reason.contains("x5c holds \(count) certificate")
        case .unsupportedAlgorithm(let alg): reason.contains("alg is \(alg)")
        case .missingAppleExtension(let certificate, let oid):
            reason.hasPrefix("\(certificate) lacks OID \(oid)")
        case .badSignature: reason.contains("signature")
        case .untrustedRoot: reason.contains("does not chain")
        case .untrustedChain(let detail):
            (reason.contains("expired") && detail.contains("expired"))
                || (reason.contains("not yet valid") && detail.contains("not yet valid"))
                || (reason.contains("does not chain") && detail.contains("does not chain"))
        default: false
        }
    }

    @Test func everySignedEntryReachesItsVerdict() throws {
        guard let entries = try Self.expected("signed") else { return }
        #expect(entries.count >= 19, "the corpus lists 19 signed files")
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            let file = String(name.split(separator: " ").first ?? "")
            let root = try #require(entry["root"] as? String)
            let anchor = try Self.anchor(root)
            #expect(anchor.isStrict == (entry["strict"] as? Bool), "\(name): strictness")
            let verifier = SignedDataVerifier(anchors: [anchor])
            let verification = verifier.verify(Array(try Conformance.file("server-api/" + file)))
            if entry["verdict"] as? String == "valid" {
                #expect(verification.failure == nil, "\(name): \(verification.failure.map { "\($0)" } ?? "")")
                #expect(verification.chain.count == 3, "\(name)")
            } else {
                let reason = try #require(entry["reason"] as? String)
                let failure = try #require(verification.failure, "\(name) verified but must fail: \(reason)")
                #expect(Self.matches(failure, reason: reason), "\(name): got '\(failure)', expected '\(reason)'")
            }
            if entry["at"] as? String == "signedDate", let signedDate = verification.payload?.signedDate {
                #expect(verification.checkedAt == signedDate, "\(name): checked at signedDate")
            }
        }
    }

    @Test func everyChainEntryReachesItsVerdict() throws {
        guard let entries = try Self.expected("chains") else { return }
        for (name, entry) in entries {
            let anchor = try Self.anchor(try #require(entry["root"] as? String))
            let verifier = CertificateChainVerifier(anchors: [anchor])
            let x5c = try ["leaf", "intermediate", "root"].map { role in
                let path = role == "root" ? entry["root"] as? String : entry[role] as? String
                return try Conformance.file("server-api/" + (try #require(path))).base64EncodedString()
            }
            let at = Date(timeIntervalSince1970: try #require(entry["at"] as? Double))
            let result = Result { () throws(SignedDataFailure) in try verifier.verify(x5c, at: at) }
            switch (result, entry["verdict"] as? String) {
            case (.success(let chain), "valid"):
                let keyPEM = try Conformance.file("server-api/" + (try #require(entry["leaf_key"] as? String)))
                #expect(String(decoding: keyPEM, as: UTF8.self).contains("PUBLIC KEY"))
                #expect(chain.certificates[0].subject.contains("O=Leaf"))
            case (.failure(let failure), "invalid"):
                let reason = try #require(entry["reason"] as? String)
                #expect(Self.matches(failure, reason: reason), "\(name): got '\(failure)', expected '\(reason)'")
            default:
                Issue.record("\(name): \(result) but expected \(entry["verdict"] ?? "?")")
            }
        }
    }

    /// The built-in anchor is the corpus's Apple Root CA - G3, byte for byte, and strict.
    @Test func builtInRootIsApplesG3() throws {
        guard Conformance.isAvailable else { return }
        let corpusRoot = Array(try Conformance.file("server-api/certs/AppleRootCA-G3.der"))
        #expect(TrustAnchor.appleRootCAG3.certificate.der == corpusRoot)
        #expect(TrustAnchor.appleRootCAG3.isStrict)
        #expect(TrustAnchor.appleRootCAG3.certificate.subject.contains("CN=Apple Root CA - G3"))
    }
}
