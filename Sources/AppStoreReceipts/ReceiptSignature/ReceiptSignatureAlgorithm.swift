import CLibCrypto

/// The `signatureAlgorithm` of a receipt's SignerInfo: RSA PKCS #1 v1.5, the only algorithm Apple
/// signs app receipts with (its receipts say `rsaEncryption`; `sha1WithRSAEncryption` and
/// `sha256WithRSAEncryption` are PKCS#7's other names for it), bound to the RSA key of the signer's
/// certificate and, where it names one, to the receipt's digest. The simulator's and the tests'
/// minted chains sign with an RSA leaf too (`ReceiptSigner`), so nothing else is accepted.
enum ReceiptSignatureAlgorithm: Sendable, Hashable {
    case rsa(ReceiptDigest?)

    /// The algorithm whose `AlgorithmIdentifier` is exactly `bytes` (DER, parameters as PKCS #1
    /// writes them), if known.
    static func identified(by bytes: ArraySlice<UInt8>) -> ReceiptSignatureAlgorithm? {
        known.first { $0.encodings.contains { $0.elementsEqual(bytes) } }?.algorithm
    }

    /// The identifier Apple's receipts carry, and the signer writes: `rsaEncryption` with NULL parameters.
    static let rsaEncryption: [UInt8] = known[0].encodings[0]

    /// Whether this algorithm can sign with a digest of `digest`.
    func allows(_ digest: ReceiptDigest) -> Bool {
        switch self {
        case .rsa(let named): named == nil || named == digest
        }
    }

    /// OpenSSL's key type (`EVP_PKEY_get_base_id`) the signer's certificate must hold.
    var keyType: Int32 {
        switch self {
        case .rsa: EVP_PKEY_RSA
        }
    }

    private static let rsaPrefix: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01]

    /// RSA identifiers carry NULL parameters (RFC 3370 §3.2; some writers omit them).
    private static let known: [(algorithm: ReceiptSignatureAlgorithm, encodings: [[UInt8]])] = [
        (.rsa(nil), rsa(0x01)),
        (.rsa(.sha1), rsa(0x05)),
        (.rsa(.sha256), rsa(0x0B)),
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
