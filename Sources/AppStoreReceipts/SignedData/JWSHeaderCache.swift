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
    /// A header segment read, kept as its exact bytes.
    private struct Entry {
        let bytes: [UInt8]
        let header: CompactJWS.Header

        /// Whether `segment` is this entry's text, byte for byte (`memcmp`), so a header crafted to
        /// look like another cannot borrow its chain. No hash first: the few headers kept differ
        /// within their first certificate's serial number, so a miss costs a few bytes compared.
        func matches(_ segment: UnsafeRawBufferPointer) -> Bool {
            bytes.count == segment.count
                && bytes.withUnsafeBytes { kept in
                    kept.isEmpty || memcmp(kept.baseAddress!, segment.baseAddress!, kept.count) == 0
                }
        }
    }

    /// The headers kept, oldest first: a run meets a few, so a scan is cheaper than hashing 2.5 KB.
    private let table = Mutex<[Entry]>([])
    private let capacity: Int

    init(capacity: Int = 16) { self.capacity = capacity }

    /// The header `segment` says, read once.
    func header(_ segment: ArraySlice<UInt8>) throws(SignedDataFailure) -> CompactJWS.Header {
        let known = segment.withUnsafeBytes { bytes in
            table.withLock { entries in entries.first { $0.matches(bytes) }?.header }
        }
        if let known { return known }
        let header = try CompactJWS.header(segment)
        let entry = Entry(bytes: Array(segment), header: header)
        table.withLock { entries in
            guard !entries.contains(where: { $0.bytes == entry.bytes }) else { return }
            entries.append(entry)
            if entries.count > capacity { entries.removeFirst() }
        }
        return header
    }
}
