import CLibCrypto

/// The `signatureAlgorithm` of a receipt's SignerInfo: RSA PKCS #1 v1.5 (Apple's receipts say
/// `rsaEncryption`) or ECDSA (the simulator's and the tests' minted P-256 chains), each bound to the
/// key type of the signer's certificate and, where it names one, to the receipt's digest.
enum ReceiptSignatureAlgorithm: Sendable, Hashable {
    case rsa(ReceiptDigest?)
    case ecdsa(ReceiptDigest)

    /// The algorithm whose `AlgorithmIdentifier` is exactly `bytes` (DER, parameters as each
    /// algorithm's specification writes them), if known.
    static func identified(by bytes: ArraySlice<UInt8>) -> ReceiptSignatureAlgorithm? {
        known.first { $0.encodings.contains { $0.elementsEqual(bytes) } }?.algorithm
    }

    /// The identifier the signer writes for an ECDSA signature over `digest`.
    static func ecdsaIdentifier(_ digest: ReceiptDigest) -> [UInt8] {
        known.first { $0.algorithm == .ecdsa(digest) }!.encodings[0]
    }

    /// Whether this algorithm can sign with a digest of `digest`.
    func allows(_ digest: ReceiptDigest) -> Bool {
        switch self {
        case .rsa(let named): named == nil || named == digest
        case .ecdsa(let named): named == digest
        }
    }

    /// OpenSSL's key type (`EVP_PKEY_get_base_id`) the signer's certificate must hold.
    var keyType: Int32 {
        switch self {
        case .rsa: EVP_PKEY_RSA
        case .ecdsa: EVP_PKEY_EC
        }
    }

    private static let rsaPrefix: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01]
    private static let ecdsaPrefix: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04]

    /// RSA identifiers carry NULL parameters (RFC 3370 §3.2; some writers omit them); ECDSA ones
    /// carry none (RFC 5758 §3.2).
    private static let known: [(algorithm: ReceiptSignatureAlgorithm, encodings: [[UInt8]])] = [
        (.rsa(nil), rsa(0x01)),
        (.rsa(.sha1), rsa(0x05)),
        (.rsa(.sha256), rsa(0x0B)),
        (.ecdsa(.sha1), [identifier(ecdsaPrefix + [0x01])]),
        (.ecdsa(.sha256), [identifier(ecdsaPrefix + [0x03, 0x02])]),
    ]

    private static func rsa(_ last: UInt8) -> [[UInt8]] {
        let oid = rsaPrefix + [last]
        return [identifier(oid, null: true), identifier(oid)]
    }

    private static func identifier(_ oid: [UInt8], null: Bool = false) -> [UInt8] {
        let element = [0x06, UInt8(oid.count)] + oid + (null ? [0x05, 0x00] : [])
        return [0x30, UInt8(element.count)] + element
    }
}
