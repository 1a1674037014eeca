import Foundation
import Testing

@testable import AppStoreReceipts

/// The one JSON string escaper, each style's bytes written out: the request, the token, `inspect` and
/// the simulator compare or print these bytes, so a style must not drift.
@Suite struct JSONStringTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let encoder: String
        let terminal: String
        let lineBreaks: String
        let hexOnly: String
        var testDescription: String { encoder }
    }

    static let cases: [Case] = [
        Case(text: "", encoder: #""""#, terminal: #""""#, lineBreaks: #""""#, hexOnly: #""""#),
        Case(
            text: "plain+/=base64", encoder: #""plain+/=base64""#, terminal: #""plain+/=base64""#,
            lineBreaks: #""plain+/=base64""#, hexOnly: #""plain+/=base64""#),
        Case(
            text: #"say "hi" \ bye"#, encoder: #""say \"hi\" \\ bye""#, terminal: #""say \"hi\" \\ bye""#,
            lineBreaks: #""say \"hi\" \\ bye""#, hexOnly: #""say \"hi\" \\ bye""#),
        Case(
            text: "a\nb\rc\td", encoder: #""a\nb\rc\td""#, terminal: #""a\nb\rc\td""#,
            lineBreaks: #""a\nb\rc\td""#, hexOnly: #""a\u000ab\u000dc\u0009d""#),
        Case(
            text: "\u{08}\u{0C}", encoder: #""\b\f""#, terminal: #""\b\f""#, lineBreaks: #""\u0008\u000c""#,
            hexOnly: #""\u0008\u000c""#),
        Case(
            text: "\u{00}\u{01}\u{1B}\u{1F}", encoder: #""\u0000\u0001\u001b\u001f""#,
            terminal: #""\u0000\u0001\u001b\u001f""#, lineBreaks: #""\u0000\u0001\u001b\u001f""#,
            hexOnly: #""\u0000\u0001\u001b\u001f""#),
        Case(
            text: "del\u{7F}", encoder: "\"del\u{7F}\"", terminal: #""del\u007f""#, lineBreaks: "\"del\u{7F}\"",
            hexOnly: "\"del\u{7F}\""),
        Case(
            text: "a\u{2028}b\u{2029}c", encoder: "\"a\u{2028}b\u{2029}c\"", terminal: #""a\u2028b\u2029c""#,
            lineBreaks: "\"a\u{2028}b\u{2029}c\"", hexOnly: "\"a\u{2028}b\u{2029}c\""),
        // Neighbours of U+2028 in UTF-8 (E2 80 A7, E2 80 AA) stay as they are.
        Case(
            text: "\u{2027}\u{202A}", encoder: "\"\u{2027}\u{202A}\"", terminal: "\"\u{2027}\u{202A}\"",
            lineBreaks: "\"\u{2027}\u{202A}\"", hexOnly: "\"\u{2027}\u{202A}\""),
        Case(
            text: "Grüße, 日本, 🍎\n", encoder: #""Grüße, 日本, 🍎\n""#, terminal: #""Grüße, 日本, 🍎\n""#,
            lineBreaks: #""Grüße, 日本, 🍎\n""#, hexOnly: #""Grüße, 日本, 🍎\u000a""#),
        Case(
            text: "/slash/ stays", encoder: #""/slash/ stays""#, terminal: #""/slash/ stays""#,
            lineBreaks: #""/slash/ stays""#, hexOnly: #""/slash/ stays""#),
    ]

    @Test("each style writes its bytes", arguments: cases)
    func eachStyle(_ example: Case) {
        #expect(JSONString.literal(example.text, style: .encoder) == example.encoder)
        #expect(JSONString.literal(example.text, style: .terminal) == example.terminal)
        #expect(JSONString.literal(example.text, style: .lineBreaks) == example.lineBreaks)
        #expect(JSONString.literal(example.text, style: .hexOnly) == example.hexOnly)
    }

    @Test("append adds to what is there; literal is append's bytes", arguments: cases)
    func appendMatchesLiteral(_ example: Case) {
        var bytes = Array("[".utf8)
        JSONString.append(example.text, to: &bytes, style: .encoder)
        #expect(bytes == Array(("[" + example.encoder).utf8))
    }

    @Test("every style reads back as the text it wrote", arguments: cases)
    func readsBack(_ example: Case) throws {
        for style in [JSONString.Style.encoder, .terminal, .lineBreaks, .hexOnly] {
            let literal = JSONString.literal(example.text, style: style)
            let decoded = try JSONDecoder().decode(String.self, from: Data(literal.utf8))
            #expect(decoded == example.text)
        }
    }
}
