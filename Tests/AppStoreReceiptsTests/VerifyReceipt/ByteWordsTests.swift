import Foundation
import Testing

@testable import AppStoreReceipts

/// The word-at-a-time byte tests against one-byte-at-a-time oracles: a wrong bit trick would let
/// a quote into a request, or a space into "plain" receipt data.
@Suite struct ByteWordsTests {
    static func jsonStopOracle(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
    static func printableOracle(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

    /// Every length from 0 to 40 (whole words and every tail), with every byte value placed at every
    /// position of a base64-like background.
    static func cases() -> [[UInt8]] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var cases: [[UInt8]] = []
        for length in 0...40 {
            let background = (0..<length).map { alphabet[($0 * 7 + length) % alphabet.count] }
            cases.append(background)
            for position in 0..<length {
                for byte in UInt8.min...UInt8.max {
                    var bytes = background
                    bytes[position] = byte
                    cases.append(bytes)
                }
            }
        }
        return cases
    }

    @Test("containsJSONStop and isPrintableASCII agree with byte loops on every byte at every position")
    func agreesWithByteLoops() {
        var disagreements = 0
        var stops = 0
        for bytes in Self.cases() {
            let (hasStop, printable) = bytes.withUnsafeBytes {
                (ByteWords.containsJSONStop($0), ByteWords.isPrintableASCII($0))
            }
            if hasStop != bytes.contains(where: Self.jsonStopOracle) { disagreements += 1 }
            if printable != bytes.allSatisfy(Self.printableOracle) { disagreements += 1 }
            if hasStop { stops += 1 }
        }
        #expect(disagreements == 0)
        // The background alone has no stop; 34 byte values of 256 are stops at each position.
        #expect(stops == (1...40).reduce(0) { $0 + $1 * 34 })
    }

    @Test("two stops in one word, and a flagged byte next to a clean one, are both seen")
    func neighbours() {
        for text in [#"ab"c\d"#, "abcdefg\u{7F}", "\u{FF}abcdefg", "abc defg", "abcdefgh\u{1F}"] {
            let bytes = Array(text.utf8)
            #expect(
                bytes.withUnsafeBytes(ByteWords.containsJSONStop) == bytes.contains(where: Self.jsonStopOracle),
                "\(text)")
            #expect(
                bytes.withUnsafeBytes(ByteWords.isPrintableASCII) == bytes.allSatisfy(Self.printableOracle), "\(text)")
        }
    }

    @Test("the hash depends on every byte and on the length, tails included")
    func hashSeesEveryByte() {
        var seen = Set<UInt64>()
        var inputs = 0
        for length in 0...24 {
            let base = [UInt8](repeating: UInt8(ascii: "A"), count: length)
            seen.insert(base.withUnsafeBytes(ByteWords.hash))
            inputs += 1
            for position in 0..<length {
                var changed = base
                changed[position] = UInt8(ascii: "B")
                seen.insert(changed.withUnsafeBytes(ByteWords.hash))
                inputs += 1
            }
        }
        // Trailing zero bytes must not hash like the shorter input.
        let short: [UInt8] = [1, 2, 3]
        let padded: [UInt8] = [1, 2, 3, 0]
        #expect(short.withUnsafeBytes(ByteWords.hash) != padded.withUnsafeBytes(ByteWords.hash))
        #expect(seen.count == inputs)
    }
}
