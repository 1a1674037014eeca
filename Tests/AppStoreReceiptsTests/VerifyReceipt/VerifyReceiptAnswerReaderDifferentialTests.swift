import Foundation
import TestSupport
import Testing

@testable import AppStoreReceipts

/// `VerifyReceiptResponse.decode` (the one-pass `VerifyReceiptAnswerReader`) against the document
/// decoder it replaced (`TapeVerifyReceiptDecoder`): the same outcome, response or error, on the
/// conformance answers, every simulator answer, every lenient shape, answers minted at random from
/// the models' own names, and byte mutations and truncations of real answers.
@Suite struct VerifyReceiptAnswerReaderDifferentialTests {
    typealias Outcome = Result<VerifyReceiptResponse, VerifyReceiptDecodingError>

    static func both(_ body: Data, keepingLatestReceipt: Bool = true) -> (reader: Outcome, tape: Outcome) {
        (
            Result { () throws(VerifyReceiptDecodingError) in
                try VerifyReceiptResponse.decode(body, keepingLatestReceipt: keepingLatestReceipt)
            },
            Result { () throws(VerifyReceiptDecodingError) in
                try TapeVerifyReceiptDecoder.decode(body, keepingLatestReceipt: keepingLatestReceipt)
            }
        )
    }

    static func expectSame(_ body: [UInt8], _ comment: @autoclosure () -> String = "") {
        for keeping in [true, false] {
            let (reader, tape) = both(Data(body), keepingLatestReceipt: keeping)
            if reader != tape {
                Issue.record(
                    "\(comment()) \(String(decoding: body.prefix(200), as: UTF8.self)): \(reader) != \(tape)")
            }
        }
    }

