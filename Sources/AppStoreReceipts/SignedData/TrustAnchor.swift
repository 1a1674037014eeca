/// A root certificate signed data may chain to, and whether OpenSSL's `X509_STRICT` applies under it.
///
/// `X509_STRICT` is on under Apple Root CA - G3, whose real chains pass it. A root given in its
/// place (`APPLE_ROOT_CERTIFICATES`: staging and tests only) is checked without it, as Apple's own
/// libraries do under their test CA, whose certificates lack what strict mode demands (a subject key
/// identifier); the chain, OID, validity and signature rules are the same.
package struct TrustAnchor: Sendable {
    package let certificate: X509Certificate
    package let isStrict: Bool

    package init(_ certificate: X509Certificate) {
        self.init(certificate, strict: certificate.sha256 == Self.appleRootCAG3SHA256)
    }

    /// An anchor with strictness chosen by the caller: tests check minted chains under `X509_STRICT`.
    package init(_ certificate: X509Certificate, strict: Bool) {
        self.certificate = certificate
        isStrict = strict
    }

    /// Apple Root CA - G3 (P-384, 2014-04-30 to 2039-04-30), from apple.com/certificateauthority.
    package static let appleRootCAG3 = builtIn(appleRootCAG3Base64, name: "Apple Root CA - G3", strict: true)

    /// A root built into the binary as base64 DER. The certificate is a constant of the source: failing
    /// to read it is a build defect.
    static func builtIn(_ base64: String, name: String, strict: Bool) -> TrustAnchor {
        guard let certificate = try? X509Certificate(der: LocalReceiptBase64.decode(base64.utf8)) else {
            fatalError("the built-in \(name) does not decode")
        }
        return TrustAnchor(certificate, strict: strict)
    }

    /// SHA-256 of Apple Root CA - G3's DER encoding, as Apple publishes it.
    package static let appleRootCAG3SHA256: [UInt8] = [
        0x63, 0x34, 0x3A, 0xBF, 0xB8, 0x9A, 0x6A, 0x03, 0xEB, 0xB5, 0x7E, 0x9B, 0x3F, 0x5F, 0xA7, 0xBE,
        0x7C, 0x4F, 0x5C, 0x75, 0x6F, 0x30, 0x17, 0xB3, 0xA8, 0xC4, 0x88, 0xC3, 0x65, 0x3E, 0x91, 0x79,
    ]

    private static let appleRootCAG3Base64 = """
        MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwSQXBwbGUgUm9vdCBDQSAtIEczMSYwJAYD
        VQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9uIEF1dGhvcml0eTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcN
        MTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2WjBnMRswGQYDVQQDDBJBcHBsZSBSb290IENBIC0gRzMxJjAkBgNVBAsMHUFw
        cGxlIENlcnRpZmljYXRpb24gQXV0aG9yaXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqGSM49
        AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtfTjjTuxxEtX/1H7YyYl3J6YRbTzBPEVoA
        /VhYDKX1DyxNB0cTddqXl5dvMVztK517IDvYuVTZXpmkOlEKMaNCMEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySr
        MA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMDA2gAMGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZL
        uN+yRhHFD/3meoyhpmvOwgPUnPWTxnS4at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkLF1vLUagM
        6BgD56KyKA==
        """
}
