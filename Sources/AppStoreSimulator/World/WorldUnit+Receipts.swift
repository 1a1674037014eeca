import AppStoreReceipts
import Foundation

/// The bytes of the unit's receipts: real-format app receipts (PKCS#7 DER with the attribute set, via
/// `LocalReceiptEncoder`; signed by the world's `--pki-dir` chain when it has one) and iOS 6 transaction
/// receipts (base64 of the old-style plist).
///
/// All pure functions of the unit (and the chain: its signatures are deterministic), so the server can
/// rebuild any receipt and compare it byte for byte with what it was sent: that comparison is the
/// simulator's signature check.
extension WorldUnit {
    /// `receipts.receipt_data` of slot `slot`: base64 as the device sent it. A StoreKit 2 slot needs the
    /// signing chain (`receiptData(_:signingChain:)`).
    public func receiptData(_ slot: Int) -> String {
        receiptData(slot, signingChain: nil)
    }

    /// `receipts.receipt_data` of slot `slot`; a StoreKit 2 slot holds its JWS, signed by `signingChain`,
    /// and an app receipt is signed by it too (as Apple signs every app receipt), when there is one.
    package func receiptData(_ slot: Int, signingChain: SigningChain?) -> String {
        switch receipts[slot] {
        case .empty:
            return ""
        case .notBase64:
            return "<receipt unavailable: StoreKit error 0>"
        case .signedTransaction:
            guard let signingChain else { preconditionFailure("a StoreKit 2 row is written with a signing chain") }
            return signedTransactionJWS(slot, signingChain: signingChain)
        default:
            return Self.base64(receiptBytes(slot, signer: signingChain.map(Self.receiptSigner))!)
        }
    }

    /// The signer of `chain`; a chain minted or read by the simulator always has one.
    static func receiptSigner(_ chain: SigningChain) -> ReceiptSigner {
        guard let signer = chain.receiptSigner else {
            preconditionFailure("the signing chain's leaf key cannot sign receipts")
        }
        return signer
    }

    /// The raw bytes of slot `slot` (nil for receipt data that is not base64 of anything); app receipts
    /// signed by `signer` when given.
    func receiptBytes(_ slot: Int, signer: ReceiptSigner? = nil) -> [UInt8]? {
        switch receipts[slot] {
        case .app(let account, let created):
            return AppReceiptDER.encode(
                appReceipt(account: account, createdMs: created, tag: .init(kind: .stored, unit: index, slot: slot)),
                signer: signer)
        case .tamperedApp(let account, let created):
            var forged = appReceipt(
                account: account, createdMs: created, tag: .init(kind: .stored, unit: index, slot: slot))
            // The forger adds a yearly subscription that runs for another year.
            let start = created - SubscriptionClock.millisecondsPerDay
            let forgedID = String(WorldUnitBuilder.transactionIDBase - 1)
            forged.inApp.append(
                LocalReceipt.InAppPurchase(
                    quantity: 1, productID: WorldCatalog.premiumYearly.id, transactionID: forgedID,
                    purchaseDate: Self.date(start),
                    originalTransactionID: forgedID, originalPurchaseDate: Self.date(start), productType: 3,
                    expiresDate: Self.date(start + 365 * SubscriptionClock.millisecondsPerDay),
                    webOrderLineItemID: String(WorldUnitBuilder.webOrderBase - 1), isTrialPeriod: false,
                    isInIntroOfferPeriod: false))
            // The forger cannot sign: the altered content keeps the signature Apple made for the original.
            guard let signer else { return AppReceiptDER.encode(forged) }
            let genuine = appReceipt(
                account: account, createdMs: created, tag: .init(kind: .stored, unit: index, slot: slot))
            return signer.container(
                payload: AppReceiptDER.payload(forged), signatureOf: AppReceiptDER.payload(genuine))
        case .transaction(let account, let id):
            return LocalReceiptEncoder.transactionReceipt(transactionReceipt(account: account, transactionID: id))
        case .craftedTransaction(let account, let purchase):
            return LocalReceiptEncoder.transactionReceipt(
                craftedTransactionReceipt(account: account, purchaseMs: purchase))
        case .xcode(let created):
            return LocalReceiptEncoder.appReceipt(
                xcodeReceipt(createdMs: created, slot: slot), encoding: .indefiniteLengthBER(chunkSize: 512))
        case .garbage(let count):
            var rng = SplitMix64.derive(seed, UInt64(index), UInt64(slot), 0x6A5B)
            var bytes = rng.bytes(count)
            // Neither a DER SEQUENCE (0x30), nor plist text, nor base64 text: no receipt by any reading.
            bytes[0] = 0x04
            return bytes
        case .empty, .notBase64, .signedTransaction:
            return nil
        }
    }

    /// Whether `bytes` are exactly app receipt `slot` as Apple issued it: signed by `signer` (a world
    /// seeded with a chain), or unsigned (seeded without one). A tampered slot is never genuine.
    func isGenuineAppReceipt(_ slot: Int, _ bytes: [UInt8], signer: ReceiptSigner?) -> Bool {
        guard case .app(let account, let created) = receipts[slot] else { return false }
        let payload = AppReceiptDER.payload(
            appReceipt(account: account, createdMs: created, tag: .init(kind: .stored, unit: index, slot: slot)))
        if let signer, signer.isContainer(bytes, of: payload) { return true }
        return AppReceiptDER.container(payload) == bytes
    }

