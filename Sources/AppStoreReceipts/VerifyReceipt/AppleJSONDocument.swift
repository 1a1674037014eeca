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
    ///
    /// Sixteen bytes: offsets and counts are stored as `UInt32` (the parser refuses documents of
    /// `maximumTextCount` bytes or more). An answer has a node for every few bytes, so the tape is a
    /// multiple of the answer itself, written once and read a few times by the models: half the size
    /// is half that memory, at no cost in CPU (docs/benchmarks.md).
    struct Node: Sendable {
        enum Kind: UInt8, Sendable {
            case object, array, string, number, `true`, `false`, null
        }

        var kind: Kind
        /// Objects: their member table holds `keyedFingerprint`s, not `fingerprint`s (see
        /// `AppleJSONParser.leaveObject`). Beside `kind`, so the node stays sixteen bytes.
        var keyedTable = false
        private var storedStart: UInt32 = 0
        private var storedCount: UInt32 = 0
        private var storedSpan: UInt32 = 0

        init(kind: Kind, start: Int = 0, count: Int = 0) {
            self.kind = kind
            self.start = start
            self.count = count
        }

        /// Strings, numbers and keys: where their UTF-8 starts in `text`. Objects: where their
        /// member table starts in `members`.
        var start: Int {
            get { Int(storedStart) }
            set { storedStart = UInt32(newValue) }
        }
        /// Strings, numbers and keys: their byte count. Objects: the size of their member
        /// table, a power of two at least twice their member count (zero when empty).
        var count: Int {
            get { Int(storedCount) }
            set { storedCount = UInt32(newValue) }
        }
        /// Objects and arrays: how many nodes they span after their own.
        var span: Int {
            get { Int(storedSpan) }
            set { storedSpan = UInt32(newValue) }
        }

        /// Nodes from this one to its next sibling.
        var width: Int { 1 + span }
    }

    /// A slot of an object's member table, an open-addressing hash table over key
    /// fingerprints: the key's fingerprint and where the key is on the tape (its value follows
    /// it), or a negative `key` when the slot is empty. Eight bytes, for the reason `Node` is small.
    struct Member: Sendable {
        var fingerprint: UInt32
        private var storedKey: Int32

        init(fingerprint: UInt32, key: Int) {
            self.fingerprint = fingerprint
            storedKey = Int32(key)
        }

        var key: Int { Int(storedKey) }

        static let empty = Member(fingerprint: 0, key: -1)
    }

    /// The largest text a document can have, so that every offset fits a `UInt32`; the text is the
    /// input followed by its decoded escapes, at most twice the input.
    static let maximumTextCount = Int(UInt32.max) / 2

    /// The document's bytes, then the decoded form of strings that had escapes. Every range
    /// the tape points at is valid UTF-8 without escapes.
    ///
    /// An array, although answers arrive as `Data`: parsing a `Data` in place saves a copy per answer
    /// but costs more than it saves, because every read through `Data.withUnsafeBytes` goes through
    /// its storage class's exclusivity checks (docs/benchmarks.md).
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
    static func slot(_ fingerprint: UInt32, size: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(fingerprint) &* 0x9E37_79B9_7F4A_7C15) >> 32) & (size - 1)
    }

    /// The fingerprint a member table of `table` (an object's node) holds for a key.
    static func fingerprint(_ utf8: UnsafeRawBufferPointer, in table: Node) -> UInt32 {
        table.keyedTable ? keyedFingerprint(utf8) : fingerprint(utf8)
    }

    /// The whole key through Swift's `Hasher` (SipHash, seeded afresh in every process): what no
    /// input can be made to collide on, for the tables whose keys collided on `fingerprint`.
    /// Several times the cost of `fingerprint`, so not for every object.
    static func keyedFingerprint(_ utf8: UnsafeRawBufferPointer) -> UInt32 {
        var hasher = Hasher()
        hasher.combine(bytes: utf8)
        return UInt32(truncatingIfNeeded: hasher.finalize())
    }

    /// A cheap summary of a key (its length and first and last eight bytes): equal keys have
    /// equal fingerprints and different keys rarely do, so a lookup compares integers and
    /// compares bytes only on a match. Keys made to share length and ends share it too: the
    /// parser then moves their object to `keyedFingerprint`.
    static func fingerprint(_ utf8: UnsafeRawBufferPointer) -> UInt32 {
        let count = utf8.count
        var head: UInt64 = 0
        var tail: UInt64 = 0
        if count >= 8 {
            head = utf8.loadUnaligned(as: UInt64.self)
            tail = utf8.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else {
            head = ByteWords.word(utf8, from: 0).word
        }
        let mixed =
            head ^ (tail &* 0x0000_0100_0000_01B3) ^ (UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15)
        return UInt32(truncatingIfNeeded: mixed ^ (mixed >> 32))
    }
}