    @Test(
        "every conformance answer reads as the document decoder reads it",
        .enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func conformance() throws {
        let files =
            Conformance.files(in: "responses/alexalok", withExtension: "json")
            + Conformance.files(in: "responses/venice", withExtension: "json")
        #expect(files.count == 11)
        for file in files {
            let body = try Data(contentsOf: file)
            Self.expectSame(Array(body), file.lastPathComponent)
            #expect(throws: Never.self) { try VerifyReceiptResponse.decode(body) }
        }
    }

    @Test("every simulator answer reads as the document decoder reads it")
    func simulatorAnswers() {
        for answer in SimulatorAnswers.all { Self.expectSame(answer) }
        #expect(SimulatorAnswers.all.count > 800)
    }

    /// Shapes aimed at what the reader does differently: nested values it decodes as it reads them
    /// (first member, or not an object), names escaped or repeated, the models' names where no model
    /// reads them, and nesting at the limit.
    static let shapes: [String] = [
        #"{"status":0,"receipt":"x","receipt":{"bundle_id":"b"}}"#,
        #"{"status":0,"receipt":{"bundle_id":"a"},"receipt":{"bundle_id":"b"}}"#,
        #"{"status":0,"receipt":null,"receipt":{"in_app":[{"transaction_id":"1"}]}}"#,
        #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1"}],"in_app":[{"transaction_id":"2"}]}}"#,
        #"{"status":0,"receipt":{"in_app":7,"in_app":[{"transaction_id":"2"}],"transaction_id":"3"}}"#,
        #"{"status":0,"receipt":{"in\u005fapp":[{"transaction_id":"1"}],"b\u0069d":"x"}}"#,
        #"{"status":0,"latest_receipt_info":[{"transaction_id":"1"}],"latest_receipt_info":[{"transaction_id":"2"}]}"#,
        #"{"status":0,"latest_receipt_info":null,"latest_receipt_info":[{"transaction_id":"2"}]}"#,
        #"{"status":0,"pending_renewal_info":[],"pending_renewal_info":[{"product_id":"p"}],"auto_renew_status":1}"#,
        #"{"status":0,"pending_renewal_info":[7],"auto_renew_status":"1","product_id":"q","product_id":"r"}"#,
        #"{"status":0,"latest_receipt_info":[{"in_app":[{"transaction_id":"9"}],"receipt":{"bid":"x"},"transaction_id":"1"}]}"#,
        #"{"status":0,"receipt":{"in_app":[{"in_app":[{"transaction_id":"9"}],"latest_receipt_info":[{}]}]}}"#,
        #"{"status":0,"receipt":{"latest_receipt_info":[{"transaction_id":"9"}],"receipt":{"bid":"y"},"status":5}}"#,
        #"{"in_app":[{"transaction_id":"1"}],"status":0,"transaction_id":"2","bid":"z"}"#,
        #"{"status":0,"x":{"status":1,"receipt":{"bid":"b"},"latest_receipt_info":[{"transaction_id":"1"}]}}"#,
        #"{"status":"\u0030","environment":"\u0053andbox","latest_receipt":"a\/b"}"#,
        #"{"status":0,"latest_receipt_info":[{"transaction_id":"\u0031","product_id":"\ud83d\ude00","quantity":"\u0032"}]}"#,
        #"{"status":0,"latest_receipt_info":[{"purchase_date_ms":"1","purchase_date_ms":"2","purchase_date":"3"}]}"#,
        #"{"status":0,"latest_receipt_info":[{"expires_date_ms":null,"expires_date":null,"expires_date_formatted":"5"}]}"#,
        #"{"status":0,"latest_receipt_info":{"transaction_id":"1"},"latest_expired_receipt_info":{"transaction_id":"2"}}"#,
        #"{"status":21006,"latest_expired_receipt_info":[{"product_id":"a","original_transaction_id":"o"}],"expiration_intent":1}"#,
        #"{"status":0,"receipt":{"bid":"b","product_id":"p","original_transaction_id":"o"},"latest_expired_receipt_info":[{"product_id":"q"}],"is_in_billing_retry_period":true}"#,
        #"{"":0,"status":0,"statu":1,"statuss":2,"STATUS":3}"#,
        #"{"status" : 0 , "receipt" : { "in_app" : [ { "transaction_id" : "1" } , 5 ] } }"#,
        #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1"},]}}"#,
        #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1"}}}"#,
        #"{"status":0,"receipt":{"in_app":[{"transaction_id":"1"]}}"#,
        #"{"status":0,"receipt":{"in_app":{"transaction_id":"1"]}}"#,
        #"{"status":0,"latest_receipt_info":[{"transaction_id" "1"}]}"#,
        #"{"status":0,"latest_receipt_info":[{"transaction_id":}]}"#,
        #"{"status":0,"latest_receipt_info":[{,}]}"#,
        #"{"status":0,"latest_receipt_info":[,]}"#,
        #"{"status":0,"pending_renewal_info":[{"auto_renew_status":01}]}"#,
        #"{"status":0,"receipt":{"download_id":tru}}"#,
        #"{"status":0,"receipt":{"download_id":nul}}"#,
        #"{"status":0,"receipt":{}} {}"#,
        #"{"status":0,"receipt":{}}}"#,
        #"{"status":0}  x"#,
        #"{"status":0,"receipt":{"in_app":[]},"status":1}"#,
        #"{"status":{"a":1},"status":0}"#,
        #"{"status":[],"receipt":{"in_app":[{}]}}"#,
        #"{"is-retryable":false,"status":21199,"is_retryable":null}"#,
    ]

    @Test("every lenient shape reads as the document decoder reads it")
    func lenientShapes() {
        for shape in Self.shapes + VerifyReceiptDecoderDifferentialTests.shapes {
            Self.expectSame(Array(shape.utf8))
        }
        for body in VerifyReceiptDecoderDifferentialTests.brokenButReadBefore {
            Self.expectSame(body)
            Self.expectSame([0xEF, 0xBB, 0xBF] + body)
        }
    }

    @Test("nesting up to the limit reads; one more level is refused by both, wherever it is")
    func depthLimit() {
        let limit = AppleJSONParser.maximumDepth
        // The levels the answer itself opens before the nested value, in each place the reader reads.
        let places: [(prefix: String, suffix: String, levels: Int)] = [
            (#"{"status":0,"x":"#, "}", 1),
            (#"{"status":0,"receipt":"#, "}", 1),
            (#"{"status":0,"receipt":{"in_app":[{"transaction_id":"#, "}]}}", 4),
            (#"{"status":0,"receipt":{"in_app":"#, "}}", 2),
            (#"{"status":0,"latest_receipt_info":[{"quantity":"#, "}]}", 3),
            (#"{"status":0,"pending_renewal_info":"#, "}", 1),
        ]
        for place in places {
            for depth in (limit - place.levels - 2)...(limit - place.levels + 2) {
                for (open, close) in [("[", "]"), (#"{"a":"#, "}")] {
                    let nested =
                        String(repeating: open, count: depth) + "1" + String(repeating: close, count: depth)
                    let body = Array((place.prefix + nested + place.suffix).utf8)
                    Self.expectSame(body, "depth \(depth) in \(place.prefix)")
                    let accepted = (try? VerifyReceiptResponse.decode(Data(body))) != nil
                    #expect(accepted == (depth + place.levels <= limit), "depth \(depth) in \(place.prefix)")
                }
            }
        }
    }

    @Test("every truncation and single-byte corruption of real answers reads as the document decoder reads it")
    func mutations() {
        let replacements: [UInt8] = [
            0x00, 0x20, 0x22, 0x2C, 0x2D, 0x30, 0x3A, 0x5B, 0x5C, 0x5D, 0x6E, 0x7B, 0x7D, 0xC3,
        ]
        var answers = SimulatorAnswers.sample(count: 3, maximumSize: 3_000)
        answers.append(
            Array(
                #"{"status":21006,"receipt":{"bid":"b","transaction_id":"7","expires_date":"1550386188000","is_trial_period":"false"},"auto_renew_status":1,"latest_receipt":"QUJD"}"#
                    .utf8))
        var decoded = 0
        for answer in answers {
            for length in 0..<answer.count { Self.expectSame(Array(answer.prefix(length)), "cut at \(length)") }
            for offset in answer.indices {
                var without = answer
                without.remove(at: offset)
                Self.expectSame(without, "byte \(offset) removed")
                for replacement in replacements where answer[offset] != replacement {
                    var corrupt = answer
                    corrupt[offset] = replacement
                    Self.expectSame(corrupt, "byte \(offset) -> \(replacement)")
                    if (try? VerifyReceiptResponse.decode(Data(corrupt))) != nil { decoded += 1 }
                }
            }
        }
        #expect(decoded > 1_000)
    }

    @Test("answers minted at random from the models' names read as the document decoder reads them")
    func minted() {
        var generator = MintedAnswers(seed: 38)
        var decoded = 0
        for _ in 0..<3_000 {
            let body = generator.answer()
            Self.expectSame(body)
            if (try? VerifyReceiptResponse.decode(Data(body))) != nil { decoded += 1 }
        }
        // A fair share have a readable status; the others compare their errors.
        #expect(decoded > 500)
    }
}

/// Random answers built from the names the models read (and a few they do not), each name's value
/// in any spelling: repeated names, lists as objects or scalars, escapes, nulls, odd numbers.
private struct MintedAnswers {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    static let names: [String] =
        VerifyReceiptAnswerKey.allCases.map { key in
            let name = key.name
            let utf8 = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            return String(decoding: utf8, as: UTF8.self)
        } + ["purchase_date_pst", "expires_date_pst", "original_purchase_date_pst", "unknown", ""]

    static let scalars: [String] =
        VerifyReceiptFastPathTests.spellings + [
            #""0""#, "0", "21007", #""21100""#, "null", #""Production""#, #""\u0030""#, #""x\"y""#, "-1.5e3", "1E2",
        ]

    mutating func name() -> String {
        let name = Self.names[next(Self.names.count)]
        // Sometimes the name spelled with an escape: it is the same name.
        guard next(8) == 0, let first = name.unicodeScalars.first else { return "\"\(name)\"" }
        let escaped = String(format: "\\u%04x", first.value) + String(name.unicodeScalars.dropFirst())
        return "\"\(escaped)\""
    }

    mutating func value(depth: Int) -> String {
        switch next(depth > 3 ? 3 : 8) {
        case 0, 1, 2: return Self.scalars[next(Self.scalars.count)]
        case 3, 4: return object(depth: depth + 1)
        case 5, 6:
            let count = next(4)
            return "[" + (0..<count).map { _ in value(depth: depth + 1) }.joined(separator: ",") + "]"
        default: return "{}"
        }
    }

    mutating func object(depth: Int) -> String {
        let count = next(depth == 0 ? 14 : 10)
        return "{" + (0..<count).map { _ in name() + ":" + value(depth: depth) }.joined(separator: ",") + "}"
    }

    mutating func answer() -> [UInt8] {
        var text = object(depth: 0)
        if next(2) == 0 { text = #"{"status":\#(Self.scalars[next(Self.scalars.count)]),"# + text.dropFirst() }
        if text.hasSuffix(",}") { text = String(text.dropLast(2)) + "}" }
        return Array(text.utf8)
    }
}
