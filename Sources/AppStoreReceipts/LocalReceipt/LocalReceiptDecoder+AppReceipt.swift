import Foundation

/// The PKCS#7 app receipt: ContentInfo → SignedData → encapContentInfo → payload SET.
extension LocalReceiptDecoder {
    /// 1.2.840.113549.1.7.2, content bytes of the OBJECT IDENTIFIER.
    static let signedDataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    /// 1.2.840.113549.1.7.1.
    static let dataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]

    static func decodeAppReceipt(_ bytes: ArraySlice<UInt8>, purchases: Bool = true) throws(ReceiptDecodingError)
        -> LocalReceipt
    {
        try decodeAppReceipt(try BERDocument(parsing: bytes), byteCount: bytes.count, purchases: purchases)
    }

    /// The app receipt whose container, `byteCount` bytes, parsed as `container`.
    static func decodeAppReceipt(_ container: BERDocument, byteCount: Int, purchases: Bool = true)
        throws(ReceiptDecodingError) -> LocalReceipt
    {
        let payload = try payload(of: container)
        var receipt = try decodePayload(payload, purchases: purchases)
        receipt.containerByteCount = byteCount
        return receipt
    }

    /// The receipt that `payload` (the signed content of a container: the attribute SET) describes,
    /// without its in-app purchases: what a signature check needs (the creation date).
    static func decodeSummary(payload: ArraySlice<UInt8>) throws(ReceiptDecodingError) -> LocalReceipt {
        try decodePayload(payload, purchases: false)
    }

    /// The encapsulated content of the SignedData: the DER of the receipt attribute SET.
    private static func payload(of container: BERDocument) throws(ReceiptDecodingError) -> ArraySlice<UInt8> {
        // Child by child (`child(_:of:)`), not an array of each level's children: those were five
        // allocations for every receipt the job checks.
        // ContentInfo ::= SEQUENCE { contentType OID, content [0] EXPLICIT ANY }
        let root = BERDocument.root
        guard container[root].tag == .sequence,
            let contentType = container.child(0, of: root), let content = container.child(1, of: root),
            container[contentType].tag == .objectIdentifier,
            container.content(of: contentType).elementsEqual(signedDataOID),
            container[content].tag == .contextSpecific(0),
            let signedData = container.child(0, of: content)
        else { throw .notSignedData }

        // SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo, [0] certs,
        //                           [1] crls, signerInfos SET }. Only encapContentInfo matters here.
        guard container[signedData].tag == .sequence,
            let version = container.child(0, of: signedData), let digestAlgorithms = container.child(1, of: signedData),
            let encapsulated = container.child(2, of: signedData),
            container[version].tag == .integer, container[digestAlgorithms].tag == .set
        else {
            throw .malformedSignedData(problem: "not a SEQUENCE { version, digestAlgorithms, encapContentInfo, … }")
        }

        // EncapsulatedContentInfo ::= SEQUENCE { eContentType OID, eContent [0] EXPLICIT OCTET STRING OPTIONAL }
        guard container[encapsulated].tag == .sequence, let eContentType = container.child(0, of: encapsulated),
            container[eContentType].tag == .objectIdentifier,
            container.content(of: eContentType).elementsEqual(dataOID)
        else { throw .malformedSignedData(problem: "the encapsulated content is not PKCS#7 data") }
        guard let eContent = container.child(1, of: encapsulated), container[eContent].tag == .contextSpecific(0),
            let octets = container.child(0, of: eContent)
        else { throw .malformedSignedData(problem: "no encapsulated content (a detached signature)") }
        guard let payload = container.octetString(at: octets) else {
            throw .malformedSignedData(problem: "the encapsulated content is not an OCTET STRING")
        }
        return payload
    }

    private static func decodePayload(_ payload: ArraySlice<UInt8>, purchases: Bool) throws(ReceiptDecodingError)
        -> LocalReceipt
    {
        guard !payload.isEmpty else { throw .malformedPayload(problem: "the payload is empty") }
        let document = try BERDocument(parsing: payload)
        guard document[BERDocument.root].tag == .set else {
            throw .malformedPayload(problem: "not a SET of receipt attributes")
        }
        typealias Kind = LocalReceiptAttributeType
        var receipt = LocalReceipt(format: .appReceipt)
        for attribute in try attributes(of: BERDocument.root, in: document) {
            // Read by the attributes decoded only: the summary skips every purchase, most of a receipt.
            var value: ArraySlice<UInt8> { document.octetString(at: attribute.value)! }
            // Apple never repeats a single-valued attribute; if one is repeated, the first wins.
            switch attribute.type {
            case Kind.receiptType:
                fill(&receipt.environment, try string(value, type: attribute.type))
            case Kind.appItemID:
                fill(&receipt.appItemID, try integer(value, type: attribute.type))
            case Kind.bundleID:
                if receipt.bundleIDValueDER == nil {
                    receipt.bundleID = try string(value, type: attribute.type)
                    receipt.bundleIDValueDER = Array(value)
                }
            case Kind.applicationVersion:
                fill(&receipt.applicationVersion, try string(value, type: attribute.type))
            case Kind.opaqueValue:
                receipt.opaqueValue = receipt.opaqueValue ?? Array(value)
            case Kind.sha1Hash:
                receipt.sha1Hash = receipt.sha1Hash ?? Array(value)
            case Kind.creationDate:
                fill(&receipt.creationDate, try date(value, type: attribute.type))
            case Kind.originalPurchaseDate:
                fill(&receipt.originalPurchaseDate, try date(value, type: attribute.type))
            case Kind.originalApplicationVersion:
                fill(&receipt.originalApplicationVersion, try string(value, type: attribute.type))
            case Kind.expirationDate:
                fill(&receipt.expirationDate, try date(value, type: attribute.type))
            case Kind.inAppPurchase:
                if purchases { receipt.inApp.append(try decodeInAppPurchase(value)) }
            default:
                continue  // undocumented or unknown: ignored, so new attributes never break decoding
            }
        }
        return receipt
    }

    private static func decodeInAppPurchase(
        _ value: ArraySlice<UInt8>
    ) throws(ReceiptDecodingError) -> LocalReceipt.InAppPurchase {
        typealias Kind = LocalReceiptAttributeType
        let type = Kind.inAppPurchase
        guard !value.isEmpty else { throw .invalidAttribute(type: type, expected: "a SET of in-app attributes") }
        let document = try BERDocument(parsing: value)
        guard document[BERDocument.root].tag == .set else {
            throw .invalidAttribute(type: type, expected: "a SET of in-app attributes")
        }
        var purchase = LocalReceipt.InAppPurchase()
        for attribute in try attributes(of: BERDocument.root, in: document) {
            let value = document.octetString(at: attribute.value)!
            let type = attribute.type
            switch type {
            case Kind.quantity:
                fill(&purchase.quantity, Int(try integer(value, type: type)))
            case Kind.productID:
                fill(&purchase.productID, try string(value, type: type))
            case Kind.transactionID:
                fill(&purchase.transactionID, try string(value, type: type))
            case Kind.purchaseDate:
                fill(&purchase.purchaseDate, try date(value, type: type))
            case Kind.originalTransactionID:
                fill(&purchase.originalTransactionID, try string(value, type: type))
            case Kind.inAppOriginalPurchaseDate:
                fill(&purchase.originalPurchaseDate, try date(value, type: type))
            case Kind.productType:
                fill(&purchase.productType, Int(try integer(value, type: type)))
            case Kind.expiresDate:
                fill(&purchase.expiresDate, try date(value, type: type))
            case Kind.webOrderLineItemID:
                fill(&purchase.webOrderLineItemID, String(try integer(value, type: type)))
            case Kind.cancellationDate:
                fill(&purchase.cancellationDate, try date(value, type: type))
            case Kind.isTrialPeriod:
                fill(&purchase.isTrialPeriod, try integer(value, type: type) != 0)
            case Kind.isInIntroOfferPeriod:
                fill(&purchase.isInIntroOfferPeriod, try integer(value, type: type) != 0)
            case Kind.promotionalOfferID:
                fill(&purchase.promotionalOfferID, try string(value, type: type))
            default:
                continue
            }
        }
        return purchase
    }

    /// The `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }` children of a SET.
    /// Attributes whose type does not fit an `Int32` cannot be known ones and are left out.
    ///
    /// Every attribute's shape is checked here, before the first value is decoded, so a
    /// malformed attribute is reported as such wherever it stands. The attributes themselves
    /// are then read one by one from the document: no array per attribute, nor of them all
    /// (a receipt has one attribute per purchase, and the summary reads a handful).
    private static func attributes(
        of set: Int, in document: BERDocument
    ) throws(ReceiptDecodingError) -> ReceiptAttributes {
        for attribute in document.childIndices(of: set) {
            guard document[attribute].tag == .sequence,
                case (let type, let version, let value)? = document.threeChildren(of: attribute),
                document[type].tag == .integer, document[version].tag == .integer,
                document.isOctetString(at: value)
            else {
                throw .malformedPayload(problem: "an attribute is not a SEQUENCE { type, version, value }")
            }
            guard !document.content(of: type).isEmpty else {
                throw .malformedPayload(problem: "an attribute type is an empty INTEGER")
            }
        }
        return ReceiptAttributes(document: document, children: document.childIndices(of: set))
    }

    /// The attributes of a SET whose shape `attributes(of:in:)` has checked.
    private struct ReceiptAttributes: Sequence, IteratorProtocol {
        let document: BERDocument
        var children: BERDocument.Children

        /// The attribute's type and the node of its value (an OCTET STRING: `BERDocument.octetString(at:)`).
        mutating func next() -> (type: Int, value: Int)? {
            while let attribute = children.next() {
                let (type, _, value) = document.threeChildren(of: attribute)!  // checked: see attributes(of:in:)
                let typeBytes = document.content(of: type)
                guard typeBytes.count <= 4, let number = Int32(exactly: LocalReceiptDecoder.twosComplement(typeBytes))
                else { continue }
                return (Int(number), value)
            }
            return nil
        }
    }

    /// Stores `value` unless `slot` already holds one: the first occurrence wins (every
    /// occurrence is still decoded, so a malformed duplicate is an error too).
    private static func fill<Value>(_ slot: inout Value?, _ value: Value?) {
        if slot == nil { slot = value }
    }

    // MARK: Attribute values (each value is itself one DER element)

    /// UTF8String, IA5String, PrintableString or VisibleString; empty reads as absent.
    private static func string(_ value: ArraySlice<UInt8>, type: Int) throws(ReceiptDecodingError) -> String? {
        guard let (tag, content) = BERHeader.singlePrimitive(value), tag.tagClass == .universal,
            isStringType(tag.number), let text = String(validating: content, as: UTF8.self)
        else { throw .invalidAttribute(type: type, expected: "a UTF-8 string") }
        return text.isEmpty ? nil : text
    }

    /// UTF8String, IA5String, PrintableString or VisibleString: four comparisons, no list built per
    /// string read.
    private static func isStringType(_ number: UInt32) -> Bool {
        number == BERTag.utf8StringNumber || number == BERTag.ia5StringNumber
            || number == BERTag.printableStringNumber || number == BERTag.visibleStringNumber
    }

    /// An INTEGER of at most 8 octets.
    private static func integer(_ value: ArraySlice<UInt8>, type: Int) throws(ReceiptDecodingError) -> Int64 {
        guard let (tag, content) = BERHeader.singlePrimitive(value), tag == .integer,
            (1...8).contains(content.count)
        else { throw .invalidAttribute(type: type, expected: "an INTEGER of at most 64 bits") }
        return twosComplement(content)
    }

    /// An IA5String (or UTF8String) date; empty reads as absent (e.g. 1708 of a consumable).
    private static func date(_ value: ArraySlice<UInt8>, type: Int) throws(ReceiptDecodingError) -> Date? {
        guard let (tag, content) = BERHeader.singlePrimitive(value), tag.tagClass == .universal,
            tag.number == BERTag.ia5StringNumber || tag.number == BERTag.utf8StringNumber
        else { throw .invalidAttribute(type: type, expected: "an RFC 3339 date string") }
        if content.isEmpty { return nil }
        guard let date = LocalReceiptTimestamp.parse(content) else {
            throw .invalidAttribute(type: type, expected: "an RFC 3339 date string")
        }
        return date
    }

    /// Big-endian two's complement of 1 to 8 octets. `<<` never traps in Swift, and the sign
    /// extension is shifted out when all 8 octets are present.
    static func twosComplement(_ octets: ArraySlice<UInt8>) -> Int64 {
        var value: Int64 = (octets.first ?? 0) & 0x80 != 0 ? -1 : 0
        for octet in octets.prefix(8) { value = value << 8 | Int64(octet) }
        return value
    }
}
