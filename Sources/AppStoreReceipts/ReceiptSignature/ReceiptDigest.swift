import CLibCrypto
import Foundation

/// The digest an app receipt's signature is computed over: SHA-1 (receipts of the WWDR G1 years)
/// or SHA-256 (since 2016 or so; every receipt signed under the G5 intermediate).
///
/// The algorithm identifiers are compared as exact DER, so that an altered byte in one is a failed
/// receipt rather than a different reading of it.
package enum ReceiptDigest: String, Sendable, Hashable, CaseIterable {
    case sha1
    case sha256

    /// The `AlgorithmIdentifier` Apple writes (parameters NULL), which the signer writes too.
    var algorithmIdentifier: [UInt8] {
        switch self {
        case .sha1: [0x30, 0x09, 0x06, 0x05, 0x2B, 0x0E, 0x03, 0x02, 0x1A, 0x05, 0x00]
        case .sha256:
            [0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00]
        }
    }

    /// The encodings accepted: with NULL parameters, or without (RFC 5754 §2 allows both).
    var acceptedIdentifiers: [[UInt8]] {
        let withNull = algorithmIdentifier
        var withoutNull = Array(withNull.dropLast(2))
        withoutNull[1] -= 2
        return [withNull, withoutNull]
    }

    /// The digest whose `AlgorithmIdentifier` is exactly `bytes`, if one of the two.
    static func identified(by bytes: ArraySlice<UInt8>) -> ReceiptDigest? {
        allCases.first { digest in digest.acceptedIdentifiers.contains { $0.elementsEqual(bytes) } }
    }

    var byteCount: Int { self == .sha1 ? 20 : 32 }

    /// The digest's implementation, fetched once for the process.
    var md: OpaquePointer? { self == .sha1 ? FetchedDigests.shared.sha1 : FetchedDigests.shared.sha256 }

    /// The digest of `message`; nil only when OpenSSL fails.
    func hash(_ message: some ContiguousBytes) -> [UInt8]? {
        guard let md else { return nil }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = message.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, md, nil) }
        guard ok == 1, Int(length) == byteCount else {
            OpenSSLError.clear()
            return nil
        }
        return Array(digest.prefix(byteCount))
    }
}

/// SHA-1 and SHA-256 fetched from the default provider once: a fetch by name on every receipt costs
/// more than hashing one.
private final class FetchedDigests: @unchecked Sendable {
    // Unchecked: an EVP_MD is immutable once fetched and OpenSSL lets threads share it.
    static let shared = FetchedDigests()
    let sha1: OpaquePointer?
    let sha256: OpaquePointer?
    private init() {
        sha1 = EVP_MD_fetch(nil, "SHA1", nil)
        sha256 = EVP_MD_fetch(nil, "SHA256", nil)
    }
}
