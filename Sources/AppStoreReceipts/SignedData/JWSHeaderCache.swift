import Synchronization

/// Header segments already read, by their exact text. Apple signs months of data with one leaf, so
/// nearly every JWS of a run carries one of a few headers (`alg` and three certificates, 2.5 KB of
/// base64url): decoding and parsing it again was a tenth of a signed transaction's verification.
/// Only successfully read headers are kept; what they say is still checked for every JWS.
///
/// Threading: any thread; the table sits behind a `Mutex`, and no decoding happens while holding it.
final class JWSHeaderCache: Sendable {
    /// The segment's bytes, hashed in one pass (an `ArraySlice`'s own hashing feeds the hasher a byte
    /// at a time).
    private struct Key: Hashable {
        let bytes: [UInt8]
        func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    private let table = Mutex<(entries: [Key: CompactJWS.Header], order: [Key])>((entries: [:], order: []))
    private let capacity: Int

    init(capacity: Int = 16) { self.capacity = capacity }

    /// The header `segment` says, read once.
    func header(_ segment: ArraySlice<UInt8>) throws(SignedDataFailure) -> CompactJWS.Header {
        let key = Key(bytes: Array(segment))
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
