import Foundation

/// The verdict on one app receipt's PKCS#7 signature (`ReceiptSignatureVerifier`), with what it was
/// checked against: what `inspect` shows and what the Server API backend judges a receipt by.
public struct ReceiptSignatureCheck: Sendable, Hashable {
    public enum Result: Sendable, Hashable {
        /// Signed over this exact content by a certificate chaining to a configured root, valid at
        /// `checkedAt`.
        case verified
        /// The first rule broken, one line, never a byte of the receipt.
        case failed(String)
        /// An iOS 6 transaction receipt: a plist, not PKCS#7, so there is no such signature to check.
        case notApplicable
    }

    public var result: Result
    /// The instant the certificates were checked at: the receipt's creation date (attribute 12), or
    /// the instant the caller asked for; nil when the receipt was not read that far.
    public var checkedAt: Date?
    /// `sha1` or `sha256`: the digest the signer used; nil when the receipt was not read that far.
    public var digest: String?
    /// Leaf, intermediate and configured root when the chain verified; else the certificates the
    /// receipt carries that decode (signer first).
    public var chain: [CertificateSummary]

    public init(
        result: Result, checkedAt: Date? = nil, digest: String? = nil, chain: [CertificateSummary] = []
    ) {
        self.result = result
        self.checkedAt = checkedAt
        self.digest = digest
        self.chain = chain
    }

    public var isVerified: Bool { result == .verified }

    /// Why the signature failed; nil when it verified or does not apply.
    public var failure: String? {
        if case .failed(let reason) = result { return reason }
        return nil
    }

    /// `verified`, `failed` or `not_applicable`, as `inspect` prints it.
    public var verdict: String {
        switch result {
        case .verified: "verified"
        case .failed: "failed"
        case .notApplicable: "not_applicable"
        }
    }
}
