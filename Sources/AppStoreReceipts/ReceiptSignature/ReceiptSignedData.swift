import Foundation

/// The parts of a PKCS#7 app receipt (RFC 2315 §9.1, RFC 5652 §5) that its signature check reads,
/// located in one BER parse of the whole container, certificates included.
///
/// Strict where Apple's receipts are regular, so that an altered byte anywhere in the envelope fails
/// rather than being read some other way: SignedData and SignerInfo version 1, exactly one signer
/// identified by issuer and serial number, the content `data`, algorithm identifiers compared as
/// exact DER, nothing after the last field. Only what it must tolerate is tolerated: the
/// indefinite-length BER of Xcode's receipts around the content.
struct ReceiptSignedData {
    /// The signed content: the receipt attribute SET's DER, as the digest covers it.
    let content: ArraySlice<UInt8>
    let digest: ReceiptDigest
    let signatureAlgorithm: ReceiptSignatureAlgorithm
    let signature: ArraySlice<UInt8>
    /// The DER of the `[0] IMPLICIT` signed attributes, when the signer used some (Apple does not).
    let signedAttributes: SignedAttributes?
    /// Every certificate the container carries, in stored order.
    let certificates: [EmbeddedCertificate]
    /// The certificate whose issuer and serial number the SignerInfo names.
    let signer: EmbeddedCertificate
    /// The certificate whose subject is the signer's issuer (Apple's WWDR intermediate).
    let intermediate: EmbeddedCertificate

    /// One certificate as DER, with the fields that tie it to the signer and its issuer.
    struct EmbeddedCertificate {
        let der: ArraySlice<UInt8>
        /// The `serialNumber` INTEGER element, tag and length included.
        let serial: ArraySlice<UInt8>
        /// The issuer and subject `Name` elements, compared as exact DER.
        let issuer: ArraySlice<UInt8>
        let subject: ArraySlice<UInt8>

        init(der: ArraySlice<UInt8>, serial: ArraySlice<UInt8>, issuer: ArraySlice<UInt8>, subject: ArraySlice<UInt8>) {
            self.der = der
            self.serial = serial
            self.issuer = issuer
            self.subject = subject
        }

        /// The fields of one certificate's DER (the signer's, to name it in a SignerInfo).
        init?(der: [UInt8]) {
            guard let document = try? BERDocument(parsing: der[...]),
                let certificate = Layout(document).certificate(BERDocument.root)
            else { return nil }
            self = certificate
        }
    }

    /// Signed attributes: the DER to sign (the `[0]` tag read as SET OF, RFC 5652 §5.4) and the
    /// message digest attribute's value.
    struct SignedAttributes {
        let signedBytes: [UInt8]
        let messageDigest: ArraySlice<UInt8>
    }

