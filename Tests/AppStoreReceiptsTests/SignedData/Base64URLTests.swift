import Foundation
import Testing

@testable import AppStoreReceipts

/// The one base64url codec: the strict reading of JWS segments, the lenient reading of tokens read back
/// from clients (which must accept exactly what Foundation accepted there before), and the encoder.
@Suite struct Base64URLTests {
    /// What the lenient reading gives, as the simulator and the test server have always read tokens
    /// (padding optional and forgiven, both alphabets, non-canonical trailing bits ignored).
    static let lenientCases: [(String, [UInt8]?)] = [
        ("", []), ("QQ", [0x41]), ("QR", [0x41]), ("QQ=", [0x41]), ("QQ==", [0x41]), ("QQ===", [0x41]),
        ("Q", nil), ("Q===", nil), ("QUI", [0x41, 0x42]), ("QUJ", [0x41, 0x42]), ("QUJD", [0x41, 0x42, 0x43]),
        ("QUJD=", [0x41, 0x42, 0x43]), ("QUJDRA", [0x41, 0x42, 0x43, 0x44]), ("QU JD", nil), ("QUJDR", nil),
        ("-_-_", [0xFB, 0xFF, 0xBF]), ("+/+/", [0xFB, 0xFF, 0xBF]), ("a\u{E9}bc", nil),
        ("eyJhbGciOiJFUzI1NiJ9", Array(#"{"alg":"ES256"}"#.utf8)),
        ("eyJhbGciOiJFUzI1NiJ9=", Array(#"{"alg":"ES256"}"#.utf8)),
    ]

    @Test("decodeLenient reads tokens as they have always been read")
    func lenientReading() {
        for (text, bytes) in Self.lenientCases {
            #expect(Base64URL.decodeLenient(text) == bytes, "\(text)")
        }
    }

    @Test("decodeLenient reads every encoding of every length back")
    func lenientRoundTrips() {
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ length) }
            let encoded = Base64URL.encode(bytes)
            #expect(Base64URL.decodeLenient(encoded) == bytes)
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
