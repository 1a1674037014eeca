import AppStoreReceipts
import CivilTime
import Foundation

/// App receipts as DER bytes, fast: the same bytes as `LocalReceiptEncoder.appReceipt(_:encoding: .der)`
/// (the tests compare them over whole worlds), written straight into exact-size buffers.
///
/// Why a second writer: the simulator encodes a receipt to seed it, again to authenticate it when it
/// is sent, and a third time for `latest_receipt`; the general encoder builds every element as a new
/// array, which made it the simulator's hottest spot; this one costs a small fraction of that.
/// Also a minimal reader, `opaqueValue(in:)`, that finds attribute 4 without decoding the rest.
enum AppReceiptDER {
    // MARK: Writing

    static func encode(_ receipt: LocalReceipt) -> [UInt8] {
        container(payload(receipt))
    }

    /// The receipt signed by `signer` (a world seeded with a `--pki-dir` chain), or unsigned without one.
    static func encode(_ receipt: LocalReceipt, signer: ReceiptSigner?) -> [UInt8] {
        let payload = payload(receipt)
        return signer?.container(payload: payload) ?? container(payload)
    }

    /// The receipt attribute SET: the content a signature covers.
    static func payload(_ receipt: LocalReceipt) -> [UInt8] {
        var attributes: [[UInt8]] = []
        attributes.reserveCapacity(11 + receipt.inApp.count)
        func add(_ type: Int, _ tag: UInt8, _ value: [UInt8]?, version: Int64 = 1) {
            guard let value else { return }
            attributes.append(attribute(type, version: version, tag: tag, value))
        }
        add(0, utf8, receipt.environment.map { Array($0.utf8) })
        if let appItemID = receipt.appItemID {
            attributes.append(attribute(1, version: 1, tag: integerTag, integerContent(appItemID)))
        }
        add(2, utf8, receipt.bundleID.map { Array($0.utf8) })
        add(3, utf8, receipt.applicationVersion.map { Array($0.utf8) })
        if let opaque = receipt.opaqueValue { attributes.append(attribute(4, version: 2, tag: nil, opaque)) }
        if let hash = receipt.sha1Hash { attributes.append(attribute(5, version: 1, tag: nil, hash)) }
        add(12, ia5, receipt.creationDate.map(timestamp))
        add(18, ia5, receipt.originalPurchaseDate.map(timestamp))
        add(19, utf8, receipt.originalApplicationVersion.map { Array($0.utf8) })
        add(21, ia5, receipt.expirationDate.map(timestamp))
        for purchase in receipt.inApp {
            attributes.append(attribute(17, version: 1, tag: nil, inAppSet(purchase)))
        }
        return set(&attributes)
    }

    private static let utf8: UInt8 = 0x0C
    private static let ia5: UInt8 = 0x16
    private static let integerTag: UInt8 = 0x02

    private static func inAppSet(_ purchase: LocalReceipt.InAppPurchase) -> [UInt8] {
        var attributes: [[UInt8]] = []
        attributes.reserveCapacity(13)
        func add(_ type: Int, _ tag: UInt8, _ value: [UInt8]?) {
            guard let value else { return }
            attributes.append(attribute(type, version: 1, tag: tag, value))
        }
        add(1701, integerTag, purchase.quantity.map { integerContent(Int64($0)) })
        add(1702, utf8, purchase.productID.map { Array($0.utf8) })
        add(1703, utf8, purchase.transactionID.map { Array($0.utf8) })
        add(1704, ia5, purchase.purchaseDate.map(timestamp))
        add(1705, utf8, purchase.originalTransactionID.map { Array($0.utf8) })
        add(1706, ia5, purchase.originalPurchaseDate.map(timestamp))
        add(1707, integerTag, purchase.productType.map { integerContent(Int64($0)) })
        // Apple writes an empty IA5String when a purchase has no expiry or cancellation.
        add(1708, ia5, purchase.expiresDate.map(timestamp) ?? [])
        add(1711, integerTag, purchase.webOrderLineItemID.flatMap { Int64($0) }.map(integerContent))
        add(1712, ia5, purchase.cancellationDate.map(timestamp) ?? [])
        add(1713, integerTag, purchase.isTrialPeriod.map { integerContent($0 ? 1 : 0) })
        add(1719, integerTag, purchase.isInIntroOfferPeriod.map { integerContent($0 ? 1 : 0) })
        add(1721, utf8, purchase.promotionalOfferID.map { Array($0.utf8) })
        return set(&attributes)
    }

