/// A reply's headers: parsed (URLSession hands them over as a dictionary), or the raw lines libcurl
/// delivered, read on demand.
enum HTTPHeaderFields: Sendable {
    case parsed([String: String])
    case raw([UInt8])

    /// Every `Name: value` line of `block`, names lowercased, values without surrounding blanks; the
    /// first of repeated names wins, lines without a colon are ignored.
    static func parse(_ block: [UInt8]) -> [String: String] {
        var headers: [String: String] = [:]
        forEachField(in: block) { name, value in
            let key = String(decoding: name.lazy.map(lowercased), as: UTF8.self)
            if headers[key] == nil { headers[key] = String(decoding: value, as: UTF8.self) }
            return true
        }
        return headers
    }

    /// The value of the first line named `lowercasedName` (compared without regard to ASCII case).
    static func value(of lowercasedName: String, in block: [UInt8]) -> String? {
        var found: String?
        let wanted = Array(lowercasedName.utf8)
        forEachField(in: block) { name, value in
            guard name.count == wanted.count, zip(name, wanted).allSatisfy({ lowercased($0) == $1 }) else {
                return true
            }
            found = String(decoding: value, as: UTF8.self)
            return false
        }
        return found
    }

    /// Calls `body` with each line's name and trimmed value until it returns false.
    private static func forEachField(in block: [UInt8], _ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Bool) {
        var lineStart = block.startIndex
        while lineStart < block.endIndex {
            let lineEnd = block[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? block.endIndex
            let line = block[lineStart..<lineEnd]
            lineStart = lineEnd + 1
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            var start = colon + 1
            var end = line.endIndex
            while start < end, isBlank(line[start]) { start += 1 }
            while end > start, isBlank(line[end - 1]) { end -= 1 }
            guard body(line[..<colon], line[start..<end]) else { return }
        }
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }

    private static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
}
