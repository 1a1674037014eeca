import Foundation

/// A parsed JSON document: its text and a flat tape of its values, read through `AppleJSONValue`.
///
/// The parser checks every byte but builds no `String`s: a string or number is a range of
/// `text`, and becomes a `String` only when a model reads it. A verifyReceipt answer has a few
/// hundred strings (keys, `_pst` dates, text dates beside their `_ms` twins) and the models read
/// fewer than a third of them; building them all was most of the parsing time.
///
/// Immutable once built, so it is shared freely between the views into it.
final class AppleJSONDocument: Sendable {
    /// One value, key or container header on the tape.
    struct Node: Sendable {
        enum Kind: UInt8, Sendable {
            case object, array, string, number, `true`, `false`, null
        }

        var kind: Kind
        /// Strings, numbers and keys: where their UTF-8 starts in `text`. Objects: where their
        /// member table starts in `members`.
        var start = 0
        /// Strings, numbers and keys: their byte count. Objects: the size of their member
        /// table, a power of two at least twice their member count (zero when empty).
        var count = 0
        /// Objects and arrays: how many nodes they span after their own.
        var span = 0

        /// Nodes from this one to its next sibling.
        var width: Int { 1 + span }
    }

    /// A slot of an object's member table, an open-addressing hash table over key
    /// fingerprints: the key's fingerprint and where the key is on the tape (its value follows
    /// it), or a negative `key` when the slot is empty.
    struct Member: Sendable {
        var fingerprint: UInt64
        var key: Int

        static let empty = Member(fingerprint: 0, key: -1)
    }

    /// The document's bytes, then the decoded form of strings that had escapes. Every range
    /// the tape points at is valid UTF-8 without escapes.
    let text: [UInt8]
    /// The values in document order; an object's members are key, value, key, value...
    let tape: [Node]
    /// Every object's member table, one after the other.
    let members: [Member]

    init(text: [UInt8], tape: [Node], members: [Member]) {
        self.text = text
        self.tape = tape
        self.members = members
    }

    /// The document's top-level value.
    var root: AppleJSONValue { value(at: 0) }

    func value(at index: Int) -> AppleJSONValue {
        let node = tape[index]
        switch node.kind {
        case .object: return .object(AppleJSONObject(document: self, index: index))
        case .array: return .array(AppleJSONArray(document: self, index: index))
        case .string: return .string(string(node))
        case .number: return .number(string(node))
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null: return .null
        }
    }

    func string(_ node: Node) -> String {
        text.withUnsafeBufferPointer { text in
            String(decoding: UnsafeBufferPointer(rebasing: text[node.start..<(node.start + node.count)]), as: UTF8.self)
        }
    }

    /// Whether the key or string at `node` is exactly `utf8`.
    func textEquals(_ node: Node, _ utf8: UnsafeRawBufferPointer) -> Bool {
        guard node.count == utf8.count else { return false }
        guard let other = utf8.baseAddress else { return true }
        return text.withUnsafeBytes { text in memcmp(text.baseAddress! + node.start, other, node.count) == 0 }
    }

    /// The first slot to probe for `fingerprint` in a member table of `size` slots.
    static func slot(_ fingerprint: UInt64, size: Int) -> Int {
        Int(truncatingIfNeeded: (fingerprint &* 0x9E37_79B9_7F4A_7C15) >> 32) & (size - 1)
    }

    /// A cheap summary of a key (its length and first and last eight bytes): equal keys have
    /// equal fingerprints and different keys rarely do, so a lookup compares integers and
    /// compares bytes only on a match.
    static func fingerprint(_ utf8: UnsafeRawBufferPointer) -> UInt64 {
        let count = utf8.count
        var head: UInt64 = 0
        var tail: UInt64 = 0
        if count >= 8 {
            head = utf8.loadUnaligned(as: UInt64.self)
            tail = utf8.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else {
            for offset in 0..<count { head |= UInt64(utf8[offset]) << (8 * offset) }
        }
        return head ^ (tail &* 0x0000_0100_0000_01B3) ^ (UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15)
    }
}