    /// `SEQUENCE { INTEGER type, INTEGER version, OCTET STRING value }`, the value wrapped in `tag`
    /// unless `tag` is nil (raw bytes: the opaque value, the hash, a nested SET).
    private static func attribute(_ type: Int, version: Int64, tag: UInt8?, _ value: [UInt8]) -> [UInt8] {
        let typeContent = integerContent(Int64(type))
        let versionContent = integerContent(version)
        let valueLength = tag == nil ? value.count : tlvSize(value.count)
        let content = tlvSize(typeContent.count) + tlvSize(versionContent.count) + tlvSize(valueLength)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(tlvSize(content))
        header(0x30, content, into: &bytes)
        header(0x02, typeContent.count, into: &bytes)
        bytes += typeContent
        header(0x02, versionContent.count, into: &bytes)
        bytes += versionContent
        header(0x04, valueLength, into: &bytes)
        if let tag { header(tag, value.count, into: &bytes) }
        bytes += value
        return bytes
    }

    /// DER `SET OF`: members sorted by their encodings (X.690 §11.6).
    private static func set(_ members: inout [[UInt8]]) -> [UInt8] {
        members.sort { $0.lexicographicallyPrecedes($1) }
        let content = members.reduce(0) { $0 + $1.count }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(tlvSize(content))
        header(0x31, content, into: &bytes)
        for member in members { bytes += member }
        return bytes
    }

