import Foundation

/// A strict RFC 8259 parser over UTF-8 bytes, producing an `AppleJSONDocument`.
///
/// For Apple's JSON read by its models (signed data's payloads, the Server API's answers): it checks
/// every byte but builds no `String`s (see `AppleJSONDocument`), scans string contents eight bytes at
/// a time, and keeps numbers as their text. verifyReceipt answers, which have a fixed set of models,
/// are read without a document by `VerifyReceiptAnswerReader`, on the same lexing (`AppleJSONScanning`).
///
/// Strict, because a body that is not JSON was damaged on the way, and reading "what is left"
/// of a damaged answer could drop a cancellation date: trailing commas, comments, control
/// characters in strings, invalid UTF-8, lone surrogates, leading zeros and anything after the
/// top-level value are all rejected. A byte order mark is rejected too; the caller strips it.
///
/// Nesting is limited to `maximumDepth`, so a hostile body of a hundred thousand `[` fails after
/// reading 65 bytes; that limit also bounds the parser's recursion.
///
/// An object may repeat a member name (RFC 8259 allows it; the first one counts, as it did with
/// Foundation's decoder), unless `rejectingDuplicateKeys` asks otherwise: signed data must not
/// (RFC 7515 §4), and verifyReceipt answers stay readable as they always were.
struct AppleJSONParser: AppleJSONScanning {
    /// Apple's answers nest four deep (response, receipt, in_app, transaction).
    static let maximumDepth = 64

