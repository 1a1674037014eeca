import Synchronization

/// Signed data of Apple's answers already verified in this run, by their exact text. Apple repeats
/// some: Get All Subscription Statuses hands back the last transaction the history just gave, and two
/// app accounts sharing one Apple ID get one history twice. A repeat skips the ES256 check (the job's
/// costliest step per signed transaction) with a verdict that cannot differ: the bytes are the same, and certificates are checked at the
/// data's own `signedDate`, not at the time of the check.
///
/// Keyed by the text's last 16 bytes and its length (`Key`); the whole text is compared on a hit, so
/// only identical data shares a verdict. Only data that verified is kept.
///
/// Threading: any thread; a `Mutex` guards the table.
final class VerifiedAnswerMemo: Sendable {
    /// The last 16 bytes of a JWS lie in its signature segment (86 characters of ES256), which
    /// differs between any two signed items. Two words and a length hash in a few instructions; a
    /// `Substring` key would be found by a backward walk and hashed character by character, on every
    /// look-up and eviction.
    /// Texts that share a key only share a slot: the hit's full comparison tells them apart.
    struct Key: Hashable {
        var tail: (UInt64, UInt64)
        var count: Int

        init(_ jws: String) {
            var text = jws  // `withUTF8` makes a string contiguous first, hence the copy of the reference
            (tail, count) = text.withUTF8(Self.words)
        }

        private static func words(_ bytes: UnsafeBufferPointer<UInt8>) -> ((UInt64, UInt64), Int) {
            var high: UInt64 = 0
            var low: UInt64 = 0
            for byte in bytes.suffix(16) {
                high = high << 8 | low >> 56
                low = low << 8 | UInt64(byte)
            }
            return ((high, low), bytes.count)
        }

        static func == (left: Key, right: Key) -> Bool {
            left.tail == right.tail && left.count == right.count
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(tail.0)
            hasher.combine(tail.1)
            hasher.combine(count)
        }
    }

    /// `order` is a ring: `head` is the oldest key once it is full (removing an array's first element
    /// moved every other, per signed item).
    private let table = Mutex<
        (entries: [Key: (jws: String, payload: SignedPayload)], order: [Key], head: Int)
    >((entries: [:], order: [], head: 0))
    private let capacity: Int

    init(capacity: Int = 512) { self.capacity = capacity }

    func payload(of jws: String) -> SignedPayload? {
        let key = Key(jws)
        guard let entry = table.withLock({ $0.entries[key] }), entry.jws == jws else { return nil }
        return entry.payload
    }

    func remember(_ payload: SignedPayload, of jws: String) {
        let key = Key(jws)
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
}
