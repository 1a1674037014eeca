import AppStoreReceipts
import Foundation
import Testing
import TestSupport

/// CPU time of decoding one typical answer, new decoder against the JSONDecoder-based one; prints
/// numbers and asserts nothing about speed.
///
/// Off by default: `JSON_BENCH=1 swift test -c release --filter VerifyReceiptDecodeBenchmark`.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["JSON_BENCH"] != nil))
struct VerifyReceiptDecodeBenchmark {
    static let iterations = 20_000

    /// Process CPU seconds, so other load on the machine does not count.
    static func cpuSeconds() -> Double {
        Double(clock()) / Double(CLOCKS_PER_SEC)
    }

    static func measure(_ label: String, bytes: Int, _ decode: () -> VerifyReceiptResponse?) -> Double {
        for _ in 0..<500 { _ = decode() }
        let started = cpuSeconds()
        var transactions = 0
        for _ in 0..<iterations { transactions &+= decode()?.allTransactions.count ?? 0 }
        let microseconds = (cpuSeconds() - started) / Double(iterations) * 1e6
        print("bench: \(label): \(iterations) decodes of \(bytes) bytes, \(String(format: "%.1f", microseconds)) µs each"
            + " (\(transactions / iterations) transactions each)")
        return microseconds
    }

    @Test func typicalAnswer() throws {
        let answer = Data(SimulatorAnswers.typical())
        let response = try VerifyReceiptResponse.decode(answer)
        #expect(try LegacyVerifyReceiptDecoder.decode(answer) == response)
        print("bench: typical answer: \(answer.count) bytes, \(response.receipt?.inApp.count ?? 0) in_app, "
            + "\(response.latestReceiptInfo.count) latest_receipt_info, \(response.pendingRenewalInfo.count) pending_renewal_info, "
            + "latest_receipt \(response.latestReceipt?.utf8.count ?? 0) bytes")
        let old = Self.measure("JSONDecoder (before)", bytes: answer.count) { try? LegacyVerifyReceiptDecoder.decode(answer) }
        let new = Self.measure("AppleJSONParser (after)", bytes: answer.count) { try? VerifyReceiptResponse.decode(answer) }
        print("bench: \(String(format: "%.1f", old / new))x less CPU per answer")
        if let corpus = Conformance.isAvailable ? try? Conformance.file(
            "responses/alexalok/Valid_Sandbox_Consumable_And_Active_Subscription_Excluding_Old_Transactions.json") : nil {
            _ = Self.measure("JSONDecoder, Apple's sandbox answer", bytes: corpus.count) { try? LegacyVerifyReceiptDecoder.decode(corpus) }
            _ = Self.measure("AppleJSONParser, Apple's sandbox answer", bytes: corpus.count) { try? VerifyReceiptResponse.decode(corpus) }
        }
    }
}
