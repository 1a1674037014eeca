/// Why `AppleJSONParser` rejected a document, and at which byte.
///
/// Never shown to users as such: `VerifyReceiptResponse.decode` turns every one of them into
/// `VerifyReceiptDecodingError.malformedJSON`. The reason and offset are for tests and fuzzing.
struct AppleJSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        /// The document ends inside a value: cut off in transit.
        case unexpectedEnd
        /// A byte that cannot start or continue what came before.
        case unexpectedByte
        /// A raw control character (below U+0020) inside a string; JSON requires an escape.
        case controlCharacterInString
        /// A backslash followed by something other than `" \ / b f n r t u`.
        case invalidEscape
        /// `\u` without four hex digits, or a surrogate without its partner.
        case invalidUnicodeEscape
        /// String bytes that are not UTF-8.
        case invalidUTF8
        /// A number outside RFC 8259's grammar (`01`, `1.`, `-`, `1e`).
        case invalidNumber
        /// More nested arrays and objects than `AppleJSONParser.maximumDepth`.
        case tooDeep
        /// More than whitespace after the top-level value.
        case trailingData
        /// A document of `AppleJSONDocument.maximumTextCount` bytes or more (two gigabytes), whose
        /// offsets the tape cannot hold; the offset is that limit.
        case tooLarge
        /// An object names a member twice, when the caller asked for unique names (signed data).
        case duplicateKey
    }

    var reason: Reason
    /// Offset of the offending byte from the start of the document.
    var offset: Int

    var description: String { "invalid JSON at byte \(offset): \(reason)" }
}
