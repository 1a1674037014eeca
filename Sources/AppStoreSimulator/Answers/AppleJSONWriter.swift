/// A small streaming JSON writer: keys in the order written (Apple's answers have an order, and
/// tests compare bytes), compact output, no intermediate dictionaries.
///
/// A value type used by one thread at a time.
struct AppleJSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Per open container: whether the next member needs a comma first.
    private var needsComma: [Bool] = []

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

    /// A member name; the value written next belongs to it.
    mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        // The value follows the colon with no comma.
        keyPending = true
    }

    mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
    }

    mutating func number(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    // Convenience members.

    mutating func member(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    mutating func member(_ name: String, number value: Int64) {
        key(name)
        number(value)
    }

    /// `name`, `name_ms` and `name_pst`, Apple's date triple.
    mutating func dateMembers(_ name: String, _ milliseconds: Int64) {
        member(name, AppleDateText.gmt(milliseconds))
        member(name + "_ms", String(milliseconds))
        member(name + "_pst", AppleDateText.pacific(milliseconds))
    }

    private var keyPending = false

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

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
            case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