    private static let sha256OID: [UInt8] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
    private static let dataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
    private static let signedDataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]

    /// `ContentInfo { signedData, [0] SignedData { 1, {sha256}, { data, [0] OCTET STRING payload }, {} } }`.
    static func container(_ payload: [UInt8]) -> [UInt8] {
        let octets = tlvSize(payload.count)
        let explicitContent = tlvSize(octets)
        let encapsulated = tlvSize(dataOID.count) + explicitContent
        let digestAlgorithms = tlvSize(tlvSize(tlvSize(sha256OID.count) + 2))
        let signedData = 3 + digestAlgorithms + tlvSize(encapsulated) + 2
        let outer = tlvSize(signedDataOID.count) + tlvSize(tlvSize(signedData))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(tlvSize(outer))
        header(0x30, outer, into: &bytes)
        header(0x06, signedDataOID.count, into: &bytes)
        bytes += signedDataOID
        header(0xA0, tlvSize(signedData), into: &bytes)
        header(0x30, signedData, into: &bytes)
        bytes += [0x02, 0x01, 0x01]
        header(0x31, tlvSize(tlvSize(sha256OID.count) + 2), into: &bytes)
        header(0x30, tlvSize(sha256OID.count) + 2, into: &bytes)
        header(0x06, sha256OID.count, into: &bytes)
        bytes += sha256OID
        bytes += [0x05, 0x00]
        header(0x30, encapsulated, into: &bytes)
        header(0x06, dataOID.count, into: &bytes)
        bytes += dataOID
        header(0xA0, octets, into: &bytes)
        header(0x04, payload.count, into: &bytes)
        bytes += payload
        bytes += [0x31, 0x00]
        return bytes
    }

    /// Size of a whole element with `contentLength` bytes of content (one tag byte).
    private static func tlvSize(_ contentLength: Int) -> Int {
        1 + lengthSize(contentLength) + contentLength
    }

    private static func lengthSize(_ length: Int) -> Int {
        guard length >= 0x80 else { return 1 }
        var octets = 0
        var rest = length
        while rest > 0 {
            octets += 1
            rest >>= 8
        }
        return 1 + octets
    }

    private static func header(_ tag: UInt8, _ length: Int, into bytes: inout [UInt8]) {
        bytes.append(tag)
        guard length >= 0x80 else {
            bytes.append(UInt8(length))
            return
        }
        let octets = lengthSize(length) - 1
        bytes.append(0x80 | UInt8(octets))
        for index in stride(from: octets - 1, through: 0, by: -1) {
            bytes.append(UInt8(truncatingIfNeeded: length >> (index * 8)))
        }
    }

    /// Shortest two's complement.
    private static func integerContent(_ value: Int64) -> [UInt8] {
        var octets = withUnsafeBytes(of: value.bigEndian, Array.init)
        var start = 0
        while start < 7,
            (octets[start] == 0x00 && octets[start + 1] & 0x80 == 0)
                || (octets[start] == 0xFF && octets[start + 1] & 0x80 != 0)
        {
            start += 1
        }
        if start > 0 { octets.removeFirst(start) }
        return octets
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.SSS` before the `Z` only when there are milliseconds: the text
    /// `LocalReceiptTimestamp.format` writes.
    static func timestamp(_ date: Date) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        CivilDateTime(unixMilliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded())).appendISO8601(to: &bytes)
        return bytes
    }

    // MARK: Reading

    /// The content of attribute 4 (the opaque value) of a definite-length DER app receipt, or nil when
    /// the bytes are not laid out as `encode` writes them (the caller then decodes in full).
    /// Every read is bounds-checked: any bytes are safe.
    static func opaqueValue(in bytes: [UInt8]) -> [UInt8]? {
        var reader = Reader(bytes: bytes, position: 0, end: bytes.count)
        guard var contentInfo = reader.enter(0x30),
            contentInfo.skip(0x06),
            var explicit = contentInfo.enter(0xA0),
            var signedData = explicit.enter(0x30),
            signedData.skip(0x02), signedData.skip(0x31),
            var encapsulated = signedData.enter(0x30),
            encapsulated.skip(0x06),
            var content = encapsulated.enter(0xA0),
            var payload = content.enter(0x04),
            var attributes = payload.enter(0x31)
        else { return nil }
        while !attributes.isAtEnd {
            guard var attribute = attributes.enter(0x30), let type = attribute.smallInteger() else { return nil }
            if type == 4 {
                guard attribute.skip(0x02), let value = attribute.content(0x04) else { return nil }
                return value
            }
        }
        return nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var position: Int
        let end: Int

        var isAtEnd: Bool { position >= end }

        /// Reads a tag and a definite length; returns the content range and moves past the element.
        private mutating func element(_ tag: UInt8) -> Range<Int>? {
            guard position + 2 <= end, bytes[position] == tag else { return nil }
            var cursor = position + 1
            var length = Int(bytes[cursor])
            cursor += 1
            if length & 0x80 != 0 {
                let octets = length & 0x7F
                guard octets >= 1, octets <= 4, cursor + octets <= end else { return nil }
                length = 0
                for _ in 0..<octets {
                    length = length << 8 | Int(bytes[cursor])
                    cursor += 1
                }
            }
            guard length <= end - cursor else { return nil }
            position = cursor + length
            return cursor..<(cursor + length)
        }

        mutating func enter(_ tag: UInt8) -> Reader? {
            element(tag).map { Reader(bytes: bytes, position: $0.lowerBound, end: $0.upperBound) }
        }

        mutating func skip(_ tag: UInt8) -> Bool {
            element(tag) != nil
        }

        mutating func content(_ tag: UInt8) -> [UInt8]? {
            element(tag).map { Array(bytes[$0]) }
        }

        /// A non-negative INTEGER of at most 4 content bytes.
        mutating func smallInteger() -> Int? {
            guard let range = element(0x02), !range.isEmpty, range.count <= 4 else { return nil }
            return range.reduce(0) { $0 << 8 | Int(bytes[$1]) }
        }
    }
}
