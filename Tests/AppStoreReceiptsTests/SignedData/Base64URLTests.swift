import Foundation
import Testing

@testable import AppStoreReceipts

/// The one base64url codec: the strict reading of JWS segments, the lenient reading of tokens read back
/// from clients (which must accept exactly what Foundation accepted there before), and the encoder.
@Suite struct Base64URLTests {
    /// How the simulator and the test server read tokens before: standard alphabet, padded to a
    /// multiple of four, Foundation's decoder.
    static func foundationOracle(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }

    static let lenientCases = [
        "", "QQ", "QR", "QQ=", "QQ==", "QQ===", "Q", "Q=", "Q==", "Q===", "QUI", "QUJ", "QUI=", "QUJD", "QUJD=",
        "QUJDRA", "QUJDRA==", "QUJDRA=", "QU JD", "QU=JD", "QUJDR", "-_-_", "+/+/", "-/+_", "a\u{E9}bc", "====",
        "cnJzbTEuMTIuYWJj", "eyJhbGciOiJFUzI1NiJ9", "eyJhbGciOiJFUzI1NiJ9=",
    ]

    @Test("decodeLenient accepts and rejects what Foundation's padded decoding did", arguments: lenientCases)
    func lenientMatchesFoundation(_ text: String) {
        #expect(Base64URL.decodeLenient(text) == Self.foundationOracle(text))
    }

    @Test("decodeLenient reads every encoding of every length back")
    func lenientRoundTrips() {
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ length) }
            let encoded = Base64URL.encode(bytes)
            #expect(Base64URL.decodeLenient(encoded) == bytes)
            #expect(Self.foundationOracle(encoded) == bytes)
        }
    }

    @Test("the strict decoder refuses padding, the standard alphabet and non-canonical bits")
    func strictRefusesSlack() {
        for text in ["QQ==", "+/+/", "QR", "QQ="] {
            #expect(Base64URL.decode(Array(text.utf8)[...]) == nil, "\(text)")
        }
        #expect(Base64URL.decode(Array("QQ".utf8)[...]) == [0x41])
    }

    @Test("encode writes what Foundation's base64 writes, in the URL alphabet without padding")
    func encodeMatchesFoundation() {
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: 251 &- $0 &* 13) }
            let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == foundation)
        }
    }
}
