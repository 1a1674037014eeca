import Synchronization

/// Signed data of Apple's answers already verified in this run, by their exact text. Apple repeats
/// some: Get All Subscription Statuses hands back the last transaction the history just gave, and two
/// app accounts sharing one Apple ID get one history twice. A repeat skips the ES256 check (the job's
/// costliest step per signed transaction) with a verdict that cannot differ: the bytes are the same, and certificates are checked at the
/// data's own `signedDate`, not at the time of the check.
///
/// Keyed by the signature segment, a cheap 86 characters; the whole text is compared on a hit, so only
/// identical data shares a verdict. Only data that verified is kept.
///
/// Threading: any thread; a `Mutex` guards the table.
final class VerifiedAnswerMemo: Sendable {
    /// `order` is a ring: `head` is the oldest key once it is full (removing an array's first element
    /// moved every other, per signed item).
    private let table = Mutex<
        (entries: [Substring: (jws: String, payload: SignedPayload)], order: [Substring], head: Int)
    >((entries: [:], order: [], head: 0))
    private let capacity: Int

    init(capacity: Int = 512) { self.capacity = capacity }

    func payload(of jws: String) -> SignedPayload? {
        let key = Self.signature(jws)
        guard let entry = table.withLock({ $0.entries[key] }), entry.jws == jws else { return nil }
        return entry.payload
    }

    func remember(_ payload: SignedPayload, of jws: String) {
        let key = Self.signature(jws)
        table.withLock { table in
            guard table.entries.updateValue((jws, payload), forKey: key) == nil else { return }
            if table.order.count < capacity {
                table.order.append(key)
            } else {
                table.entries[table.order[table.head]] = nil
                table.order[table.head] = key
                table.head = (table.head + 1) % capacity
            }
        }
    }

    /// The text after the last dot: the signature segment. Searched in the UTF-8 bytes: `String`'s own
    /// `lastIndex(of:)` steps back a grapheme cluster at a time, which cost as much as decoding a page.
    private static func signature(_ jws: String) -> Substring {
        jws.utf8.lastIndex(of: UInt8(ascii: ".")).map { jws[jws.utf8.index(after: $0)...] } ?? jws[...]
    }
}
