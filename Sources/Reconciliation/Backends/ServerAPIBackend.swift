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
        let keys = user.receipts.map { row in
            StoredRowKey.read(row) { row in
                let answer = VerifyReceiptBackend.signedAnswer(row, verifier: signedData, context: context)
                return (answer, answer.receipt.transactions.first?.transactionID)
            }
        }
        let walk = UserWalk(
            backend: self, user: user, keys: keys, shouldStop: shouldStop, onTraffic: onTraffic, executor: executor,
            completion: completion)
        walk.next()
    }

    /// One user's rows: the answers so far, and which rows still wait for a lookup.
    private final class UserWalk: @unchecked Sendable {
        // Unchecked: handed from thread to thread with each answer, never shared.
        let backend: ServerAPIBackend
        let user: UserWork
        let keys: [StoredRowKey]
        let shouldStop: @Sendable () -> Bool
        let onTraffic: @Sendable (AppleTraffic) -> Void
        let executor: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
        let completion: @Sendable (AppleUserAnswer) -> Void
        var answers: [ReceiptAnswer?]

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
            answers = keys.map { key in
                if case .decided(let answer) = key { return answer }
                return nil
            }
        }

        /// Looks up the first row still unanswered, or finishes.
        func next() {
            guard !shouldStop(), let index = answers.firstIndex(where: { $0 == nil }),
                case .ask(let id, let hint, let bundleID, _) = keys[index]
            else { return finish() }
            let bundle = bundleID ?? backend.defaultBundleID
            backend.client.history(
                of: id, bundleID: bundle, environment: hint ?? backend.context.servedEnvironment, mayHop: true,
                shouldStop: shouldStop, executor: executor
            ) { lookup, traffic in
                self.onTraffic(AppleTraffic(traffic))
                switch lookup {
                case .configuration(let detail):
                    self.completion(
                        AppleUserAnswer(
                            receipts: [], configurationAbort: ConfigurationAbort(problem: .serverAPI(detail))))
                case .notFound(let detail):
                    self.answerRows(
                        where: { $0 == id }, traffic: traffic,
                        ReceiptClassification(
                            outcome: .invalid, outcomeFlag: .invalidReceipt,
                            detail: "transaction \(id) is unknown to the App Store Server API: \(detail)"))
                    self.next()
                case .unverified(let detail):
                    self.answerRows(
                        where: { $0 == id }, traffic: traffic,
                        ReceiptClassification(outcome: .unverified, outcomeFlag: .unverified, detail: detail))
                    self.next()
                case .found(let history, let environment):
                    self.found(history, in: environment, id: id, bundleID: bundle, traffic: traffic)
                }
            }
        }

        /// The history answers its rows; statuses first when a subscription may be in billing retry.
        private func found(
            _ history: ServerAPIHistory, in environment: AppStoreEnvironment, id: String, bundleID: String,
            traffic: ServerAPITraffic
        ) {
            let transactions = history.transactions.map(VerifyReceiptTransaction.init)
            guard backend.mayBeInBillingRetry(transactions) else {
                return answer(
                    history, transactions: transactions, renewalInfo: [], in: environment, asked: id, traffic: traffic)
            }
            backend.client.statuses(
                of: id, bundleID: bundleID, environment: environment, shouldStop: shouldStop, executor: executor
            ) { lookup, statusTraffic in
                self.onTraffic(AppleTraffic(statusTraffic))
                var total = traffic
                total.add(statusTraffic)
                switch lookup {
                case .found(let statuses, _):
                    self.answer(
                        history, transactions: transactions, renewalInfo: ServerAPIBackend.renewalInfo(statuses),
                        in: environment, asked: id, traffic: total)
                case .configuration(let detail):
                    self.completion(
                        AppleUserAnswer(
                            receipts: [], configurationAbort: ConfigurationAbort(problem: .serverAPI(detail))))
                case .notFound(let detail), .unverified(let detail):
                    // Without the status a grace period cannot be told from a lapse: no verdict.
                    let ids = Set(
                        history.transactions.flatMap { [$0.transactionID, $0.originalTransactionID] }.compactMap { $0 })
                    self.answerRows(
                        where: { ids.contains($0) || $0 == id }, traffic: total,
                        ReceiptClassification(
                            outcome: .unverified, outcomeFlag: .unverified, detail: "subscription statuses: \(detail)"))
                    self.next()
                }
            }
        }

        private func answer(
            _ history: ServerAPIHistory, transactions: [VerifyReceiptTransaction],
            renewalInfo: [VerifyReceiptPendingRenewalInfo], in environment: AppStoreEnvironment, asked: String,
            traffic: ServerAPITraffic
        ) {
            let ids = Set(
                history.transactions.flatMap { [$0.transactionID, $0.originalTransactionID] }.compactMap { $0 })
            let bundleID = history.transactions.lazy.compactMap(\.bundleID).first
            let classification = backend.classify(
                environment: environment, bundleID: bundleID, transactions: transactions.count)
            // The row asked about is answered even when Apple's history does not repeat its id.
            answerRows(
                where: { ids.contains($0) || $0 == asked }, traffic: traffic, classification,
                transactions: transactions, renewalInfo: renewalInfo)
            next()
        }

        /// Answers every unanswered row whose id `matches`; the first of them carries the traffic.
        private func answerRows(
            where matches: (String) -> Bool, traffic: ServerAPITraffic, _ classification: ReceiptClassification,
            transactions: [VerifyReceiptTransaction] = [], renewalInfo: [VerifyReceiptPendingRenewalInfo] = []
        ) {
            var carried = false
            for index in answers.indices where answers[index] == nil {
                guard case .ask(let id, _, let bundleID, _) = keys[index], matches(id) else { continue }
                answers[index] = ReceiptAnswer(
                    receipt: UserReceipt(
                        receiptID: user.receipts[index].id, classification: classification,
                        transactions: transactions, pendingRenewalInfo: renewalInfo, source: .serverAPI),
                    attempts: carried ? 0 : traffic.requests, bundleID: bundleID)
                carried = true
            }
        }

        private func finish() {
            completion(AppleUserAnswer(receipts: answers.compactMap { $0 }))
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
