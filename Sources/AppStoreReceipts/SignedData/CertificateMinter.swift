import CLibCrypto
import Foundation

/// Makes X.509 certificates for throwaway signing chains (the simulator's, the tests'): version 3,
/// P-256 keys (and the RSA-2048 key of the receipt-signing leaf) signed with ECDSA-SHA256, and the extensions OpenSSL's `X509_STRICT` asks of a chain
/// (critical basic constraints and key usage, subject and authority key identifiers), so a minted
/// chain passes the same checks as Apple's real one.
package enum CertificateMinter {
    /// What to put in one certificate.
    package struct Profile {
        package var commonName: String
        package var isAuthority: Bool
        package var notBefore: Date
        package var notAfter: Date
        /// Apple's marker extension to carry (value ASN.1 NULL), if any.
        package var markerOID: String?
        package var serial: Int

        package init(
            commonName: String, isAuthority: Bool, notBefore: Date, notAfter: Date, markerOID: String? = nil,
            serial: Int = 1
        ) {
            self.commonName = commonName
            self.isAuthority = isAuthority
            self.notBefore = notBefore
            self.notAfter = notAfter
            self.markerOID = markerOID
            self.serial = serial
        }
    }

    package enum MintingError: Error, CustomStringConvertible {
        case openSSL(String)
        package var description: String {
            switch self {
            case .openSSL(let detail): "cannot mint a certificate: \(detail)"
            }
        }
    }

    /// A certificate for `key`'s public half, signed by `issuer` (certificate and key), or self-signed
    /// when `issuer` is nil.
    package static func certificate(
        _ profile: Profile, key: ES256Key, issuer: (certificate: X509Certificate, key: ES256Key)?
    ) throws(MintingError) -> X509Certificate {
        try certificate(profile, publicKey: key.pointer, issuer: issuer.map { ($0.certificate, $0.key.pointer) })
    }

    /// A certificate for an RSA key (a receipt-signing leaf, as Apple's is RSA), signed by `issuer`.
    package static func certificate(
        _ profile: Profile, key: RSASigningKey, issuer: (certificate: X509Certificate, key: ES256Key)
    ) throws(MintingError) -> X509Certificate {
        try certificate(profile, publicKey: key.pointer, issuer: (issuer.certificate, issuer.key.pointer))
    }

    private static func certificate(
        _ profile: Profile, publicKey key: OpaquePointer, issuer: (certificate: X509Certificate, key: OpaquePointer)?
    ) throws(MintingError) -> X509Certificate {
        OpenSSLError.clear()
        guard let certificate = X509_new() else { throw .openSSL("X509_new") }
        defer { X509_free(certificate) }
        let issuerPointer = issuer?.certificate.pointer ?? certificate
        let signingKey = issuer?.key ?? key
        guard X509_set_version(certificate, 2) == 1,
            ASN1_INTEGER_set(X509_get_serialNumber(certificate), profile.serial) == 1,
            ASN1_TIME_set(X509_getm_notBefore(certificate), time_t(profile.notBefore.timeIntervalSince1970)) != nil,
            ASN1_TIME_set(X509_getm_notAfter(certificate), time_t(profile.notAfter.timeIntervalSince1970)) != nil,
            X509_set_pubkey(certificate, key) == 1
        else { throw .openSSL(OpenSSLError.take("certificate fields").description) }

        guard let name = X509_NAME_new() else { throw .openSSL("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, profile.commonName, -1, -1, 0)
        X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, "receipt-recon throwaway PKI", -1, -1, 0)
        X509_set_subject_name(certificate, name)
        X509_set_issuer_name(certificate, X509_get_subject_name(issuerPointer))

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuerPointer, certificate, nil, nil, 0)
        let extensions = [
            (NID_basic_constraints, profile.isAuthority ? "critical,CA:TRUE" : "critical,CA:FALSE"),
            (NID_key_usage, profile.isAuthority ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature"),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ]
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw .openSSL(OpenSSLError.take("extension \(value)").description)
            }
            defer { X509_EXTENSION_free(ext) }
            X509_add_ext(certificate, ext, -1)
        }
        if let oid = profile.markerOID { try addMarker(oid, to: certificate) }

        guard X509_sign(certificate, signingKey, EVP_sha256()) > 0 else {
            throw .openSSL(OpenSSLError.take("X509_sign").description)
        }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(certificate, &out)
        guard length > 0, let out else { throw .openSSL("i2d_X509") }
        defer { recon_openssl_free(out) }
        do {
            return try X509Certificate(der: Array(UnsafeBufferPointer(start: out, count: Int(length))))
        } catch {
            throw .openSSL("the minted certificate does not parse: \(error)")
        }
    }

    /// Apple's marker extensions hold an ASN.1 NULL (`05 00`).
    private static func addMarker(_ oid: String, to certificate: OpaquePointer) throws(MintingError) {
        guard let object = OBJ_txt2obj(oid, 1), let value = ASN1_OCTET_STRING_new() else { throw .openSSL(oid) }
        defer {
            ASN1_OBJECT_free(object)
            ASN1_OCTET_STRING_free(value)
        }
        let null: [UInt8] = [0x05, 0x00]
        ASN1_OCTET_STRING_set(value, null, 2)
        guard let ext = X509_EXTENSION_create_by_OBJ(nil, object, 0, value) else { throw .openSSL(oid) }
        defer { X509_EXTENSION_free(ext) }
        X509_add_ext(certificate, ext, -1)
    }
}
