import AppStoreReceipts
import Foundation

/// The `AppleBackend` over the App Store Server API (CONTRACT §9): per user, not per row. One
/// customer's rows usually share one history, so the user's first row that names a transaction is
/// looked up (Get Transaction History v2, every page), every other row whose id that history holds is
/// answered by it, and only rows it does not hold are looked up in turn. Get All Subscription Statuses
/// is asked only when a subscription of the history may be in billing retry or its grace period.
///
/// The verified transactions and renewal info feed the same rules as verifyReceipt's answers
/// (`VerifyReceiptTransaction(SignedTransaction)`): outcomes, flags, truth and corrections are those
/// of §4-§7. A transaction found only in the other environment is `misrouted`; in neither, `invalid`;
/// anything transient, or signed data in an answer that fails verification, `unverified`.
///
/// Threading: `verify` returns at once; a user's walk continues on the executor with each answer and
/// is touched by one thread at a time.
public final class ServerAPIBackend: AppleBackend {
    private let client: ServerAPIClient
    private let context: ReceiptOutcomeContext
    private let signedData: SignedDataVerifier
    private let asOf: Date
    /// The bundle id asked about when a row names none (`bid` is required).
    private let defaultBundleID: String

    /// How far back an expired subscription may still be in billing retry (Apple retries for up to 60
    /// days): older ones need no status request.
    static let billingRetryWindow: TimeInterval = 60 * 86_400

    public init(
        client: ServerAPIClient, context: ReceiptOutcomeContext, signedData: SignedDataVerifier, asOf: Date,
        defaultBundleID: String
    ) {
        self.client = client
        self.context = context
        self.signedData = signedData
        self.asOf = asOf
        self.defaultBundleID = defaultBundleID
    }

    public func verify(
        _ user: UserWork,
        shouldStop: @escaping @Sendable () -> Bool,
        onTraffic: @escaping @Sendable (AppleTraffic) -> Void,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
        completion: @escaping @Sendable (AppleUserAnswer) -> Void
    ) {
        let keys = user.receipts.map { StoredRowKey.read($0, verifier: signedData, context: context) }
        let walk = UserWalk(
            backend: self, user: user, keys: keys, shouldStop: shouldStop, onTraffic: onTraffic, executor: executor,
            completion: completion)
        walk.next()
    }

    /// One user's rows, and what Apple said about each transaction id they name.
    private final class UserWalk: @unchecked Sendable {
        // Unchecked: handed from thread to thread with each answer, never shared.
        let backend: ServerAPIBackend
        let user: UserWork
        let keys: [StoredRowKey]
        let shouldStop: @Sendable () -> Bool
        let onTraffic: @Sendable (AppleTraffic) -> Void
        let executor: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
        let completion: @Sendable (AppleUserAnswer) -> Void
        /// A history Apple gave, with what the rules read of it.
        struct Found {
            var classification: ReceiptClassification
            var transactions: [VerifyReceiptTransaction]
            var renewalInfo: [VerifyReceiptPendingRenewalInfo]
        }
        enum Resolution {
            case found(Int)
            case notFound(String)
            case unverified(String)
        }
        var histories: [Found] = []
        var resolved: [String: Resolution] = [:]
        /// Requests made for each row's lookups (`recon_results.attempts`).
        var requests: [Int]

        init(
            backend: ServerAPIBackend, user: UserWork, keys: [StoredRowKey], shouldStop: @escaping @Sendable () -> Bool,
            onTraffic: @escaping @Sendable (AppleTraffic) -> Void,
            executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
            completion: @escaping @Sendable (AppleUserAnswer) -> Void
        ) {
            self.backend = backend
            self.user = user
            self.keys = keys
            self.shouldStop = shouldStop
            self.onTraffic = onTraffic
            self.executor = executor
            self.completion = completion
            requests = Array(repeating: 0, count: keys.count)
        }

        /// Looks up the first id no answer covers yet, or finishes.
        func next() {
            guard !shouldStop() else { return finish() }
            for (row, key) in keys.enumerated() {
                guard case .ask(let ids, let hint, let bundleID) = key,
                    let id = ids.first(where: { resolved[$0] == nil })
                else { continue }
                return lookUp(id, row: row, hint: hint, bundleID: bundleID ?? backend.defaultBundleID)
            }
            finish()
        }

