import Foundation

/// Builds real-format receipts from a `LocalReceipt`, for the simulator and for tests.
///
/// App receipts are genuine PKCS#7 SignedData containers (sha256 digest algorithm, `data`
/// content, no certificates, no signers): the same bytes the decoder meets in production, minus
/// Apple's signature, which nothing in this project checks. iOS 6 transaction receipts are the
/// plist text Apple's devices stored, with a placeholder signature.
///
/// Fields that are nil are left out, except an in-app `expiresDate` or `cancellationDate`,
/// which become an empty IA5String as Apple writes them. `bundleIDValueDER` and
/// `containerByteCount` are outputs of decoding and are ignored; `webOrderLineItemID` is
/// written only when it is a decimal integer, since the format stores an INTEGER.
public enum LocalReceiptEncoder {
    /// How the PKCS#7 container is laid out.
    public enum ContainerEncoding: Sendable, Hashable {
        /// Definite-length DER, as the App Store issues receipts.
        case der
        /// Indefinite lengths throughout the container and the payload split into a constructed
        /// OCTET STRING of `chunkSize`-byte chunks, as Xcode's StoreKit testing writes receipts.
        case indefiniteLengthBER(chunkSize: Int)
    }

    /// The receipt as base64 (the `receipt-data` a device sends) in its own format: an app
    /// receipt for `.appReceipt`, laid out per `encoding`; the iOS 6 transaction receipt for
    /// `.transactionReceipt`.
    public static func base64(_ receipt: LocalReceipt, encoding: ContainerEncoding = .der) -> String {
        switch receipt.format {
        case .appReceipt: LocalReceiptBase64.encode(appReceipt(receipt, encoding: encoding))
        case .transactionReceipt: LocalReceiptBase64.encode(transactionReceipt(receipt))
        }
    }

    /// The PKCS#7 app receipt bytes.
    public static func appReceipt(_ receipt: LocalReceipt, encoding: ContainerEncoding = .der) -> [UInt8] {
        container(payload: payload(receipt), encoding: encoding)
    }

    /// A SignedData ContentInfo around arbitrary payload bytes.
    static func container(payload: [UInt8], encoding: ContainerEncoding) -> [UInt8] {
        let sha256 = BERWriter.element(
            .sequence,
            children: [
                BERWriter.objectIdentifier([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]),
                BERWriter.element(.null, []),
            ])
        let digestAlgorithms = BERWriter.element(.set, children: [sha256])
        let version = BERWriter.integer(1)
        let signerInfos = BERWriter.element(.set, [])
        let dataOID = BERWriter.objectIdentifier(LocalReceiptDecoder.dataOID)
        let signedDataOID = BERWriter.objectIdentifier(LocalReceiptDecoder.signedDataOID)

        switch encoding {
        case .der:
            let encapsulated = BERWriter.element(
                .sequence,
                children: [
                    dataOID, BERWriter.element(.contextSpecific(0), children: [BERWriter.octetString(payload)]),
                ])
            let signedData = BERWriter.element(
                .sequence, children: [version, digestAlgorithms, encapsulated, signerInfos])
            return BERWriter.element(
                .sequence,
                children: [
                    signedDataOID, BERWriter.element(.contextSpecific(0), children: [signedData]),
                ])
        case .indefiniteLengthBER(let chunkSize):
            let size = max(1, chunkSize)
            let chunks = stride(from: 0, to: payload.count, by: size).map {
                BERWriter.octetString(Array(payload[$0..<min($0 + size, payload.count)]))
            }
            let octets = BERWriter.indefinite(.universal(BERTag.octetStringNumber, constructed: true), children: chunks)
            let encapsulated = BERWriter.indefinite(
                .sequence,
                children: [
                    dataOID, BERWriter.indefinite(.contextSpecific(0), children: [octets]),
                ])
            let signedData = BERWriter.indefinite(
                .sequence, children: [version, digestAlgorithms, encapsulated, signerInfos])
            return BERWriter.indefinite(
                .sequence,
                children: [
                    signedDataOID, BERWriter.indefinite(.contextSpecific(0), children: [signedData]),
                ])
        }
    }

