import Foundation

/// Reads a verifyReceipt answer in one pass, straight into its models: every byte is checked as
/// `AppleJSONParser` checks it (the lexing is shared, `AppleJSONScanning`), but nothing is kept of a
/// member no model reads, and a member a model reads is kept only as where its text is, until its
/// object ends and the model is built from it.
///
/// Why not the document: the answers come by the million, a few dozen purchases each, and the
/// models read each purchase's score of fields once. Building a tape and a member table per object
/// to look each field up again cost more than reading the answer did.
///
/// The answer reads as the document-based models read it (`VerifyReceiptDecoderDifferentialTests`
/// compares the two): the first member of a name counts, names compare by their decoded text, a
/// field in an unexpected shape reads as absent, lists may be a single object, and every syntax error,
/// too deep a nesting or too large a body is `malformedJSON`.
struct VerifyReceiptAnswerReader: AppleJSONScanning {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var decoded: [UInt8] = []
    private var depth = 0
    /// The first value of each key in the objects being read, a row of `rowWidth` slots per level of
    /// nesting (response; receipt or a listed record; a purchase of the receipt's `in_app`). A slot
    /// counts only where its object's `Members.seen` has the key's bit: rows are not cleared.
    private var values: [AppleJSONDocument.Node]
    let keepingLatestReceipt: Bool

    // What the response and its receipt nest, decoded as they are read.
    private(set) var receipt: VerifyReceiptDecodedReceipt?
    private var inApp: [VerifyReceiptTransaction] = []
    private(set) var latestReceiptInfo: [VerifyReceiptTransaction] = []
    private(set) var latestExpiredReceiptInfo: [VerifyReceiptTransaction] = []
    private(set) var pendingRenewalInfo: [VerifyReceiptPendingRenewalInfo] = []

    private static let rowWidth = UInt64.bitWidth
    private static let levels = 3

    /// The objects whose members decode other objects as they are read.
    private enum Container {
        case response, receipt, record
    }

    /// An object read: its row of `values` and the keys it held.
    struct Members {
        let row: Int
        let seen: UInt64
    }

    private init(_ bytes: UnsafeBufferPointer<UInt8>, keepingLatestReceipt: Bool) {
        self.bytes = bytes
        self.keepingLatestReceipt = keepingLatestReceipt
        values = Array(repeating: AppleJSONDocument.Node(kind: .null), count: Self.rowWidth * Self.levels)
    }

    /// Reads `body`, which starts with `{` after whitespace (`VerifyReceiptDecodingError.problemBeforeParsing`).
    static func read(_ body: Data, keepingLatestReceipt: Bool) throws(VerifyReceiptDecodingError)
        -> VerifyReceiptResponse
    {
        // The document's limit, so that both readers refuse the same bodies.
        guard body.count < AppleJSONDocument.maximumTextCount else { throw .malformedJSON(byteCount: body.count) }
        let outcome = body.withUnsafeBytes { raw in
            Result { () throws(AppleJSONSyntaxError) in
                var reader = VerifyReceiptAnswerReader(
                    raw.bindMemory(to: UInt8.self), keepingLatestReceipt: keepingLatestReceipt)
                return try reader.document()
            }
        }
        switch outcome {
        case .success(let response): return try response.get()
        // Cut off in transit, or corrupt.
        case .failure: throw .malformedJSON(byteCount: body.count)
        }
    }

