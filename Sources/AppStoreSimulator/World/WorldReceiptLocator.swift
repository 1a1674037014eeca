import AppStoreReceipts
import Foundation
import Synchronization

/// Which receipt of the world some receipt data is, decided the way Apple would: by what the bytes are.
public enum ReceiptIdentity: Sendable, Hashable {
    /// Not base64, empty, no receipt, or an Xcode receipt: Apple answers 21002.
    case malformed
    /// Decodes as a receipt, but not one this App Store issued (tampered, another world's): 21003.
    case unauthenticated
    /// An app receipt of `account` issued at `createdMs` (a stored receipt or a `latest_receipt`).
    case app(unit: Int, account: Int, createdMs: Int64)
    /// An iOS 6 transaction receipt of one transaction.
    case transaction(unit: Int, account: Int, transactionID: String)
}

/// Finds the world's record behind receipt data at request time, in constant time and memory.
///
/// App receipts carry a `WorldReceiptTag` in attribute 4 that names their unit and slot; iOS 6 receipts
/// are found through their transaction id, which encodes its unit. The locator rebuilds that unit,
/// re-encodes the receipt it names (signed with the world's chain when it has one, or unsigned) and
/// compares it with the data sent: any difference (a forged purchase, an altered signature, a receipt
/// of another seed or `asOf`) is 21003, as a failed signature is at Apple.
///
/// Threading: `Sendable`; `identify` may be called from every connection thread at once. Rebuilt units
/// are cached (in 32 locked shards, each bounded and emptied when full) because a receipt is often asked
/// for twice in a row (a retry, a re-route to the other endpoint).
public final class WorldReceiptLocator: Sendable {
    public let world: SimulatedWorld
    /// Shards of the unit cache, each behind its own lock, so that concurrent requests for different
    /// units rarely wait for each other (one shared lock was the simulator's hottest spot under many
    /// connections: docs/benchmarks.md).
    private let shards: [CacheShard]
    private let shardCapacity: Int
    /// Signs the world's stored app receipts when it was seeded with a chain (`--pki-dir`).
    private let signer: ReceiptSigner?

    public convenience init(world: SimulatedWorld, cacheCapacity: Int = 4096) {
        self.init(world: world, cacheCapacity: cacheCapacity, signingChain: nil)
    }

    /// - Parameter signingChain: the chain the world's app receipts were seeded with, if any.
    package init(world: SimulatedWorld, cacheCapacity: Int = 4096, signingChain: SigningChain?) {
        self.world = world
        signer = signingChain.map(WorldUnit.receiptSigner)
        let count = 32
        shards = (0..<count).map { _ in CacheShard() }
        shardCapacity = max(1, cacheCapacity / count)
    }

    /// Unit `index`, from the cache or rebuilt.
    public func unit(_ index: Int) -> WorldUnit {
        let shard = shards[index % shards.count]
        if let unit = shard.entries.withLock({ $0[index] }) { return unit }
        let unit = world.unit(index)
        shard.entries.withLock { cache in
            if cache.count >= shardCapacity { cache.removeAll(keepingCapacity: true) }
            cache[index] = unit
        }
        return unit
    }

    /// `identify`, with the unit it found (so the answer need not look it up again).
    public func resolve(_ receiptData: String) -> (ReceiptIdentity, WorldUnit?) {
        let identity = identify(receiptData)
        switch identity {
        case .app(let index, _, _), .transaction(let index, _, _): return (identity, unit(index))
        case .malformed, .unauthenticated: return (identity, nil)
        }
    }

    /// Identifies `receiptData` (base64; whitespace is ignored, as the decoder does).
    ///
    /// The common case takes a fast path: strict base64, the tag read straight from the DER, the unit's
    /// receipt re-encoded and compared. Anything else, a mismatch included, goes through the project's
    /// full decoder, which tells garbage (21002) from a receipt that is not ours (21003).
    public func identify(_ receiptData: String) -> ReceiptIdentity {
        if let bytes = Data(base64Encoded: receiptData).map([UInt8].init),
            let opaque = AppReceiptDER.opaqueValue(in: bytes),
            let tag = WorldReceiptTag(bytes: opaque, seed: world.parameters.seed), tag.unit < world.unitCount
        {
            let unit = unit(tag.unit)
            switch tag.kind {
            case .stored:
                if tag.slot < unit.receipts.count, case .app(let account, let created) = unit.receipts[tag.slot],
                    unit.isGenuineAppReceipt(tag.slot, bytes, signer: signer)
                {
                    return .app(unit: tag.unit, account: account, createdMs: created)
                }
            case .latest:
                if tag.slot < unit.accounts.count, unit.latestReceiptBytes(account: tag.slot) == bytes {
                    return .app(unit: tag.unit, account: tag.slot, createdMs: unit.asOfMs)
                }
            }
        }
        return identifyByDecoding(receiptData)
    }

