/// A JSON object of an `AppleJSONDocument`: its members in document order, duplicates kept.
///
/// Lookups go through the object's member table, built by the parser: a hash table over key
/// fingerprints (`AppleJSONDocument.fingerprint`, or `keyedFingerprint` for keys made to collide),
/// so that reading a field (or learning it is absent, which is most of Apple's
/// optional fields) costs one or two integer comparisons and one `memcmp`, not a walk over
/// the two dozen members of a transaction.
struct AppleJSONObject: Equatable, Sendable {
    let document: AppleJSONDocument
    /// The object's node on the document's tape.
    let index: Int

    /// The value of the first member named `key`. With duplicate keys the first one counts,
    /// as it did with Foundation's `JSONDecoder`, which this decoder replaced.
    subscript(key: String) -> AppleJSONValue? {
        valueIndex(of: key).map(document.value(at:))
    }

    /// Whether a member named `key` is present, even as `null`.
    func contains(_ key: String) -> Bool {
        valueIndex(of: key) != nil
    }

    func contains(_ key: StaticString) -> Bool {
        valueIndex(of: key) != nil
    }

    /// Every member, in document order.
    var members: [(key: String, value: AppleJSONValue)] {
        var members: [(key: String, value: AppleJSONValue)] = []
        var position = index + 1
        let end = index + document.tape[index].width
        while position < end {
            members.append((document.string(document.tape[position]), document.value(at: position + 1)))
            position += 1 + document.tape[position + 1].width
        }
        return members
    }

    /// Where the first member named `key` has its value on the tape.
    func valueIndex(of key: String) -> Int? {
        var key = key
        return key.withUTF8 { valueIndex(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// `valueIndex(of:)` for the field names the models read, all literals: a `StaticString` is its
    /// bytes already, where a `String` argument goes through `withUTF8` on every read, a score of
    /// reads per transaction (most of decoding a transaction: docs/benchmarks.md).
    func valueIndex(of key: StaticString) -> Int? {
        key.withUTF8Buffer { valueIndex(utf8: UnsafeRawBufferPointer($0)) }
    }

    private func valueIndex(utf8 key: UnsafeRawBufferPointer) -> Int? {
        let table = document.tape[index]
        guard table.count > 0 else { return nil }
        let fingerprint = AppleJSONDocument.fingerprint(key, in: table)
        return document.members.withUnsafeBufferPointer { members in
            // Linear probing; a table holds each name once, its first member's (duplicates are
            // left out of it), so with duplicate keys the first is found.
            var slot = AppleJSONDocument.slot(fingerprint, size: table.count)
            while true {
                let member = members[table.start + slot]
                if member.key < 0 { return nil }
                if member.fingerprint == fingerprint, document.textEquals(document.tape[member.key], key) {
                    return member.key + 1
                }
                slot = (slot + 1) & (table.count - 1)
            }
        }
    }

    static func == (lhs: AppleJSONObject, rhs: AppleJSONObject) -> Bool {
        let left = lhs.members
        let right = rhs.members
        return left.count == right.count && zip(left, right).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