    private mutating func document() throws(AppleJSONSyntaxError) -> Result<
        VerifyReceiptResponse, VerifyReceiptDecodingError
    > {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw failure(.unexpectedByte) }
        let members = try object(.response, row: 0)
        skipWhitespace()
        guard index == bytes.count else { throw failure(.trailingData) }
        return Result { () throws(VerifyReceiptDecodingError) in try response(members) }
    }

    // MARK: - Grammar

    /// The object at `index` (its `{`), the first value of each key it holds kept in `row`.
    private mutating func object(_ container: Container, row: Int) throws(AppleJSONSyntaxError) -> Members {
        try enterContainer()
        var seen: UInt64 = 0
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return Members(row: row, seen: seen)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw failure(.unexpectedEnd) }
            guard bytes[index] == UInt8(ascii: "\"") else { throw failure(.unexpectedByte) }
            let (start, count) = try string()
            let key = withText(start: start, count: count) { VerifyReceiptAnswerKey($0) }
            skipWhitespace()
            guard index < bytes.count else { throw failure(.unexpectedEnd) }
            guard bytes[index] == UInt8(ascii: ":") else { throw failure(.unexpectedByte) }
            index += 1
            if let key, seen & key.bit == 0 {
                seen |= key.bit
                let value = try member(key, of: container, row: row)
                values[row * Self.rowWidth + key.rawValue] = value
            } else {
                _ = try value()
            }
            if try endOfMember(closing: UInt8(ascii: "}")) {
                depth -= 1
                return Members(row: row, seen: seen)
            }
        }
    }

    /// The first value of `key` in an object of `container` in `row`: decoded into the object it
    /// nests when it is one, and in any case the node the field readers read.
    private mutating func member(_ key: VerifyReceiptAnswerKey, of container: Container, row: Int)
        throws(AppleJSONSyntaxError) -> AppleJSONDocument.Node
    {
        skipWhitespace()
        guard index < bytes.count else { throw failure(.unexpectedEnd) }
        switch (container, key) {
        case (.response, .receipt) where bytes[index] == UInt8(ascii: "{"):
            inApp = []
            let members = try object(.receipt, row: row + 1)
            receipt = decodedReceipt(members, inApp: inApp)
            return AppleJSONDocument.Node(kind: .object)
        case (.response, .latestReceiptInfo):
            latestReceiptInfo = try records(row: row + 1) { $0.transaction($1) }
        case (.response, .latestExpiredReceiptInfo):
            latestExpiredReceiptInfo = try records(row: row + 1) { $0.transaction($1) }
        case (.response, .pendingRenewalInfo):
            pendingRenewalInfo = try records(row: row + 1) { $0.renewal($1) }
        case (.receipt, .inApp):
            inApp = try records(row: row + 1) { $0.transaction($1) }
        default:
            return try value()
        }
        // Read by no field reader.
        return AppleJSONDocument.Node(kind: .array)
    }

    /// A list Apple may send as an array or, in the iOS 6 era, as a single object; elements that are
    /// not objects are skipped, and anything else is an empty list.
    private mutating func records<Record>(row: Int, _ build: (borrowing Self, Members) -> Record)
        throws(AppleJSONSyntaxError) -> [Record]
    {
        switch bytes[index] {
        case UInt8(ascii: "{"):
            let members = try object(.record, row: row)
            return [build(self, members)]
        case UInt8(ascii: "["):
            try enterContainer()
            var records: [Record] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return records
            }
            while true {
                skipWhitespace()
                guard index < bytes.count else { throw failure(.unexpectedEnd) }
                if bytes[index] == UInt8(ascii: "{") {
                    let members = try object(.record, row: row)
                    records.append(build(self, members))
                } else {
                    _ = try value()
                }
                if try endOfMember(closing: UInt8(ascii: "]")) {
                    depth -= 1
                    return records
                }
            }
        default:
            _ = try value()
            return []
        }
    }

    /// Any value, checked and passed over: a string or number as where its text is, a container as
    /// its kind alone.
    private mutating func value() throws(AppleJSONSyntaxError) -> AppleJSONDocument.Node {
        skipWhitespace()
        guard index < bytes.count else { throw failure(.unexpectedEnd) }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            let (start, count) = try string()
            return AppleJSONDocument.Node(kind: .string, start: start, count: count)
        case UInt8(ascii: "{"):
            try enterContainer()
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
            } else {
                repeat {
                    skipWhitespace()
                    guard index < bytes.count else { throw failure(.unexpectedEnd) }
                    guard bytes[index] == UInt8(ascii: "\"") else { throw failure(.unexpectedByte) }
                    _ = try string()
                    skipWhitespace()
                    guard index < bytes.count else { throw failure(.unexpectedEnd) }
                    guard bytes[index] == UInt8(ascii: ":") else { throw failure(.unexpectedByte) }
                    index += 1
                    _ = try value()
                } while try !endOfMember(closing: UInt8(ascii: "}"))
            }
            depth -= 1
            return AppleJSONDocument.Node(kind: .object)
        case UInt8(ascii: "["):
            try enterContainer()
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
            } else {
                repeat { _ = try value() } while try !endOfMember(closing: UInt8(ascii: "]"))
            }
            depth -= 1
            return AppleJSONDocument.Node(kind: .array)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            try number()
            return AppleJSONDocument.Node(kind: .number, start: start, count: index - start)
        case UInt8(ascii: "t"):
            try literal("true")
            return AppleJSONDocument.Node(kind: .true)
        case UInt8(ascii: "f"):
            try literal("false")
            return AppleJSONDocument.Node(kind: .false)
        case UInt8(ascii: "n"):
            try literal("null")
            return AppleJSONDocument.Node(kind: .null)
        default:
            throw failure(.unexpectedByte)
        }
    }

    /// Consumes the opening bracket at `index`; the caller consumes the closing one and leaves.
    private mutating func enterContainer() throws(AppleJSONSyntaxError) {
        guard depth < AppleJSONParser.maximumDepth else { throw failure(.tooDeep) }
        depth += 1
        index += 1
    }

    // MARK: - Fields

    /// The value of `key` in `members` as `read` reads it; nil when the object did not hold it.
    func field<Value>(_ key: VerifyReceiptAnswerKey, in members: Members, _ read: (AppleJSONFieldValue) -> Value?)
        -> Value?
    {
        guard members.seen & key.bit != 0 else { return nil }
        let node = values[members.row * Self.rowWidth + key.rawValue]
        guard node.kind == .string || node.kind == .number else {
            return read(AppleJSONFieldValue(kind: node.kind, text: UnsafeBufferPointer(start: nil, count: 0)))
        }
        return withText(start: node.start, count: node.count) { read(AppleJSONFieldValue(kind: node.kind, text: $0)) }
    }

    /// Whether the object held `key`, even as `null`.
    func holds(_ key: VerifyReceiptAnswerKey, in members: Members) -> Bool {
        members.seen & key.bit != 0
    }
}
