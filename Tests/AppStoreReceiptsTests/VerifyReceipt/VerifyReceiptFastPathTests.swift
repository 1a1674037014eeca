import Foundation
import TestSupport
import Testing

@testable import AppStoreReceipts

/// The decoding fast paths against what they stand in for: the lenient field readers' byte-level
/// readings against `AppleJSONScalar`, which defines every spelling; `allTransactions` against
/// the dictionary-of-transactions merge it replaced; and whole answers, intact and with every
/// single-byte corruption and truncation, against the JSONDecoder-based decoder.
@Suite struct VerifyReceiptFastPathTests {
    /// Every spelling a scalar field can arrive in, common and odd.
    static let spellings: [String] = [
        #""1566378703000""#, "1566378703000", #""0""#, "0", #""1""#, "1", #""2""#, "2", "-0", "-1", #""-1""#, #""+1""#,
        #""007""#, #""""#, #"" ""#, #"" 1 ""#, #""1 ""#, "1.0", "1e3", "0e5", "1.5", #""1.0""#, #""1e3""#,
        #""123456789012345678""#, "123456789012345678", #""1234567890123456789""#, "1234567890123456789",
        #""9223372036854775807""#, "9223372036854775808", #""99999999999999999999""#, "99999999999999999999",
        "true", "false", #""true""#, #""false""#, #""TRUE""#, #"" true ""#, #""yes""#, #""no""#, #""tru""#, #""1x""#,
        "null", "{}", "[]", #"{"a":1}"#, "[1]", #""2020-06-22 13:57:04 Etc/GMT""#, #""2020-06-22T13:57:04Z""#,
        #""2020-06-22 06:57:04 America/Los_Angeles""#, #""next tuesday""#, #""caf\u00e9""#, #""\u0031""#, #""1\u0030""#,
        #""é""#, #""com.example.pro.monthly""#, #""FAMILY_SHARED""#, #""12345678""#, #""123456789""#,
    ]

    static func object(_ json: String) throws -> AppleJSONObject {
        guard case .object(let object) = try AppleJSONParser.parse(Array(json.utf8)) else { throw CancellationError() }
        return object
    }

    /// `appleDate` as it read before its fast paths: every key through `AppleJSONScalar`.
    static func referenceDate(_ json: AppleJSONObject, milliseconds: String, text: [String]) -> Date? {
        if let scalar = json.appleScalar(milliseconds), let date = AppleJSONDate.fromMilliseconds(scalar) {
            return date
        }
        for key in text {
            if let scalar = json.appleScalar(key), let date = AppleJSONDate.fromAnySpelling(scalar) { return date }
        }
        return nil
    }

