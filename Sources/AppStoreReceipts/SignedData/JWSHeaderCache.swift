import Foundation
import Synchronization

/// Header segments already read, by their exact text. Apple signs months of data with one leaf, so
/// nearly every JWS of a run carries one of a few headers (`alg` and three certificates, 2.5 KB of
/// base64url): decoding and parsing it again is a noticeable share of a signed transaction's
/// verification (docs/benchmarks.md).
/// Only successfully read headers are kept; what they say is still checked for every JWS. Each entry
/// also remembers the chain its certificates last verified to (`VerifiedChainSlot`), so a repeated
/// header skips even the chain cache's lookup while the instant checked lies within that chain.
///
/// Threading: any thread; the table sits behind a `Mutex`, and no decoding happens while holding it.
final class JWSHeaderCache: Sendable {
    /// The segment's bytes and a word-at-a-time hash of them; equal hashes are confirmed byte for byte,
    /// so a header crafted to collide cannot borrow another's chain (as in `ReceiptChecker`).
    private struct Key: Hashable {
        let bytes: [UInt8]
        let hash: UInt64

        init(_ segment: ArraySlice<UInt8>) {
            bytes = Array(segment)
            hash = bytes.withUnsafeBytes(ByteWords.hash)
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        /// Compared with `memcmp`: `Array`'s `==` compares element by element, 2.5 KB per signed item.
        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.hash == rhs.hash && lhs.bytes.count == rhs.bytes.count
                && lhs.bytes.withUnsafeBytes { left in
                    rhs.bytes.withUnsafeBytes { right in
                        left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
                    }
                }
        }
    }

    private let table = Mutex<(entries: [Key: CompactJWS.Header], order: [Key])>((entries: [:], order: []))
    private let capacity: Int

    init(capacity: Int = 16) { self.capacity = capacity }

    /// The header `segment` says, read once.
    func header(_ segment: ArraySlice<UInt8>) throws(SignedDataFailure) -> CompactJWS.Header {
        let key = Key(segment)
        if let known = table.withLock({ $0.entries[key] }) { return known }
        let header = try CompactJWS.header(segment)
        table.withLock { table in
            guard table.entries.updateValue(header, forKey: key) == nil else { return }
            table.order.append(key)
            if table.order.count > capacity { table.entries[table.order.removeFirst()] = nil }
        }
        return header
    }
}
