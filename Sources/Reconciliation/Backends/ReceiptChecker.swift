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
    /// What the receipt claims, when it was decoded whole already (a 21002 that persisted); nil when
    /// only its summary was (`VerifyReceiptBackend.claimedPurchases` decodes it when needed).
    let claimed: [Purchase]?

    init(local: LocalReceiptCheck, localBundleID: String?, report: VerificationReport?, claimed: [Purchase]? = nil) {
        self.local = local
        self.localBundleID = localBundleID
        self.report = report
        self.claimed = claimed
    }
}

/// What the job knows of receipt data before and after asking Apple: locally first (empty, not base64
/// and Xcode receipts are decided without Apple), then verifyReceipt's answer. Identical
/// `receipt_data` is verified once per run: answers are kept in a bounded cache keyed by the data
/// itself (see `Key`).
///
/// Threading: called from every lane at once (the reader's and the workers' threads); the cache sits
/// behind a `Mutex`.
final class ReceiptChecker: Sendable {
    /// The receipt data and a word-at-a-time hash of it. Equal hashes are confirmed by comparing the
    /// data, so a receipt crafted to collide with another user's cannot be handed that user's
    /// answer; and the hash need not be `Hasher`'s SipHash, which over a whole receipt cost more than
    /// building the request (docs/benchmarks.md). The cache keeps its entries' data alive, so its
    /// memory is bounded by its entry count times the receipts' size.
    fileprivate struct Key: Hashable, Sendable {
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

    private let cache = Mutex<(entries: [Key: ReceiptCheck], order: [Key], head: Int)>(
        (entries: [:], order: [], head: 0))
    private let capacity: Int

    /// - Parameter capacity: answers kept for deduplication. Decoded answers can weigh tens of
    ///   kilobytes, so this stays small; duplicates are usually one user's own repeated rows.
    init(capacity: Int = 1000) {
        self.capacity = capacity
    }

    /// What the job knows of `data` without asking Apple.
    enum Lookup {
        /// A cached answer, or a local ruling: no request.
        case known(ReceiptCheck)
        /// Apple must be asked; `answered` turns the report into the check.
        case ask(Question)
    }

    /// Receipt data Apple is asked about, with what was learnt of it locally.
    struct Question: Sendable {
        fileprivate let key: Key
        fileprivate let local: (check: LocalReceiptCheck, bundleID: String?)
    }

    func look(_ data: String) -> Lookup {
        let key = Key(data)
        if let hit = cache.withLock({ $0.entries[key] }) { return .known(hit) }

        // The summary (no in-app purchases) is all the job needs before asking Apple: the
        // environment (Xcode) and the bundle id, without decoding every purchase.
        let local = Self.localCheck { () throws(ReceiptDecodingError) in
            try LocalReceiptDecoder.decodeSummary(base64: data)
        }
        guard ReceiptOutcomeRule.localRuling(local.check) != nil else { return .ask(Question(key: key, local: local)) }
        let result = ReceiptCheck(local: local.check, localBundleID: local.bundleID, report: nil)
        remember(result, for: key)
        return .known(result)
    }

    /// The check of the data `question` asked about, once Apple answered, remembered.
    func answered(_ question: Question, report answer: VerificationReport) -> ReceiptCheck {
        var local = question.local
        var report = answer
        // `latest_receipt` is receipt data the job never uses: not kept in memory or the cache. (The
        // job's client never decodes it; writing only when present spares copying the answer's box.)
        if report.response?.latestReceipt != nil { report.response?.latestReceipt = nil }
        // A 21002 that persisted is `invalid` only if the receipt fails local decoding
        // (CONTRACT §5): that needs the whole decoding, purchases included.
        var claimed: [Purchase]?
        if report.appleStatus == VerifyReceiptStatus.malformedReceiptData.rawValue,
            local.check == LocalReceiptCheck.decodes
        {
            let data = question.key.data
            var whole: LocalReceipt?
            local = Self.localCheck { () throws(ReceiptDecodingError) in
                let receipt = try LocalReceiptDecoder.decode(base64: data)
                whole = receipt
                return receipt
            }
            // Such a receipt ends `invalid` or `unverified`, whose answer names what it claims: read from
            // this decoding rather than a second one.
            claimed = whole?.claimedPurchases ?? []
        }
        let result = ReceiptCheck(local: local.check, localBundleID: local.bundleID, report: report, claimed: claimed)
        remember(result, for: question.key)
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
