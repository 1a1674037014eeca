import Foundation
import Testing

@testable import AppStoreReceipts

/// Findings of the signed data fuzzer (Fuzz/run-signed-data-fuzz.sh), kept as regressions: values
/// inside the data that used to trap the verifier or break a failure's one-line description.
struct SignedDataHostileValueTests {
    typealias Verifier = SignedDataVerifierTests

    static func payload(_ json: String) -> [UInt8] { Array(json.utf8) }

    /// A `signedDate` beyond what `time_t` holds (1e300 ms) used to trap converting it for OpenSSL;
    /// any instant outside years 1 to 9999 is now refused as outside every certificate's validity.
    @Test func signedDatesOutsideX509YearsAreRefusedNotTrapped() {
        let cases: [(String, String)] = [
            ("1e300", "expired"), ("-1e300", "not yet valid"), ("253402300800000", "expired"),
            ("-62135596801000", "not yet valid"),
        ]
        for (signedDate, reason) in cases {
            let jws = Verifier.chain.sign(
                payload: Self.payload("{\"transactionId\":\"1\",\"signedDate\":\(signedDate)}"))
            let verification = Verifier.verify(jws)
            guard case .untrustedChain(let text) = verification.failure else {
                Issue.record("signedDate \(signedDate): \(String(describing: verification.failure))")
                continue
            }
            #expect(text.contains(reason))
            #expect(verification.chain.count == 3)
        }
    }

    /// The edges of the range are checked by OpenSSL as before.
    @Test func signedDatesAtTheX509EdgesReachOpenSSL() {
        let jws = Verifier.chain.sign(payload: Self.payload("{\"transactionId\":\"1\",\"signedDate\":253402300799000}"))
        #expect(Verifier.verify(jws).failure == .untrustedChain("a certificate had expired at 9999-12-31T23:59:59Z"))
    }

    /// An `alg` is read before anything is verified: named on one line, in at most 12 characters.
    @Test func unsupportedAlgorithmIsNamedShortAndOnOneLine() {
        let x5c = Verifier.x5c([Verifier.chain.leaf, Verifier.chain.intermediate, Verifier.chain.root])
        let jws = Verifier.chain.sign(payload: Verifier.payload())
        for (alg, shown) in [
            ("ES384", "ES384"), ("ES256\\nforged line", "ES256?forged…"), ("A123456789B123456789", "A123456789B1…"),
        ] {
            let header = Verifier.header("{\"alg\":\"\(alg)\",\"x5c\":[\(x5c)]}")
            let failure = Verifier.verify(Verifier.replacing(segment: 0, of: jws, with: header)).failure
            #expect(failure?.description == "header alg is \(shown), not ES256")
        }
    }

    /// A signed bundle id or environment is named, but on one line and bounded.
    @Test func signedValuesAreNamedOnOneLineAndBounded() throws {
        let verifier = Verifier.verifier(bundleIDs: ["com.example"], environment: .production)
        let longID = "com.example." + String(repeating: "x", count: 100)
        let cases: [(String, String, String)] = [
            ("com.other\\r\\nstatus: ok", "Production", "bundle id com.other?status: ok is not accepted"),
            (longID, "Production", "bundle id \(longID.prefix(64))… is not accepted"),
            ("com.example", "Sandbox\\u2028x", "signed for Sandbox?x; this database serves production"),
        ]
        for (bundleID, environment, expected) in cases {
            let jws = Verifier.chain.sign(
                payload: Self.payload(
                    "{\"transactionId\":\"1\",\"bundleId\":\"\(bundleID)\",\"environment\":\"\(environment)\","
                        + "\"signedDate\":\(Int64(Verifier.now.timeIntervalSince1970 * 1000))}"))
            let description = try #require(Verifier.verify(jws, with: verifier).failure).description
            #expect(description.hasPrefix(expected))
            #expect(!description.contains { $0.isNewline })
            #expect(description.count <= 200)
        }
    }
}
