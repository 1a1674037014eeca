import Foundation

/// The one rule for certificate time, used by every fresh chain check and by every cache of checked
/// chains (JWS and receipt alike), so that a verdict never depends on what was verified before.
///
/// A certificate is valid from `notBefore` through `notAfter`, both included (RFC 5280 §4.1.2.5), at
/// the instant's own precision (a `signedDate` has milliseconds): as Apple's Swift library
/// (`RFC5280Policy`: expired only when the instant is after `notAfter`) and Java library (PKIX,
/// `Date.after`) decide. OpenSSL 3, which checks the chain, counts `notAfter` itself as expired and
/// takes whole seconds, so its own time check is switched off and this rule applies instead.
struct CertificateValidity: Equatable, Sendable {
    /// The latest `notBefore` and the earliest `notAfter` of the certificates: where all are valid.
    let from: Date
    let until: Date

    init(_ certificates: [X509Certificate]) {
        from = certificates.map(\.notBefore).max() ?? .distantFuture
        until = certificates.map(\.notAfter).min() ?? .distantPast
    }

    init(from: Date, until: Date) {
        self.from = from
        self.until = until
    }

    /// Why `instant` lies outside, or nil when every certificate is valid at it.
    enum Problem: Equatable, Sendable {
        case notYetValid
        case expired
    }

    func problem(at instant: Date) -> Problem? {
        if instant < from { return .notYetValid }
        if instant > until { return .expired }
        return nil
    }

    func covers(_ instant: Date) -> Bool { problem(at: instant) == nil }
}