        private func lookUp(_ id: String, row: Int, hint: AppStoreEnvironment?, bundleID: String) {
            backend.client.history(
                of: id, bundleID: bundleID, environment: hint ?? backend.context.servedEnvironment, mayHop: true,
                shouldStop: shouldStop, executor: executor
            ) { lookup, traffic in
                self.onTraffic(AppleTraffic(traffic))
                self.requests[row] += traffic.requests
                switch lookup {
                case .configuration(let detail):
                    self.abort(detail)
                case .notFound(let detail), .invalidID(let detail):
                    self.resolved[id] = .notFound(
                        "transaction \(id) is unknown to the App Store Server API (\(detail))")
                    self.next()
                case .unverified(let detail), .gone(_, let detail):
                    // The row is without a verdict now whatever its other ids say (unless one proves it
                    // altered, which a verdict-less answer cannot): they are not asked about.
                    self.resolved[id] = .unverified(detail)
                    if case .ask(let ids, _, _) = self.keys[row] {
                        for other in ids where self.resolved[other] == nil {
                            self.resolved[other] = .unverified(detail)
                        }
                    }
                    self.next()
                case .found(let history, let environment):
                    self.found(history, in: environment, id: id, row: row, bundleID: bundleID)
                }
            }
        }

        /// Records a history (statuses first when a subscription may be in billing retry).
        private func found(
            _ history: ServerAPIHistory, in environment: AppStoreEnvironment, id: String, row: Int, bundleID: String
        ) {
            let transactions = history.transactions.map(VerifyReceiptTransaction.init)
            let ids =
                [id] + history.transactions.flatMap { [$0.transactionID, $0.originalTransactionID] }.compactMap { $0 }
            let classification = backend.classify(
                environment: environment, bundleID: history.transactions.lazy.compactMap(\.bundleID).first,
                transactions: transactions.count)
            guard backend.mayBeInBillingRetry(transactions) else {
                return record(
                    Found(classification: classification, transactions: transactions, renewalInfo: []), for: ids)
            }
            backend.client.statuses(
                of: id, bundleID: bundleID, environment: environment, shouldStop: shouldStop, executor: executor
            ) { lookup, traffic in
                self.onTraffic(AppleTraffic(traffic))
                self.requests[row] += traffic.requests
                switch lookup {
                case .found(let statuses, _):
                    self.record(
                        Found(
                            classification: classification, transactions: transactions,
                            renewalInfo: ServerAPIBackend.renewalInfo(statuses)),
                        for: ids)
                case .configuration(let detail):
                    self.abort(detail)
                case .notFound(let detail), .unverified(let detail), .invalidID(let detail), .gone(_, let detail):
                    // Without the status a grace period cannot be told from a lapse: no verdict.
                    for id in ids { self.resolved[id] = .unverified("subscription statuses: \(detail)") }
                    self.next()
                }
            }
        }

        private func record(_ found: Found, for ids: [String]) {
            histories.append(found)
            for id in ids where resolved[id] == nil { resolved[id] = .found(histories.count - 1) }
            next()
        }

        private func abort(_ detail: String) {
            completion(
                AppleUserAnswer(receipts: [], configurationAbort: ConfigurationAbort(problem: .serverAPI(detail))))
        }

        /// Every row's answer from what its ids resolved to: a row naming a transaction Apple never made is
        /// `invalid` (an altered receipt); one with an id left without a verdict is `unverified`; else its
        /// histories' outcome, with their transactions and renewal facts.
        private func finish() {
            var answers: [ReceiptAnswer] = []
            for (row, key) in keys.enumerated() {
                switch key {
                case .decided(let answer):
                    answers.append(answer)
                case .ask(let ids, _, let bundleID):
                    let resolutions = ids.map { resolved[$0] }
                    // A stopped run leaves rows it never asked about out of the answer.
                    guard resolutions.allSatisfy({ $0 != nil }) else { continue }
                    answers.append(answer(row, resolutions.compactMap { $0 }, bundleID: bundleID))
                }
            }
            completion(AppleUserAnswer(receipts: answers))
        }