    /// The slow path: full local decoding, then the same comparison.
    private func identifyByDecoding(_ receiptData: String) -> ReceiptIdentity {
        let local: LocalReceipt
        do {
            local = try LocalReceiptDecoder.decode(base64: receiptData)
        } catch {
            return .malformed
        }
        if local.isXcodeTestReceipt { return .malformed }
        let compact =
            receiptData.contains(where: \.isWhitespace) ? receiptData.filter { !$0.isWhitespace } : receiptData
        guard let bytes = Data(base64Encoded: compact).map([UInt8].init) else { return .unauthenticated }

        switch local.format {
        case .appReceipt:
            guard let opaque = local.opaqueValue, let tag = WorldReceiptTag(bytes: opaque, seed: world.parameters.seed),
                tag.unit < world.unitCount
            else { return .unauthenticated }
            let unit = unit(tag.unit)
            switch tag.kind {
            case .stored:
                // A tampered slot is `.tamperedApp`: whatever was sent, it is not what Apple issued.
                guard tag.slot < unit.receipts.count, case .app(let account, let created) = unit.receipts[tag.slot],
                    unit.isGenuineAppReceipt(tag.slot, bytes, signer: signer)
                else { return .unauthenticated }
                return .app(unit: tag.unit, account: account, createdMs: created)
            case .latest:
                guard tag.slot < unit.accounts.count, unit.latestReceiptBytes(account: tag.slot) == bytes else {
                    return .unauthenticated
                }
                return .app(unit: tag.unit, account: tag.slot, createdMs: unit.asOfMs)
            }
        case .transactionReceipt:
            guard let id = local.inApp.first?.transactionID, let place = Self.place(ofTransactionID: id),
                place.unit < world.unitCount
            else { return .unauthenticated }
            let unit = unit(place.unit)
            guard place.account < unit.accounts.count, unit.accounts[place.account].transaction(withID: id) != nil,
                LocalReceiptEncoder.transactionReceipt(
                    unit.transactionReceipt(account: place.account, transactionID: id)) == bytes
            else { return .unauthenticated }
            return .transaction(unit: place.unit, account: place.account, transactionID: id)
        }
    }

    /// The unit and account a transaction id of this world belongs to (see `WorldUnitBuilder`).
    static func place(ofTransactionID id: String) -> (unit: Int, account: Int)? {
        guard let value = UInt64(id), value >= WorldUnitBuilder.transactionIDBase else { return nil }
        let local = value - WorldUnitBuilder.transactionIDBase
        let perUnit = WorldUnitBuilder.accountsPerUnit * WorldUnitBuilder.transactionsPerAccount
        guard local / perUnit <= UInt64(Int32.max) else { return nil }
        return (Int(local / perUnit), Int(local % perUnit / WorldUnitBuilder.transactionsPerAccount))
    }
}

/// One shard of `WorldReceiptLocator`'s unit cache.
private final class CacheShard: Sendable {
    let entries = Mutex<[Int: WorldUnit]>([:])
}

extension WorldUnit {
    /// The identity of stored receipt `slot`, without encoding it: what `WorldReceiptLocator.identify`
    /// finds for `receiptData(slot)` (the tests hold the two to each other).
    public func identity(ofSlot slot: Int) -> ReceiptIdentity {
        switch receipts[slot] {
        case .app(let account, let created): .app(unit: index, account: account, createdMs: created)
        case .transaction(let account, let id): .transaction(unit: index, account: account, transactionID: id)
        case .tamperedApp, .craftedTransaction: .unauthenticated
        // A JWS is not base64: Apple would answer 21002, were it ever sent (the job never sends one).
        case .xcode, .garbage, .empty, .notBase64, .signedTransaction: .malformed
        }
    }
}
