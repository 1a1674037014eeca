import CLibCrypto
import Foundation

/// One X.509 certificate, parsed by OpenSSL and freed with its wrapper.
///
/// Unchecked `Sendable`: the `X509` is never changed after parsing, and OpenSSL's reads of a
/// certificate (and of the public key it holds) are safe from several threads at once.
package final class X509Certificate: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The DER encoding, exactly as given.
    package let der: [UInt8]
    package let subject: String
    package let issuer: String
    package let notBefore: Date
    package let notAfter: Date

    /// Parses DER. Refuses trailing bytes, which `d2i_X509` would silently accept after a valid prefix.
    package init(der: [UInt8]) throws(SignedDataFailure) {
        OpenSSLError.clear()
        var consumed = 0
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count < Int(Int32.max) else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            let certificate = d2i_X509(nil, &cursor, buffer.count)
            consumed = cursor.map { base.distance(to: $0) } ?? 0
            return certificate
        }
        guard let parsed else {
            OpenSSLError.clear()
            throw .undecodableCertificate("not a DER certificate")
        }
        guard consumed == der.count else {
            X509_free(parsed)
            throw .undecodableCertificate("\(der.count - consumed) bytes after the certificate")
        }
        guard let before = Self.date(X509_get0_notBefore(parsed)), let after = Self.date(X509_get0_notAfter(parsed))
        else {
            X509_free(parsed)
            throw .undecodableCertificate("unreadable validity dates")
        }
        pointer = parsed
        self.der = der
        subject = Self.name(X509_get_subject_name(parsed))
        issuer = Self.name(X509_get_issuer_name(parsed))
        notBefore = before
        notAfter = after
    }

    /// A certificate file: DER, or PEM (the first certificate in it).
    package convenience init(file contents: [UInt8]) throws(SignedDataFailure) {
        // A PEM file is text with a BEGIN line; DER starts with a SEQUENCE tag (0x30).
        let isPEM = contents.first != 0x30
        guard isPEM else {
            try self.init(der: contents)
            return
        }
        guard let der = Self.pemToDER(contents) else { throw .undecodableCertificate("neither DER nor PEM") }
        try self.init(der: der)
    }

    deinit { X509_free(pointer) }

    /// Whether the certificate carries the extension `oid` (dotted decimal), whatever its value:
    /// Apple's marker extensions hold an ASN.1 NULL.
    package func hasExtension(_ oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else { return false }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(pointer, object, -1) >= 0
    }

    /// Whether `instant` lies within the certificate's validity (`CertificateValidity`: both ends included).
    package func isValid(at instant: Date) -> Bool { CertificateValidity([self]).covers(instant) }

    /// SHA-256 of the DER encoding.
    package var sha256: [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = der.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha256(), nil) }
        return ok == 1 ? Array(digest.prefix(Int(length))) : []
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    /// RFC 2253 form (`CN=…,O=…`), as `openssl x509 -nameopt RFC2253` prints it.
    private static func name(_ name: OpaquePointer?) -> String {
        guard let name, let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard X509_NAME_print_ex(bio, name, 0, recon_xn_flag_rfc2253) >= 0 else { return "" }
        var data: UnsafeMutablePointer<CChar>?
        let length = recon_bio_get_mem_data(bio, &data)
        guard let data, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    private static func pemToDER(_ contents: [UInt8]) -> [UInt8]? {
        OpenSSLError.clear()
        return contents.withUnsafeBytes { buffer -> [UInt8]? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // A certificate is never encrypted, but a PEM that claims so must not make OpenSSL prompt.
            guard let certificate = PEM_read_bio_X509(bio, nil, PKCS8PEM.refusePassphrase, nil) else {
                OpenSSLError.clear()
                return nil
            }
            defer { X509_free(certificate) }
            var out: UnsafeMutablePointer<UInt8>?
            let length = i2d_X509(certificate, &out)
            guard length > 0, let out else { return nil }
            defer { recon_openssl_free(out) }
            return Array(UnsafeBufferPointer(start: out, count: Int(length)))
        }
    }
}
