/// JSON objects of one size whose keys follow a pattern: what the bench (`--json-keys`), the tests
/// and the fuzzers' seeds feed the parser to show that its cost does not depend on the keys.
package enum JSONKeyPatterns {
    package enum Pattern: String, CaseIterable, Sendable {
        /// Keys of one length sharing their first and last eight bytes (`transact` … `ion_date`),
        /// differing only in the middle: what made the parser quadratic (issue 35).
        case colliding
        /// Keys of the same length, every byte drawn at random.
        case random
    }

    /// A JSON object of about `bytes` bytes, members `"key":N`, keys 22 bytes long.
    package static func object(_ pattern: Pattern, bytes: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed
        var text: [UInt8] = [UInt8(ascii: "{")]
        var member = 0
        while text.count < bytes - 40 {
            if member > 0 { text.append(UInt8(ascii: ",")) }
            text.append(UInt8(ascii: "\""))
            switch pattern {
            case .colliding:
                let middle = String(member)
                text += Array("transact".utf8) + Array((String(repeating: "0", count: 6 - middle.count) + middle).utf8)
                text += Array("ion_date".utf8)
            case .random:
                for _ in 0..<22 {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    text.append(UInt8(ascii: "a") + UInt8((state >> 33) % 26))
                }
            }
            text += Array("\":\(member)".utf8)
            member += 1
        }
        text.append(UInt8(ascii: "}"))
        return text
    }

    /// Parses `json` as signed data is parsed (duplicate names refused); whether it was an object.
    /// The bench's entry into the module's parser.
    package static func parses(_ json: [UInt8]) -> Bool {
        guard case .object? = try? AppleJSONParser.parse(json, rejectingDuplicateKeys: true) else { return false }
        return true
    }
}