        private func answer(_ row: Int, _ resolutions: [Resolution], bundleID: String?) -> ReceiptAnswer {
            var classification: ReceiptClassification?
            var transactions: [VerifyReceiptTransaction] = []
            var renewalInfo: [VerifyReceiptPendingRenewalInfo] = []
            var used: Set<Int> = []
            for resolution in resolutions {
                switch resolution {
                case .notFound(let detail):
                    classification = ReceiptClassification(
                        outcome: .invalid, outcomeFlag: .invalidReceipt, detail: detail)
                case .unverified(let detail) where classification?.outcome != .invalid:
                    classification = ReceiptClassification(
                        outcome: .unverified, outcomeFlag: .unverified, detail: detail)
                case .unverified:
                    break
                case .found(let index):
                    guard used.insert(index).inserted else { continue }
                    transactions += histories[index].transactions
                    renewalInfo += histories[index].renewalInfo
                }
            }
            let outcome = classification ?? histories[used.min() ?? 0].classification
            let counted = outcome.outcome == .valid || outcome.outcome == .misrouted || outcome.isBundleMismatch
            return ReceiptAnswer(
                receipt: UserReceipt(
                    receiptID: user.receipts[row].id, classification: outcome,
                    transactions: counted ? transactions : [], pendingRenewalInfo: counted ? renewalInfo : [],
                    source: .serverAPI),
                attempts: requests[row], bundleID: bundleID)
        }
    }

    /// A found history's outcome: `bundle_mismatch` for another app, `misrouted` when found only in the
    /// other environment, else `valid`.
    func classify(environment: AppStoreEnvironment, bundleID: String?, transactions: Int) -> ReceiptClassification {
        if let mismatch = ReceiptOutcomeRule.bundleIDRule(bundleID, accepted: context.acceptedBundleIDs) {
            return ReceiptClassification(
                outcome: .invalid, outcomeFlag: .bundleMismatch, environment: environment, detail: mismatch)
        }
        if environment == context.servedEnvironment.other {
            return ReceiptClassification(
                outcome: .misrouted, outcomeFlag: ReceiptOutcomeRule.misroutedFlag(served: context.servedEnvironment),
                environment: environment,
                detail:
                    "found by the App Store Server API in \(environment) only; this database serves \(context.servedEnvironment)"
            )
        }
        return ReceiptClassification(
            outcome: .valid, environment: environment,
            detail: "App Store Server API: \(transactions) transaction(s) in \(environment)")
    }

    /// Whether an auto-renewable subscription of `transactions` ended recently enough to be in billing
    /// retry or its grace period (then only the subscription status tells access from a lapse).
    func mayBeInBillingRetry(_ transactions: [VerifyReceiptTransaction]) -> Bool {
        var latest: [String: Date] = [:]
        for transaction in transactions where transaction.cancellationDate == nil {
            guard let expires = transaction.expiresDate else { continue }
            let chain = transaction.originalTransactionID ?? transaction.transactionID ?? ""
            latest[chain] = max(latest[chain] ?? expires, expires)
        }
        return latest.values.contains { $0 <= asOf && asOf.timeIntervalSince($0) <= Self.billingRetryWindow }
    }

    /// The renewal facts the rules read: a grace period only for a subscription Apple says is in it
    /// (status 4); billing retry without grace (status 3) keeps no access.
    static func renewalInfo(_ statuses: ServerAPIStatuses) -> [VerifyReceiptPendingRenewalInfo] {
        statuses.subscriptions.compactMap { subscription in
            guard let signed = subscription.renewalInfo else { return nil }
            var info = VerifyReceiptPendingRenewalInfo(signed)
            if subscription.status != 4 { info.gracePeriodExpiresDate = nil }
            if info.originalTransactionID == nil { info.originalTransactionID = subscription.originalTransactionID }
            return info
        }
    }
}

extension AppleTraffic {
    /// The traffic of one App Store Server API lookup.
    init(_ traffic: ServerAPITraffic) {
        self.init(
            requests: traffic.requests, retries: traffic.retries, throttled: traffic.throttled, hops: traffic.hops,
            latencies: traffic.latencies,
            requestsByEndpoint: Dictionary(
                uniqueKeysWithValues: traffic.requestsByEndpoint.map { ($0.key.rawValue, $0.value) }))
    }
}
