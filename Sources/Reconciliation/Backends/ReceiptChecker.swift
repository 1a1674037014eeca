import AppStoreReceipts
import Foundation
import Synchronization

/// What the job learned about one `receipt_data`: the local facts, and Apple's answer when Apple was asked.
public struct ReceiptCheck: Sendable {
    public let local: LocalReceiptCheck
    /// The bundle id the receipt itself carries, when it decodes locally (recorded for receipts
    /// Apple did not answer). Only this is kept of the local decoding: checks are cached.
    public let localBundleID: String?
    /// nil when the data was ruled on locally and never sent.
    public let report: VerificationReport?
}

/// Checks receipt data: locally first (empty, not base64 and Xcode receipts are decided without
/// Apple), then with verifyReceipt. Identical `receipt_data` is checked once per run: answers are
/// kept in a bounded cache keyed by the data itself (see `Key`).
///
/// Threading: `check` is called from every lane at once (the reader's and the workers' threads); the
/// cache sits behind a `Mutex`, and no network call happens while holding it.
final class ReceiptChecker: Sendable {
    /// The receipt data and a word-at-a-time hash of it. Equal hashes are confirmed by comparing the
    /// data, so a receipt crafted to collide with another user's cannot be handed that user's
    /// answer; and the hash need not be `Hasher`'s SipHash, which over a whole receipt cost more than
    /// building the request (docs/benchmarks.md). The cache keeps its entries' data alive, so its
    /// memory is bounded by its entry count times the receipts' size.
    private struct Key: Hashable {
        let data: String
        let hash: UInt64

        init(_ data: String) {
            var data = data
            hash = data.withUTF8 { ByteWords.hash(UnsafeRawBufferPointer($0)) }
            self.data = data
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.hash == rhs.hash && lhs.data == rhs.data }
    }

    private let client: VerifyReceiptClient
    private let cache = Mutex<(entries: [Key: ReceiptCheck], order: [Key], head: Int)>(
        (entries: [:], order: [], head: 0))
    private let capacity: Int

    /// - Parameter capacity: answers kept for deduplication. Decoded answers can weigh tens of
    ///   kilobytes, so this stays small; duplicates are usually one user's own repeated rows.
    init(client: VerifyReceiptClient, capacity: Int = 1000) {
        self.client = client
        self.capacity = capacity
    }

    /// The check of `data`, at once when it needs no request (a cached answer, or a local ruling), else
    /// nil: the answer then goes to `completion`, on `executor`, once Apple answered.
    /// - Parameters:
    ///   - shouldStop: passed to the client: no more retries once the run is stopping.
    ///   - onAppleTraffic: called once per answer actually fetched from Apple (not for cache hits).
    ///   - executor, completion: as in `VerifyReceiptClient.start`.
    func check(
        _ data: String,
        shouldStop: @escaping @Sendable () -> Bool,
        onAppleTraffic: @escaping @Sendable (VerificationReport) -> Void,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
        completion: @escaping @Sendable (ReceiptCheck) -> Void
    ) -> ReceiptCheck? {
        let key = Key(data)
        if let hit = cache.withLock({ $0.entries[key] }) { return hit }

        // The summary (no in-app purchases) is all the job needs before asking Apple: the
        // environment (Xcode) and the bundle id, without decoding every purchase.
        let local = Self.localCheck { () throws(ReceiptDecodingError) in
            try LocalReceiptDecoder.decodeSummary(base64: data)
        }
        guard ReceiptOutcomeRule.localRuling(local.check) != nil else {
            client.start(receiptData: data, shouldStop: shouldStop, executor: executor) { [self] answer in
                onAppleTraffic(answer)
                completion(answered(data, key: key, local: local, answer: answer))
            }
            return nil
        }
        let result = ReceiptCheck(local: local.check, localBundleID: local.bundleID, report: nil)
        remember(result, for: key)
        return result
    }

    /// The check of `data` once Apple answered, remembered.
    private func answered(
        _ data: String, key: Key, local: (check: LocalReceiptCheck, bundleID: String?),
        answer: VerificationReport
    ) -> ReceiptCheck {
        var local = local
        var report = answer
        // `latest_receipt` is receipt data the job never uses: not kept in memory or the cache. (The
        // job's client never decodes it; writing only when present spares copying the answer's box.)
        if report.response?.latestReceipt != nil { report.response?.latestReceipt = nil }
        report.latencies = []
        // A 21002 that persisted is `invalid` only if the receipt fails local decoding
        // (CONTRACT §5): that needs the whole decoding, purchases included.
        if report.appleStatus == VerifyReceiptStatus.malformedReceiptData.rawValue,
            local.check == LocalReceiptCheck.decodes
        {
            local = Self.localCheck { () throws(ReceiptDecodingError) in try LocalReceiptDecoder.decode(base64: data) }
        }
        let result = ReceiptCheck(local: local.check, localBundleID: local.bundleID, report: report)
        remember(result, for: key)
        return result
    }

    private static func localCheck(_ decode: () throws(ReceiptDecodingError) -> LocalReceipt)
        -> (check: LocalReceiptCheck, bundleID: String?)
    {
        do {
            let receipt = try decode()
            return (receipt.isXcodeTestReceipt ? .xcodeReceipt : .decodes, receipt.bundleID)
        } catch {
            switch error {
            case .emptyInput: return (.empty, nil)
            case .notBase64: return (.notBase64, nil)
            default: return (.doesNotDecode, nil)
            }
        }
    }

    private func remember(_ result: ReceiptCheck, for key: Key) {
        cache.withLock { cache in
            guard cache.entries[key] == nil else { return }
            cache.entries[key] = result
            cache.order.append(key)
            if cache.order.count - cache.head > capacity {
                cache.entries[cache.order[cache.head]] = nil
                cache.head += 1
                if cache.head > capacity {
                    cache.order.removeFirst(cache.head)
                    cache.head = 0
                }
            }
        }
    }
}