    /// The receipt attribute SET: the content of the container's OCTET STRING.
    static func payload(_ receipt: LocalReceipt) -> [UInt8] {
        typealias Kind = LocalReceiptAttributeType
        var attributes: [[UInt8]] = []
        func add(_ type: Int, _ value: [UInt8]?, version: Int64 = 1) {
            guard let value else { return }
            attributes.append(attribute(type, value, version: version))
        }
        add(Kind.receiptType, receipt.environment.map(BERWriter.utf8String))
        add(Kind.appItemID, receipt.appItemID.map(BERWriter.integer))
        add(Kind.bundleID, receipt.bundleID.map(BERWriter.utf8String))
        add(Kind.applicationVersion, receipt.applicationVersion.map(BERWriter.utf8String))
        add(Kind.opaqueValue, receipt.opaqueValue, version: 2)
        add(Kind.sha1Hash, receipt.sha1Hash)
        add(Kind.creationDate, receipt.creationDate.map(dateValue))
        add(Kind.originalPurchaseDate, receipt.originalPurchaseDate.map(dateValue))
        add(Kind.originalApplicationVersion, receipt.originalApplicationVersion.map(BERWriter.utf8String))
        add(Kind.expirationDate, receipt.expirationDate.map(dateValue))
        for purchase in receipt.inApp {
            add(Kind.inAppPurchase, inAppPurchase(purchase))
        }
        return BERWriter.setOf(attributes)
    }

    private static func inAppPurchase(_ purchase: LocalReceipt.InAppPurchase) -> [UInt8] {
        typealias Kind = LocalReceiptAttributeType
        var attributes: [[UInt8]] = []
        func add(_ type: Int, _ value: [UInt8]?) {
            guard let value else { return }
            attributes.append(attribute(type, value, version: 1))
        }
        add(Kind.quantity, purchase.quantity.map { BERWriter.integer(Int64($0)) })
        add(Kind.productID, purchase.productID.map(BERWriter.utf8String))
        add(Kind.transactionID, purchase.transactionID.map(BERWriter.utf8String))
        add(Kind.purchaseDate, purchase.purchaseDate.map(dateValue))
        add(Kind.originalTransactionID, purchase.originalTransactionID.map(BERWriter.utf8String))
        add(Kind.inAppOriginalPurchaseDate, purchase.originalPurchaseDate.map(dateValue))
        add(Kind.productType, purchase.productType.map { BERWriter.integer(Int64($0)) })
        add(Kind.expiresDate, purchase.expiresDate.map(dateValue) ?? BERWriter.ia5String(""))
        add(Kind.webOrderLineItemID, purchase.webOrderLineItemID.flatMap { Int64($0) }.map(BERWriter.integer))
        add(Kind.cancellationDate, purchase.cancellationDate.map(dateValue) ?? BERWriter.ia5String(""))
        add(Kind.isTrialPeriod, purchase.isTrialPeriod.map { BERWriter.integer($0 ? 1 : 0) })
        add(Kind.isInIntroOfferPeriod, purchase.isInIntroOfferPeriod.map { BERWriter.integer($0 ? 1 : 0) })
        add(Kind.promotionalOfferID, purchase.promotionalOfferID.map(BERWriter.utf8String))
        return BERWriter.setOf(attributes)
    }

    private static func attribute(_ type: Int, _ value: [UInt8], version: Int64) -> [UInt8] {
        BERWriter.element(
            .sequence,
            children: [
                BERWriter.integer(Int64(type)), BERWriter.integer(version), BERWriter.octetString(value),
            ])
    }

    private static func dateValue(_ date: Date) -> [UInt8] {
        BERWriter.ia5String(LocalReceiptTimestamp.format(date))
    }
}
