import AppStoreReceipts
import Synchronization

/// Signs the Server API's payloads with the seeding's chain, each once: a payload is a pure function of
/// the world, so its signed form is cached under a key the caller chooses (a transaction id).
///
/// Signing is the expensive part of an answer (an ECDSA signature per item, up to 20 per history page),
/// and the bench runs the simulator beside the job. The JWS header, with its `x5c` of three certificates,
/// is the same for every item: it is encoded once and not kept per entry, which leaves about 600 bytes per
/// cached item. The cache is 32 locked shards, each emptied when full (like `WorldReceiptLocator`'s).
///
/// Threading: `Sendable`; called from every connection thread. A miss signs outside the lock, so two
/// threads may sign the same item at once (harmless: either signature verifies).
final class ServerAPISigner: Sendable {
    let chain: SigningChain
    /// `base64url(header) + "."`, the first part of every JWS.
    private let headerSegment: String
    private let shards: [SignedShard]
    private let shardCapacity: Int

    init(chain: SigningChain, cacheCapacity: Int = 32_768) {
        self.chain = chain
        // The header `SigningChain.sign` writes: the verifier reads `alg` and `x5c` only.
        let x5c = [chain.leaf, chain.intermediate, chain.root].map {
            "\"" + WorldUnit.base64(($0.der)) + "\""
        }
        let header = "{\"alg\":\"ES256\",\"x5c\":[" + x5c.joined(separator: ",") + "]}"
        headerSegment = WorldUnit.base64URL(Array(header.utf8)) + "."
        shards = (0..<32).map { _ in SignedShard() }
        shardCapacity = max(1, cacheCapacity / 32)
    }

    /// The compact JWS of `payload()` (called only on a miss), cached under `key`.
    func signed(_ key: String, payload: () -> [UInt8]) -> String {
        let shard = shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))]
        if let tail = shard.entries.withLock({ $0[key] }) { return headerSegment + tail }
        let body = WorldUnit.base64URL(payload())
        // A generated key always signs; an empty signature would only make the item fail verification.
        let signature = chain.leafKey.sign(Array((headerSegment + body).utf8)) ?? []
        let tail = body + "." + WorldUnit.base64URL(signature)
        shard.entries.withLock { cache in
            if cache.count >= shardCapacity { cache.removeAll(keepingCapacity: true) }
            cache[key] = tail
        }
        return headerSegment + tail
    }
}

/// One shard of `ServerAPISigner`'s cache: key → `payload.signature` (the JWS without its header).
private final class SignedShard: Sendable {
    let entries = Mutex<[String: String]>([:])
}