    /// The bytes of `latest_receipt` for an app receipt of `account`: issued at `asOf`, every transaction.
    func latestReceiptBytes(account: Int) -> [UInt8] {
        AppReceiptDER.encode(
            appReceipt(account: account, createdMs: asOfMs, tag: .init(kind: .latest, unit: index, slot: account)))
    }

    /// `latest_receipt` for an app receipt of `account`, base64.
    public func latestReceiptData(account: Int) -> String {
        Self.base64(latestReceiptBytes(account: account))
    }

    /// An iOS 6 transaction receipt of one transaction of `account` (the `latest_receipt` of iOS 6 answers).
    public func latestTransactionReceiptData(account: Int, transactionID: String) -> String {
        LocalReceiptEncoder.base64(transactionReceipt(account: account, transactionID: transactionID))
    }

    // MARK: Receipt contents

    /// The app receipt of `account` as the device received it at `createdMs`: purchases made by then,
    /// with the cancellations known by then (later refunds are only in Apple's answers).
    func appReceipt(account: Int, createdMs: Int64, tag: WorldReceiptTag) -> LocalReceipt {
        let owner = accounts[account]
        var device = SplitMix64.derive(owner.deviceSeed, UInt64(tag.kind.rawValue), UInt64(tag.slot))
        let purchases = owner.transactions(purchasedBy: createdMs).map { transaction -> LocalReceipt.InAppPurchase in
            let view = transaction.view(at: createdMs)
            let kind = WorldCatalog.product(transaction.productID)?.kind ?? .nonConsumable
            return LocalReceipt.InAppPurchase(
                quantity: transaction.quantity, productID: transaction.productID,
                transactionID: transaction.transactionID,
                purchaseDate: Self.date(transaction.purchaseMs),
                originalTransactionID: transaction.originalTransactionID,
                originalPurchaseDate: Self.date(transaction.originalPurchaseMs), productType: kind.receiptProductType,
                expiresDate: transaction.expiresMs.map(Self.date), webOrderLineItemID: transaction.webOrderLineItemID,
                cancellationDate: view.cancellationMs.map(Self.date), isTrialPeriod: transaction.isTrialPeriod,
                isInIntroOfferPeriod: transaction.isInIntroOfferPeriod)
        }
        return LocalReceipt(
            format: .appReceipt,
            environment: owner.environment == .sandbox ? "ProductionSandbox" : "Production",
            appItemID: owner.appItemID,
            bundleID: owner.bundleID,
            applicationVersion: owner.applicationVersion,
            opaqueValue: tag.bytes(seed: seed),
            sha1Hash: device.bytes(20),
            creationDate: Self.date(createdMs),
            originalPurchaseDate: Self.date(owner.appDownloadMs),
            originalApplicationVersion: owner.originalApplicationVersion,
            inApp: purchases)
    }

    /// The iOS 6 transaction receipt of one transaction, as delivered with that purchase or renewal.
    func transactionReceipt(account: Int, transactionID: String) -> LocalReceipt {
        let owner = accounts[account]
        let transaction = owner.transaction(withID: transactionID)!
        return Self.transactionReceipt(
            of: owner,
            LocalReceipt.InAppPurchase(
                quantity: transaction.quantity, productID: transaction.productID,
                transactionID: transaction.transactionID,
                purchaseDate: Self.date(transaction.purchaseMs),
                originalTransactionID: transaction.originalTransactionID,
                originalPurchaseDate: Self.date(transaction.originalPurchaseMs),
                expiresDate: transaction.expiresMs.map(Self.date),
                webOrderLineItemID: transaction.webOrderLineItemID, isTrialPeriod: transaction.isTrialPeriod,
                isInIntroOfferPeriod: transaction.isInIntroOfferPeriod))
    }

    /// An iOS 6 transaction receipt of `owner`'s app: its one purchase, the app's ids, `Sandbox` in the
    /// sandbox (no environment in production).
    static func transactionReceipt(of owner: WorldAccount, _ purchase: LocalReceipt.InAppPurchase) -> LocalReceipt {
        LocalReceipt(
            format: .transactionReceipt,
            environment: owner.environment == .sandbox ? "Sandbox" : nil,
            appItemID: owner.appItemID,
            bundleID: owner.bundleID,
            applicationVersion: owner.applicationVersion,
            inApp: [purchase])
    }

    /// A StoreKit-testing receipt: attribute 0 is `Xcode`, ids are small, the container is indefinite-length BER.
    func xcodeReceipt(createdMs: Int64, slot: Int) -> LocalReceipt {
        let monthly = WorldCatalog.premiumMonthly
        return LocalReceipt(
            format: .appReceipt, environment: "Xcode", appItemID: 0, bundleID: WorldCatalog.appBundleID,
            applicationVersion: "1", opaqueValue: Array(repeating: UInt8(slot), count: 16),
            sha1Hash: Array(repeating: 0, count: 20), creationDate: Self.date(createdMs),
            originalPurchaseDate: Self.date(createdMs - 60_000), originalApplicationVersion: "1",
            expirationDate: Self.date(createdMs + 86_400_000),
            inApp: [
                LocalReceipt.InAppPurchase(
                    quantity: 1, productID: monthly.id, transactionID: "0", purchaseDate: Self.date(createdMs),
                    originalTransactionID: "0", originalPurchaseDate: Self.date(createdMs), productType: 3,
                    expiresDate: Self.date(createdMs + 30 * SubscriptionClock.millisecondsPerDay),
                    webOrderLineItemID: "0",
                    isTrialPeriod: false, isInIntroOfferPeriod: false)
            ])
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }
}
