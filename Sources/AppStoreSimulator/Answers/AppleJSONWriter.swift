import AppStoreReceipts

/// A small streaming JSON writer: keys in the order written (Apple's answers have an order, and tests
/// compare bytes), compact output, no intermediate dictionaries or strings.
///
/// Built for speed because it writes every answer: keys are `StaticString`s copied as bytes, numbers
/// and dates are written digit by digit, and strings without characters to escape are copied whole:
/// several times the answers per second of building `String`s.
///
/// A value type used by one thread at a time.
struct AppleJSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Per open container: whether the next member needs a comma first.
    private var needsComma: [Bool] = []
    private var keyPending = false

    init(capacity: Int = 2048) {
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    mutating func endObject() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    mutating func endArray() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// A member name (plain ASCII, no escaping); the value written next belongs to it.
    mutating func key(_ name: StaticString, suffix: StaticString = "") {
        separate()
        bytes.append(UInt8(ascii: "\""))
        appendStatic(name)
        appendStatic(suffix)
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        keyPending = true
    }

    mutating func string(_ value: String) {
        separate()
        JSONString.append(value, to: &bytes, style: .lineBreaks)
    }

    mutating func number(_ value: Int64) {
        separate()
        appendDecimal(value)
    }

    mutating func bool(_ value: Bool) {
        separate()
        appendStatic(value ? "true" : "false")
    }

    mutating func null() {
        separate()
        appendStatic("null")
    }

    // Convenience members.

    mutating func member(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    mutating func member(_ name: StaticString, literal value: StaticString) {
        key(name)
        separate()
        bytes.append(UInt8(ascii: "\""))
        appendStatic(value)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func member(_ name: StaticString, number value: Int64) {
        key(name)
        number(value)
    }

    /// A number written as a JSON string, as Apple writes most numbers: `"quantity":"1"`.
    mutating func member(_ name: StaticString, quotedNumber value: Int64) {
        key(name)
        separate()
        bytes.append(UInt8(ascii: "\""))
        appendDecimal(value)
        bytes.append(UInt8(ascii: "\""))
    }

    /// `name`, `name_ms` and `name_pst`: Apple's date triple.
    mutating func dateMembers(_ name: StaticString, _ milliseconds: Int64) {
        key(name)
        separate()
        bytes.append(UInt8(ascii: "\""))
        AppleDateText.appendCivil(milliseconds, offsetSeconds: 0, into: &bytes)
        appendStatic(" Etc/GMT\"")
        key(name, suffix: "_ms")
        separate()
        bytes.append(UInt8(ascii: "\""))
        appendDecimal(milliseconds)
        bytes.append(UInt8(ascii: "\""))
        key(name, suffix: "_pst")
        separate()
        bytes.append(UInt8(ascii: "\""))
        AppleDateText.appendCivil(
            milliseconds, offsetSeconds: AppleDateText.pacificOffset(milliseconds: milliseconds), into: &bytes)
        appendStatic(" America/Los_Angeles\"")
    }

    /// Writes the comma before a member or element, except right after a key or an opening bracket.
    private mutating func separate() {
        if keyPending {
            keyPending = false
            return
        }
        guard !needsComma.isEmpty else { return }
        if needsComma[needsComma.count - 1] {
            bytes.append(UInt8(ascii: ","))
        } else {
            needsComma[needsComma.count - 1] = true
        }
    }

    private mutating func appendStatic(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func appendDecimal(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(0x30 + magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            bytes.append(contentsOf: buffer[(20 - count)...])
        }
    }
}