    @Test("each field reader reads every spelling as AppleJSONScalar does", arguments: spellings)
    func fieldReaders(_ spelling: String) throws {
        let json = try Self.object(#"{"k":\#(spelling)}"#)
        let scalar = json.appleScalar("k")
        #expect(json.appleString("k") == scalar?.stringValue)
        #expect(json.appleInt("k") == scalar?.int64Value.flatMap { Int(exactly: $0) })
        #expect(json.appleBool("k") == scalar?.boolValue)
        #expect(json.appleString("absent") == nil && json.appleInt("absent") == nil && json.appleBool("absent") == nil)
        for other in Self.spellings {
            // Every pairing of a milliseconds key and a text key, each present or not.
            let pair = try Self.object(#"{"ms":\#(spelling),"t":\#(other),"u":\#(spelling)}"#)
            #expect(
                pair.appleDate(milliseconds: "ms", text: "t")
                    == Self.referenceDate(pair, milliseconds: "ms", text: ["t"]))
            #expect(
                pair.appleDate(milliseconds: "x", text: "t", "u")
                    == Self.referenceDate(pair, milliseconds: "x", text: ["t", "u"]))
            #expect(
                pair.appleDate(milliseconds: "x", text: "y", "t")
                    == Self.referenceDate(pair, milliseconds: "x", text: ["y", "t"]))
        }
    }

    /// `allTransactions` as it was first written: a dictionary of whole transactions, merged
    /// with `merging(_:)`.
    static func referenceAllTransactions(_ response: VerifyReceiptResponse) -> [VerifyReceiptTransaction] {
        var order: [String] = []
        var byID: [String: VerifyReceiptTransaction] = [:]
        var withoutID: [VerifyReceiptTransaction] = []
        let sources = [
            response.latestReceiptInfo, response.latestExpiredReceiptInfo, response.receipt?.inApp ?? [],
            response.receipt?.transaction.map { [$0] } ?? [],
        ]
        for transaction in sources.joined() {
            guard let id = transaction.transactionID, !id.isEmpty else {
                withoutID.append(transaction)
                continue
            }
            if let earlier = byID[id] {
                byID[id] = earlier.merging(transaction)
            } else {
                order.append(id)
                byID[id] = transaction
            }
        }
        return order.compactMap { byID[$0] } + withoutID
    }

    static var corpusAnswers: [Data] {
        (Conformance.files(in: "responses/alexalok", withExtension: "json")
            + Conformance.files(in: "responses/venice", withExtension: "json")).compactMap { try? Data(contentsOf: $0) }
    }

    @Test("allTransactions merges as before on every simulator, corpus and lenient-shape answer")
    func allTransactions() {
        let bodies =
            SimulatorAnswers.all.map { Data($0) } + Self.corpusAnswers
            + VerifyReceiptDecoderDifferentialTests.shapes.map { Data($0.utf8) }
        var compared = 0
        for body in bodies {
            guard let response = try? VerifyReceiptResponse.decode(body) else { continue }
            #expect(response.allTransactions == Self.referenceAllTransactions(response))
            compared += 1
        }
        #expect(compared > 800)
    }

    @Test("merging and allTransactions: duplicates fill gaps in order, anonymous ones stay apart")
    func mergingEdgeCases() throws {
        let response = try verifyReceiptResponse(
            #"""
            {"status":0,
             "latest_receipt_info":[{"transaction_id":"1","product_id":"a"},{"product_id":"anon"},{"transaction_id":"1","quantity":"2","product_id":"b"}],
             "latest_expired_receipt_info":[{"transaction_id":"2"},{"transaction_id":"1","is_upgraded":"true"}],
             "receipt":{"in_app":[{"transaction_id":"","product_id":"empty"},{"transaction_id":"2","product_id":"c","quantity":"3"}]}}
            """#)
        #expect(response.allTransactions == Self.referenceAllTransactions(response))
        #expect(response.allTransactions.map(\.productID) == ["a", "c", "anon", "empty"])
        #expect(response.allTransactions.first?.quantity == 2)
        #expect(response.allTransactions.first?.isUpgraded == true)
    }

    /// Every single-byte corruption and every truncation of a few small answers decodes as the
    /// JSONDecoder-based decoder reads it, except where the old decoder read around broken JSON
    /// that is now refused (see `VerifyReceiptDecoderDifferentialTests.nowRefused`).
    @Test("corrupt and truncated answers decode as before")
    func corruptions() {
        let answers =
            SimulatorAnswers.valid.filter { $0.count < 2_500 }.prefix(2)
            + [
                Array(
                    #"{"status":0,"receipt":{"bid":"b","transaction_id":"7","expires_date":"1550386188000","is_trial_period":"false"},"auto_renew_status":1}"#
                        .utf8)
            ]
        #expect(answers.count == 3)
        var decoded = 0
        for answer in answers {
            var variants: [[UInt8]] = (0..<answer.count).map { Array(answer.prefix($0)) }
            for position in answer.indices {
                // A digit, a letter, a quote: each turns values into other spellings or breaks the JSON.
                for replacement in [UInt8(ascii: "7"), UInt8(ascii: "x"), UInt8(ascii: "\"")]
                where answer[position] != replacement {
                    var variant = answer
                    variant[position] = replacement
                    variants.append(variant)
                }
            }
            for variant in variants {
                let (new, old) = VerifyReceiptDecoderDifferentialTests.both(Data(variant))
                switch new {
                case .success(let response):
                    decoded += 1
                    #expect(new == old, "\(String(decoding: variant, as: UTF8.self))")
                    #expect(response.allTransactions == Self.referenceAllTransactions(response))
                case .failure(.malformedJSON):
                    continue  // refused as a whole; the old decoder may have read around it
                case .failure:
                    #expect(new == old, "\(String(decoding: variant, as: UTF8.self))")
                }
            }
        }
        #expect(decoded > 1_000)
    }
}
