import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// CPU time of the job's per-receipt decoding: the answer (new decoder against the
/// JSONDecoder-based one), `allTransactions`, and the local summary taken before asking Apple.
/// Prints numbers and asserts nothing about speed.
///
/// Off by default: `JSON_BENCH=1 swift test -c release --filter VerifyReceiptDecodeBenchmark`.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["JSON_BENCH"] != nil))
struct VerifyReceiptDecodeBenchmark {
    static let iterations = Int(ProcessInfo.processInfo.environment["JSON_BENCH_ITERATIONS"] ?? "") ?? 20_000
    /// Timed rounds per figure; the least is reported, as other load on the shared machine only adds.
    static let rounds = 5

    /// Process CPU seconds, so other load on the machine does not count.
    static func cpuSeconds() -> Double {
        Double(clock()) / Double(CLOCKS_PER_SEC)
    }

    /// The least CPU µs per call of `body` over `rounds` rounds of `calls` calls each.
    static func microseconds(calls: Int, _ body: () -> Int) -> (microseconds: Double, checksum: Int) {
        var checksum = body()
        var best = Double.infinity
        for _ in 0..<rounds {
            let started = cpuSeconds()
            for _ in 0..<calls { checksum &+= body() }
            best = min(best, (cpuSeconds() - started) / Double(calls) * 1e6)
        }
        return (best, checksum)
    }

    static func measure(_ label: String, bytes: Int, _ decode: () -> VerifyReceiptResponse?) -> Double {
        let (microseconds, transactions) = Self.microseconds(calls: Self.iterations) {
            decode()?.allTransactions.count ?? 0
        }
        print(
            "bench: \(label): decode of \(bytes) bytes + allTransactions, \(String(format: "%.1f", microseconds)) µs each"
                + " (\(transactions / (Self.iterations * Self.rounds + 1)) transactions each)")
        return microseconds
    }

    @Test func typicalAnswer() throws {
        let answer = Data(SimulatorAnswers.typical())
        let response = try VerifyReceiptResponse.decode(answer)
        #expect(try LegacyVerifyReceiptDecoder.decode(answer) == response)
        print(
            "bench: typical answer: \(answer.count) bytes, \(response.receipt?.inApp.count ?? 0) in_app, "
                + "\(response.latestReceiptInfo.count) latest_receipt_info, \(response.pendingRenewalInfo.count) pending_renewal_info, "
                + "latest_receipt \(response.latestReceipt?.utf8.count ?? 0) bytes")
        let old = Self.measure("JSONDecoder (before)", bytes: answer.count) {
            try? LegacyVerifyReceiptDecoder.decode(answer)
        }
        let new = Self.measure("AppleJSONParser (after)", bytes: answer.count) {
            try? VerifyReceiptResponse.decode(answer)
        }
        print("bench: \(String(format: "%.1f", old / new))x less CPU per answer")
        if let corpus = Conformance.isAvailable
            ? try? Conformance.file(
                "responses/alexalok/Valid_Sandbox_Consumable_And_Active_Subscription_Excluding_Old_Transactions.json")
            : nil
        {
            _ = Self.measure("JSONDecoder, Apple's sandbox answer", bytes: corpus.count) {
                try? LegacyVerifyReceiptDecoder.decode(corpus)
            }
            _ = Self.measure("AppleJSONParser, Apple's sandbox answer", bytes: corpus.count) {
                try? VerifyReceiptResponse.decode(corpus)
            }
        }
    }

    /// The three per-receipt paths of the job's profile, each alone: the typical answer's decode
    /// and its `allTransactions`, and `decodeSummary` over the typical answer's receipt and over
    /// every receipt of the simulated world (all scenario kinds, errors included).
    @Test func jobPaths() throws {
        let answer = Data(SimulatorAnswers.typical())
        let decode = Self.microseconds(calls: Self.iterations) {
            (try? VerifyReceiptResponse.decode(answer))?.latestReceiptInfo.count ?? 0
        }
        print(
            "bench: path: VerifyReceiptResponse.decode, typical \(answer.count)-byte answer: \(String(format: "%.2f", decode.microseconds)) µs"
        )

        let valid = SimulatorAnswers.sample(count: 40).map { Data($0) }
        let all = Self.microseconds(calls: Self.iterations / valid.count) {
            valid.reduce(0) { $0 &+ ((try? VerifyReceiptResponse.decode($1))?.latestReceiptInfo.count ?? 0) }
        }
        print(
            "bench: path: VerifyReceiptResponse.decode, mean over \(valid.count) answers of every size: "
                + "\(String(format: "%.2f", all.microseconds / Double(valid.count))) µs")

        let response = try VerifyReceiptResponse.decode(answer)
        let merge = Self.microseconds(calls: Self.iterations) { response.allTransactions.count }
        print(
            "bench: path: allTransactions of the typical answer (\(merge.checksum / (Self.iterations * Self.rounds + 1)) transactions): "
                + "\(String(format: "%.2f", merge.microseconds)) µs")

        let receipts = SimulatorAnswers.receiptData
        let typicalReceipt = receipts.filter { $0.utf8.count <= 4_000 }.max { $0.utf8.count < $1.utf8.count }!
        let one = Self.microseconds(calls: Self.iterations) {
            (try? LocalReceiptDecoder.decodeSummary(base64: typicalReceipt))?.bundleID?.utf8.count ?? 0
        }
        print(
            "bench: path: decodeSummary, a \(typicalReceipt.utf8.count)-byte receipt: \(String(format: "%.2f", one.microseconds)) µs"
        )
        let world = Self.microseconds(calls: max(1, Self.iterations / receipts.count)) {
            receipts.reduce(0) {
                $0 &+ ((try? LocalReceiptDecoder.decodeSummary(base64: $1))?.bundleID?.utf8.count ?? 1)
            }
        }
        print(
            "bench: path: decodeSummary, mean over the world's \(receipts.count) receipts (every kind): "
                + "\(String(format: "%.2f", world.microseconds / Double(receipts.count))) µs")
    }
}