    /// 1.2.840.113549.1.9.4 and 1.2.840.113549.1.9.3, content octets.
    private static let messageDigestOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x04]
    private static let contentTypeOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x03]

    init(_ bytes: ArraySlice<UInt8>) throws(ReceiptSignatureFailure) {
        let document: BERDocument
        do {
            document = try BERDocument(parsing: bytes)
        } catch {
            throw ReceiptSignatureFailure("not a PKCS#7 container: \(error)")
        }
        try self.init(document)
    }

    /// The container `document`, already parsed (`DecodedReceiptData`).
    init(_ document: BERDocument) throws(ReceiptSignatureFailure) {
        let layout = Layout(document)
        let root = BERDocument.root
        // ContentInfo ::= SEQUENCE { contentType signedData, content [0] EXPLICIT SignedData }
        guard document[root].tag == .sequence, let outer = layout.children(root, count: 2),
            layout.isOID(outer[0], LocalReceiptDecoder.signedDataOID), document[outer[1]].tag == .contextSpecific(0),
            let explicit = layout.children(outer[1], count: 1), document[explicit[0]].tag == .sequence
        else { throw ReceiptSignatureFailure("not PKCS#7 SignedData") }

        // SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo,
        //                           [0] IMPLICIT certificates OPTIONAL, [1] IMPLICIT crls OPTIONAL, signerInfos SET }
        var fields = Array(document.childIndices(of: explicit[0]))
        guard fields.count >= 4, layout.isSmallInteger(fields[0], 1), document[fields[1]].tag == .set,
            document[fields[2]].tag == .sequence, let signerInfos = fields.popLast(), document[signerInfos].tag == .set
        else {
            throw ReceiptSignatureFailure("SignedData is not version 1 with digest algorithms, content and signers")
        }
        var optional = fields.dropFirst(3)
        var certificateSet: Int?
        if let next = optional.first, document[next].tag == .contextSpecific(0) {
            certificateSet = next
            optional = optional.dropFirst()
        }
        if let next = optional.first, document[next].tag == .contextSpecific(1) { optional = optional.dropFirst() }
        guard optional.isEmpty else { throw ReceiptSignatureFailure("SignedData has fields PKCS#7 does not define") }

        // EncapsulatedContentInfo ::= SEQUENCE { data, [0] EXPLICIT OCTET STRING }: never detached.
        guard let encapsulated = layout.children(fields[2], count: 2),
            layout.isOID(encapsulated[0], LocalReceiptDecoder.dataOID),
            document[encapsulated[1]].tag == .contextSpecific(0),
            let wrapped = layout.children(encapsulated[1], count: 1),
            let content = document.octetString(at: wrapped[0])
        else { throw ReceiptSignatureFailure("the signed content is not PKCS#7 data") }
        self.content = content

        var certificates: [EmbeddedCertificate] = []
        if let certificateSet {
            for index in document.childIndices(of: certificateSet) {
                guard let certificate = layout.certificate(index) else {
                    throw ReceiptSignatureFailure("a certificate in the receipt is not an X.509 certificate")
                }
                certificates.append(certificate)
            }
        }
        self.certificates = certificates

        let signers = Array(document.childIndices(of: signerInfos))
        guard !signers.isEmpty else { throw ReceiptSignatureFailure("the receipt is not signed (no SignerInfo)") }
        guard signers.count == 1 else {
            throw ReceiptSignatureFailure("\(signers.count) signers, where Apple's receipts have one")
        }
        // SignerInfo ::= SEQUENCE { version 1, issuerAndSerialNumber, digestAlgorithm,
        //   [0] IMPLICIT signedAttrs OPTIONAL, signatureAlgorithm, signature OCTET STRING, [1] unsignedAttrs OPTIONAL }
        var info = Array(document.childIndices(of: signers[0]))
        guard document[signers[0]].tag == .sequence, info.count >= 5, layout.isSmallInteger(info[0], 1),
            document[info[1]].tag == .sequence, let sid = layout.children(info[1], count: 2),
            document[sid[0]].tag == .sequence,
            document[sid[1]].tag == .integer, let sidIssuer = layout.element(sid[0]),
            let sidSerial = layout.element(sid[1])
        else {
            throw ReceiptSignatureFailure("the SignerInfo is not version 1 naming its certificate's issuer and serial")
        }
        if let last = info.last, document[last].tag == .contextSpecific(1) { info.removeLast() }
        guard let digestIdentifier = layout.element(info[2]),
            let digest = ReceiptDigest.identified(by: digestIdentifier)
        else { throw ReceiptSignatureFailure("the digest algorithm is neither SHA-1 nor SHA-256") }
        self.digest = digest
        var signedAttributes: SignedAttributes?
        if info.count == 6 {
            guard document[info[3]].tag == .contextSpecific(0), let attributes = Self.signedAttributes(info[3], layout)
            else { throw ReceiptSignatureFailure("the SignerInfo's signed attributes are malformed") }
            signedAttributes = attributes
        }
        guard info.count == (signedAttributes == nil ? 5 : 6) else {
            throw ReceiptSignatureFailure("the SignerInfo has fields PKCS#7 does not define")
        }
        self.signedAttributes = signedAttributes
        let algorithmIndex = info[info.count - 2]
        guard let algorithmIdentifier = layout.element(algorithmIndex),
            let algorithm = ReceiptSignatureAlgorithm.identified(by: algorithmIdentifier), algorithm.allows(digest)
        else { throw ReceiptSignatureFailure("the signature algorithm is not RSA over the receipt's digest") }
        signatureAlgorithm = algorithm
        let signatureIndex = info[info.count - 1]
        guard document[signatureIndex].tag == .universal(BERTag.octetStringNumber) else {
            throw ReceiptSignatureFailure("the signature is not an OCTET STRING")
        }
        signature = document.content(of: signatureIndex)

        // Every digest algorithm listed is one of the two, and the signer's is among them.
        var listed: [ReceiptDigest] = []
        for index in document.childIndices(of: fields[1]) {
            guard let bytes = layout.element(index), let listedDigest = ReceiptDigest.identified(by: bytes) else {
                throw ReceiptSignatureFailure("the digest algorithm is neither SHA-1 nor SHA-256")
            }
            listed.append(listedDigest)
        }
        guard listed.contains(digest) else {
            throw ReceiptSignatureFailure("the signer's digest algorithm is not among the SignedData's")
        }

        guard
            let signer = certificates.first(where: {
                sameBytes($0.issuer, sidIssuer) && sameBytes($0.serial, sidSerial)
            })
        else { throw ReceiptSignatureFailure("the signer's certificate is not in the receipt") }
        guard
            let intermediate = certificates.first(where: {
                sameBytes($0.subject, signer.issuer) && $0.der.startIndex != signer.der.startIndex
            })
        else { throw ReceiptSignatureFailure("the certificate that issued the signer's is not in the receipt") }
        self.signer = signer
        self.intermediate = intermediate
    }

    /// `[0] IMPLICIT SET OF Attribute` with exactly one message digest and a content type of `data`.
    private static func signedAttributes(_ index: Int, _ layout: Layout) -> SignedAttributes? {
        let document = layout.document
        guard let element = layout.element(index) else { return nil }
        var messageDigest: ArraySlice<UInt8>?
        var contentTypeIsData = false
        for attribute in document.childIndices(of: index) {
            // Attribute ::= SEQUENCE { attrType OID, attrValues SET OF value }, one value here.
            guard let parts = layout.children(attribute, count: 2), document[parts[0]].tag == .objectIdentifier,
                document[parts[1]].tag == .set
            else { return nil }
            let type = document.content(of: parts[0])
            if type.elementsEqual(messageDigestOID) {
                guard messageDigest == nil, let values = layout.children(parts[1], count: 1),
                    document[values[0]].tag == .universal(BERTag.octetStringNumber)
                else { return nil }
                messageDigest = document.content(of: values[0])
            } else if type.elementsEqual(contentTypeOID) {
                guard let values = layout.children(parts[1], count: 1),
                    layout.isOID(values[0], LocalReceiptDecoder.dataOID)
                else { return nil }
                contentTypeIsData = true
            }
        }
        guard let messageDigest, contentTypeIsData else { return nil }
        var signedBytes = Array(element)
        signedBytes[0] = 0x31  // the SET OF tag, as RFC 5652 §5.4 has the signature computed over
        return SignedAttributes(signedBytes: signedBytes, messageDigest: messageDigest)
    }

    /// Reading helpers over one parsed document.
    private struct Layout {
        let document: BERDocument

        init(_ document: BERDocument) { self.document = document }

        /// The children of `index` when it has exactly `count`.
        func children(_ index: Int, count: Int) -> [Int]? {
            let children = Array(document.childIndices(of: index))
            return children.count == count ? children : nil
        }

        func isOID(_ index: Int, _ content: [UInt8]) -> Bool {
            document[index].tag == .objectIdentifier && document.content(of: index).elementsEqual(content)
        }

        func isSmallInteger(_ index: Int, _ value: UInt8) -> Bool {
            document[index].tag == .integer && document.content(of: index).elementsEqual([value])
        }

        /// The whole element at `index` (header and content) when it has a definite length: what is
        /// compared as DER or handed to OpenSSL.
        func element(_ index: Int) -> ArraySlice<UInt8>? {
            let node = document[index]
            guard
                let header = try? BERHeader.read(
                    document.bytes, at: node.headerStart, bound: document.bytes.endIndex),
                header.length != nil
            else { return nil }
            return document.bytes[node.headerStart..<node.contentEnd]
        }

        /// Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL, serialNumber,
        /// signature, issuer, validity, subject, … }, signatureAlgorithm, signatureValue }.
        func certificate(_ index: Int) -> EmbeddedCertificate? {
            guard document[index].tag == .sequence, let der = element(index),
                let tbs = document.child(0, of: index), document[tbs].tag == .sequence
            else { return nil }
            var fields = Array(document.childIndices(of: tbs))
            if let first = fields.first, document[first].tag == .contextSpecific(0) { fields.removeFirst() }
            guard fields.count >= 5, document[fields[0]].tag == .integer, document[fields[2]].tag == .sequence,
                document[fields[4]].tag == .sequence, let serial = element(fields[0]), let issuer = element(fields[2]),
                let subject = element(fields[4])
            else { return nil }
            return EmbeddedCertificate(der: der, serial: serial, issuer: issuer, subject: subject)
        }
    }
}

/// Whether two byte runs are equal, by `memcmp`: certificates are compared whole, a kilobyte and more,
/// for every receipt.
func sameBytes(_ left: ArraySlice<UInt8>, _ right: ArraySlice<UInt8>) -> Bool {
    guard left.count == right.count else { return false }
    guard !left.isEmpty else { return true }
    return left.withUnsafeBytes { left in
        right.withUnsafeBytes { right in memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0 }
    }
}