    let bytes: UnsafeBufferPointer<UInt8>
    private let rejectingDuplicateKeys: Bool
    var index = 0
    private var depth = 0
    var tape: [AppleJSONDocument.Node] = []
    private var members: [AppleJSONDocument.Member] = []
    /// Members of the objects being read, innermost last; moved to `members` when an object ends.
    private var openMembers: [AppleJSONDocument.Member] = []
    /// Slots the member tables' probes stepped past, and keys compared byte for byte: the work of
    /// building the tables and finding duplicate names, which stays linear in the members.
    private(set) var tableSteps = 0
    /// Decoded strings that had escapes; appended to the document's text after the input.
    var decoded: [UInt8] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>, rejectingDuplicateKeys: Bool) {
        self.bytes = bytes
        self.rejectingDuplicateKeys = rejectingDuplicateKeys
        // About one node per eight bytes in Apple's answers; one allocation instead of a dozen.
        tape.reserveCapacity(bytes.count / 8 + 4)
        members.reserveCapacity(bytes.count / 16 + 4)
        openMembers.reserveCapacity(64)
    }

    static func parse(_ data: Data) throws(AppleJSONSyntaxError) -> AppleJSONValue {
        // One memcpy: `Array(data)` went through Data's generic collection path, a tenth of the decoding.
        try parse(data.withUnsafeBytes { [UInt8]($0) })
    }

    /// - Parameter rejectingDuplicateKeys: an object naming a member twice is `.duplicateKey`.
    static func parse(_ input: [UInt8], rejectingDuplicateKeys: Bool = false) throws(AppleJSONSyntaxError)
        -> AppleJSONValue
    {
        try parseCountingSteps(input, rejectingDuplicateKeys: rejectingDuplicateKeys).value
    }

    /// `parse`, and its `tableSteps`.
    static func parseCountingSteps(_ input: [UInt8], rejectingDuplicateKeys: Bool = false)
        throws(AppleJSONSyntaxError) -> (value: AppleJSONValue, tableSteps: Int)
    {
        guard input.count < AppleJSONDocument.maximumTextCount else {
            throw AppleJSONSyntaxError(reason: .tooLarge, offset: AppleJSONDocument.maximumTextCount)
        }
        var text = input
        let parsed = text.withUnsafeBufferPointer { bytes in
            Result { () throws(AppleJSONSyntaxError) in
                var parser = AppleJSONParser(bytes, rejectingDuplicateKeys: rejectingDuplicateKeys)
                try parser.document()
                return (parser.tape, parser.members, parser.decoded, parser.tableSteps)
            }
        }
        let (tape, members, decoded, tableSteps) = try parsed.get()
        // Only when there is something to add: appending, even nothing, copies `text` while the
        // caller still holds `input`.
        if !decoded.isEmpty { text.append(contentsOf: decoded) }
        return (AppleJSONDocument(text: text, tape: tape, members: members).root, tableSteps)
    }

    // MARK: - Grammar

    private mutating func document() throws(AppleJSONSyntaxError) {
        try value()
        skipWhitespace()
        guard index == bytes.count else { throw failure(.trailingData) }
    }

    private mutating func value() throws(AppleJSONSyntaxError) {
        skipWhitespace()
        guard index < bytes.count else { throw failure(.unexpectedEnd) }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            let (start, count) = try string()
            tape.append(.init(kind: .string, start: start, count: count))
        case UInt8(ascii: "{"):
            try object()
        case UInt8(ascii: "["):
            try array()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            try number()
            tape.append(.init(kind: .number, start: start, count: index - start))
        case UInt8(ascii: "t"):
            try literal("true")
            tape.append(.init(kind: .true))
        case UInt8(ascii: "f"):
            try literal("false")
            tape.append(.init(kind: .false))
        case UInt8(ascii: "n"):
            try literal("null")
            tape.append(.init(kind: .null))
        default:
            throw failure(.unexpectedByte)
        }
    }

    private mutating func object() throws(AppleJSONSyntaxError) {
        let header = try enterContainer(.object)
        let firstMember = openMembers.count
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            try leaveObject(header, firstMember: firstMember)
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw failure(.unexpectedEnd) }
            guard bytes[index] == UInt8(ascii: "\"") else { throw failure(.unexpectedByte) }
            let member = try key()
            openMembers.append(member)
            skipWhitespace()
            guard index < bytes.count else { throw failure(.unexpectedEnd) }
            guard bytes[index] == UInt8(ascii: ":") else { throw failure(.unexpectedByte) }
            index += 1
            try value()
            if try endOfMember(closing: UInt8(ascii: "}")) {
                try leaveObject(header, firstMember: firstMember)
                return
            }
        }
    }

    private mutating func array() throws(AppleJSONSyntaxError) {
        let header = try enterContainer(.array)
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            leaveContainer(header)
            return
        }
        while true {
            try value()
            if try endOfMember(closing: UInt8(ascii: "]")) {
                leaveContainer(header)
                return
            }
        }
    }

    /// Consumes the opening bracket at `index` and puts the container's node on the tape;
    /// returns where, for `leaveContainer`.
    private mutating func enterContainer(_ kind: AppleJSONDocument.Node.Kind) throws(AppleJSONSyntaxError) -> Int {
        guard depth < Self.maximumDepth else { throw failure(.tooDeep) }
        depth += 1
        index += 1
        tape.append(.init(kind: kind))
        return tape.count - 1
    }

    private mutating func leaveContainer(_ header: Int) {
        depth -= 1
        tape[header].span = tape.count - header - 1
    }

    /// Builds the object's member table from its members (the top of `openMembers`), each name
    /// once: a repeated name lies on the probe path of its first occurrence, where it is found and
    /// refused, or left out of the table (the first counts; `members` still lists every one).
    ///
    /// Linear for any keys. The cheap fingerprints of keys made to share length and ends are all
    /// equal, and their probes would grow with the square of the members (a 256 KiB payload took
    /// half a second). Past a budget of probes no honest object comes near, the table is built again
    /// over `keyedFingerprint`, which no input can aim at.
    private mutating func leaveObject(_ header: Int, firstMember: Int) throws(AppleJSONSyntaxError) {
        let count = openMembers.count - firstMember
        let size = count == 0 ? 0 : max(4, (2 * count).nextPowerOf2)
        let start = members.count
        members.append(contentsOf: repeatElement(.empty, count: size))
        if try !fillTable(start: start, size: size, firstMember: firstMember, budget: 4 * count + 16) {
            for slot in start..<(start + size) { members[slot] = .empty }
            for position in firstMember..<openMembers.count {
                let fingerprint = keyBytes(tape[openMembers[position].key]) {
                    AppleJSONDocument.keyedFingerprint(UnsafeRawBufferPointer($0))
                }
                openMembers[position].fingerprint = fingerprint
            }
            _ = try fillTable(start: start, size: size, firstMember: firstMember, budget: .max)
            tape[header].keyedTable = true
        }
        openMembers.removeSubrange(firstMember...)
        tape[header].start = start
        tape[header].count = size
        leaveContainer(header)
    }

    /// Puts the members from `firstMember` into the empty table at `start`; false, leaving it half
    /// filled, when the probes step past more than `budget` slots.
    private mutating func fillTable(start: Int, size: Int, firstMember: Int, budget: Int)
        throws(AppleJSONSyntaxError) -> Bool
    {
        var steps = 0
        defer { tableSteps += steps }
        nextMember: for member in openMembers[firstMember...] {
            var slot = AppleJSONDocument.slot(member.fingerprint, size: size)
            while members[start + slot].key >= 0 {
                let other = members[start + slot]
                if other.fingerprint == member.fingerprint {
                    steps += 1
                    if sameKey(other.key, member.key) {
                        guard !rejectingDuplicateKeys else {
                            throw AppleJSONSyntaxError(reason: .duplicateKey, offset: tape[member.key].start)
                        }
                        continue nextMember
                    }
                }
                steps += 1
                guard steps <= budget else { return false }
                slot = (slot + 1) & (size - 1)
            }
            members[start + slot] = member
        }
        return true
    }

    /// Whether the keys at tape positions `first` and `second` are the same text (each in the
    /// input, or in `decoded` when it had escapes: `"a"` and `"\u0061"` are one name).
    private func sameKey(_ first: Int, _ second: Int) -> Bool {
        let (one, two) = (tape[first], tape[second])
        guard one.count == two.count else { return false }
        return keyBytes(one) { one in keyBytes(two) { two in one.elementsEqual(two) } }
    }

    private func keyBytes<Result>(_ node: AppleJSONDocument.Node, _ body: (UnsafeBufferPointer<UInt8>) -> Result)
        -> Result
    {
        withText(start: node.start, count: node.count, body)
    }

    /// A member name, put on the tape; returns its entry for the object's member table.
    private mutating func key() throws(AppleJSONSyntaxError) -> AppleJSONDocument.Member {
        let (start, count) = try string()
        let fingerprint = withText(start: start, count: count) {
            AppleJSONDocument.fingerprint(UnsafeRawBufferPointer($0))
        }
        tape.append(.init(kind: .string, start: start, count: count))
        return AppleJSONDocument.Member(fingerprint: fingerprint, key: tape.count - 1)
    }
}

extension Int {
    /// The smallest power of two at least `self` (which must be positive).
    fileprivate var nextPowerOf2: Int {
        1 << (Int.bitWidth - (self - 1).leadingZeroBitCount)
    }
}
