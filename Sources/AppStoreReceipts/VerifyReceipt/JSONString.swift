/// A JSON string literal (RFC 8259 §7): quote, backslash and control characters escaped, everything
/// else copied as UTF-8. The one escaper of every JSON the package writes by hand: the verifyReceipt
/// request, the Server API token's claims, `inspect`'s output and the simulator's answers.
///
/// The RFC lets a writer spell a control character either way (`\n` or `\u000a`) and escape more
/// than it must; each writer made its choice long ago and its bytes are compared (requests' dedupe,
/// `inspect`'s output, the simulator's answers), so the choices are kept as a `Style`.
package enum JSONString {
    package struct Style: Sendable {
        /// The control characters written in their two-character form; the others as `\u00xx`.
        fileprivate let shortForms: ShortForms
        /// Whether DEL and the JavaScript line separators (U+2028, U+2029) are `\u`-escaped too: legal
        /// JSON as they are, but they confuse terminals and `eval`-style consumers.
        fileprivate let escapesInvisibles: Bool
        /// Whether `/` is written `\/`, as `JSONEncoder` does unless told `.withoutEscapingSlashes`.
        fileprivate var escapesSlashes = false

        /// As `JSONEncoder` writes with `.withoutEscapingSlashes`: `\b \f \n \r \t`.
        package static let encoder = Style(shortForms: .all, escapesInvisibles: false)
        /// As `JSONEncoder` writes by default: `encoder`'s, plus `/` as `\/` (stored evidence).
        package static let encoderEscapingSlashes = Style(
            shortForms: .all, escapesInvisibles: false, escapesSlashes: true)
        /// `encoder`'s, plus DEL, U+2028 and U+2029 as `\u`: for text read on a terminal.
        package static let terminal = Style(shortForms: .all, escapesInvisibles: true)
        /// `\n \r \t` only; `\b` and `\f` as `\u0008` and `\u000c`.
        package static let lineBreaks = Style(shortForms: .lineBreaksAndTab, escapesInvisibles: false)
        /// Every control character as `\u00xx`.
        package static let hexOnly = Style(shortForms: .none, escapesInvisibles: false)
    }

    fileprivate enum ShortForms {
        case none, lineBreaksAndTab, all

        /// The letter after the backslash of `byte`'s two-character form, if this style writes one.
        func letter(for byte: UInt8) -> UInt8? {
            switch (self, byte) {
            case (.none, _): nil
            case (_, 0x0A): UInt8(ascii: "n")
            case (_, 0x0D): UInt8(ascii: "r")
            case (_, 0x09): UInt8(ascii: "t")
            case (.all, 0x08): UInt8(ascii: "b")
            case (.all, 0x0C): UInt8(ascii: "f")
            default: nil
            }
        }
    }

    /// Appends `text` as a quoted JSON string. Text with nothing to escape (base64, ids, secrets) is
    /// copied whole, tested eight bytes at a time: the request writes a receipt through here.
    package static func append(_ text: String, to bytes: inout [UInt8], style: Style) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            if !ByteWords.containsJSONStop(UnsafeRawBufferPointer(utf8))
                && !(style.escapesInvisibles && containsInvisible(utf8))
                && !(style.escapesSlashes && utf8.contains(UInt8(ascii: "/")))
            {
                bytes.append(contentsOf: utf8)
            } else {
                appendEscaped(utf8, to: &bytes, style: style)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `text` as a quoted JSON string.
    package static func literal(_ text: String, style: Style) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        append(text, to: &bytes, style: style)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8], style: Style) {
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes += [UInt8(ascii: "\\"), byte]
            case UInt8(ascii: "/") where style.escapesSlashes:
                bytes += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                if let letter = style.shortForms.letter(for: byte) {
                    bytes += [UInt8(ascii: "\\"), letter]
                } else {
                    appendHex(UInt16(byte), to: &bytes)
                }
            case 0x7F where style.escapesInvisibles:
                appendHex(0x7F, to: &bytes)
            // U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8.
            case 0xE2
            where style.escapesInvisibles && index + 1 < utf8.count && utf8[index] == 0x80
                && (utf8[index + 1] == 0xA8 || utf8[index + 1] == 0xA9):
                appendHex(0x2000 | UInt16(utf8[index + 1] - 0xA8 + 0x28), to: &bytes)
                index += 2
            default:
                bytes.append(byte)
            }
        }
    }

    /// `\u` and four lowercase hex digits.
    private static func appendHex(_ value: UInt16, to bytes: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u")]
        for shift in stride(from: 12, through: 0, by: -4) { bytes.append(hex[Int(value >> UInt16(shift)) & 0xF]) }
    }

    private static func containsInvisible(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        utf8.indices.contains { index in
            utf8[index] == 0x7F
                || (utf8[index] == 0xE2 && index + 2 < utf8.count && utf8[index + 1] == 0x80
                    && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9))
        }
    }
}
