import AppStoreReceipts
import Foundation

/// The `AppleBackend` over the App Store Server API (CONTRACT §9): per user, not per row. One
/// customer's rows usually share one history, so the user's first row that names a transaction is
/// looked up (Get Transaction History v2, every page), every other row whose id that history holds is
/// answered by it, and only rows it does not hold are looked up in turn. Get All Subscription Statuses
/// is asked only when a subscription of the history may be in billing retry or its grace period.
///
/// The verified transactions and renewal info become purchases (`Purchase(SignedTransaction)`) and feed
/// the same rules as verifyReceipt's answers. What proves what (CONTRACT §9, "What proves a purchase
/// absent"): a transaction found only in the other environment is `misrouted`; unknown in both and in
/// every history fetched for the user, and never answered for before, `invalid`; an id Apple refuses the
/// format of, `invalid`; an account or app Apple no longer finds, an id it answered for before, a bundle
/// id the key is refused for, a permanent `unverified`; anything transient, a transient `unverified`.
///
/// Threading: `verify` returns at once; a user's walk continues on the executor with each answer and
/// is touched by one thread at a time.
public final class ServerAPIBackend: AppleBackend {
    private let client: ServerAPIClient
    private let context: ReceiptOutcomeContext
    private let signedData: SignedDataVerifier
    /// App receipts' PKCS#7 signatures, checked before any request (Apple never sees the receipt here).
    private let receiptSignatures: ReceiptSignatureVerifier
    private let asOf: Date
    /// The bundle id asked about when a row names none (`bid` is required).
    private let defaultBundleID: String

    public init(
        client: ServerAPIClient, context: ReceiptOutcomeContext, signedData: SignedDataVerifier,
        receiptSignatures: ReceiptSignatureVerifier, asOf: Date, defaultBundleID: String
    ) {
        self.client = client
        self.context = context
        self.signedData = signedData
        self.receiptSignatures = receiptSignatures
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
        let keys = user.receipts.map {
            StoredRowKey.read($0, verifier: signedData, receiptSignatures: receiptSignatures, context: context)
        }
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
            var purchases: [Purchase]
            var renewals: [SubscriptionRenewal]
        }
        enum Resolution {
            case found(Int)
            /// 4040010 / 4040005 in both environments: absent only if no history of the run holds it and
            /// Apple never answered for it before (decided in `finish`).
            case notFound(String)
            /// Apple refuses the id's format (4000006 / 4000008).
            case invalid(String)
            case unverified(UnverifiedKind, String)
        }
        var histories: [Found] = []
        /// Every id a fetched history holds, and which history.
        var held: [String: Int] = [:]
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
                guard case .ask(let question) = key, let id = question.ids.first(where: { resolved[$0] == nil })
                else { continue }
                return lookUp(id, row: row, question: question)
            }
            finish()
        }

        /// The bid for a row (CONTRACT §9, "Bundle ids for the JWT"): its own when accepted (StoredRowKey
        /// decided every other), else the default.
        private func bid(_ question: StoredRowKey.Question) -> String {
            question.bundleID.flatMap { backend.context.acceptedBundleIDs.contains($0) ? $0 : nil }
                ?? backend.defaultBundleID
        }

        private func lookUp(_ id: String, row: Int, question: StoredRowKey.Question) {
            let bundleID = bid(question)
            backend.client.history(
                of: id, bundleID: bundleID, environment: question.environment ?? backend.context.servedEnvironment,
                mayHop: true, shouldStop: shouldStop, executor: executor
            ) { lookup, traffic in
                self.onTraffic(AppleTraffic(traffic))
                self.requests[row] += traffic.requests
                switch lookup {
                case .configuration(let detail):
                    guard bundleID != self.backend.defaultBundleID else { return self.abort(detail) }
                    // The key is refused for this row's app only: the run goes on for everyone else.
                    self.settle(
                        row,
                        .unverified(.permanent, "the App Store Server API refused bundle id \(bundleID): \(detail)"))
                case .notFound(let detail):
                    self.resolved[id] = .notFound(detail)
                    self.next()
                case .gone(let code, let detail):
                    self.resolved[id] = .unverified(
                        .permanent,
                        "Apple no longer finds the \(Self.goneSubject(code)) of transaction \(id) (\(detail))")
                    self.next()
                case .invalidID(let detail):
                    self.resolved[id] = .invalid("Apple refuses transaction id \(id) (\(detail))")
                    self.next()
                case .unverified(let detail):
                    self.settle(row, .unverified(.transient, detail))
                case .found(let history, let environment):
                    self.found(history, in: environment, id: id, row: row, bundleID: bundleID)
                }
            }
        }

        /// A row whose lookup ended without a verdict is without one whatever its other ids say (unless one
        /// proves it altered, which a verdict-less answer cannot): they are not asked about.
        private func settle(_ row: Int, _ resolution: Resolution) {
            if case .ask(let question) = keys[row] {
                for id in question.ids where resolved[id] == nil { resolved[id] = resolution }
            }
            next()
        }

        static func goneSubject(_ code: Int) -> String {
            switch code {
            case 4_040_001: "Apple Account (errorCode 4040001)"
            case 4_040_003: "app (errorCode 4040003)"
            default: "app transaction (errorCode \(code))"
            }
        }

        /// Records a history (statuses first when a subscription may be in billing retry).
        private func found(
            _ history: ServerAPIHistory, in environment: AppStoreEnvironment, id: String, row: Int, bundleID: String
        ) {
            let purchases = history.transactions.map { Purchase($0, source: .serverAPI) }
            let ids =
                [id] + history.transactions.flatMap { [$0.transactionID, $0.originalTransactionID] }.compactMap { $0 }
            let classification = backend.classify(
                environment: environment, bundleID: history.transactions.lazy.compactMap(\.bundleID).first,
                transactions: purchases.count)
            guard backend.needsStatuses(purchases) else {
                return record(Found(classification: classification, purchases: purchases, renewals: []), for: ids)
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
                            classification: classification, purchases: purchases,
                            renewals: ServerAPIBackend.renewals(statuses)),
                        for: ids)
                case .configuration(let detail):
                    guard bundleID != self.backend.defaultBundleID else { return self.abort(detail) }
                    self.settle(row, .unverified(.permanent, "subscription statuses: \(detail)"))
                case .notFound(let detail), .gone(_, let detail), .invalidID(let detail), .unverified(let detail):
                    // Without the status a grace period cannot be told from a lapse: no verdict.
                    for id in ids where self.resolved[id] == nil {
                        self.resolved[id] = .unverified(.transient, "subscription statuses: \(detail)")
                    }
                    self.next()
                }
            }
        }

        private func record(_ found: Found, for ids: [String]) {
            histories.append(found)
            for id in ids {
                if held[id] == nil { held[id] = histories.count - 1 }
                if resolved[id] == nil { resolved[id] = .found(histories.count - 1) }
            }
            next()
        }

        private func abort(_ detail: String) {
            completion(
                AppleUserAnswer(receipts: [], configurationAbort: ConfigurationAbort(problem: .serverAPI(detail))))
        }

        /// Every row's answer from what its ids resolved to.
        private func finish() {
            var answers: [ReceiptAnswer] = []
            for (row, key) in keys.enumerated() {
                switch key {
                case .decided(let answer):
                    answers.append(answer)
                case .ask(let question):
                    let resolutions = question.ids.map { resolved[$0] }
                    // A stopped run leaves rows it never asked about out of the answer.
                    guard resolutions.allSatisfy({ $0 != nil }) else { continue }
                    answers.append(
                        answer(row, question, question.ids.map { final($0, resolved[$0]!) }))
                }
            }
            completion(AppleUserAnswer(receipts: answers))
        }

        /// What a "not found" id proves once every history of the user is in: found if a history holds it
        /// (asked about first, answered by a later row's history), an Apple hiccup if Apple answered for it
        /// before, else absent.
        private func final(_ id: String, _ resolution: Resolution) -> Resolution {
            guard case .notFound(let detail) = resolution else { return resolution }
            if let history = held[id] { return .found(history) }
            if user.knownTransactionIDs.contains(id) {
                return .unverified(
                    .permanent,
                    "transaction \(id) is not found by the App Store Server API now (\(detail)), but Apple answered "
                        + "for it in an earlier run")
            }
            return .notFound(
                "transaction \(id) is unknown to the App Store Server API in both environments (\(detail))")
        }

        /// A row: `invalid` if any id proves it altered, else `unverified` (transient before permanent) if
        /// any id has no verdict, else its histories' outcome with their purchases and renewal state.
        private func answer(_ row: Int, _ question: StoredRowKey.Question, _ resolutions: [Resolution])
            -> ReceiptAnswer
        {
            var invalid: String?
            var transient: String?
            var permanent: String?
            var used: [Int] = []
            for resolution in resolutions {
                switch resolution {
                case .notFound(let detail), .invalid(let detail): invalid = invalid ?? detail
                case .unverified(.transient, let detail): transient = transient ?? detail
                case .unverified(.permanent, let detail): permanent = permanent ?? detail
                case .found(let index): if !used.contains(index) { used.append(index) }
                }
            }
            let receiptID = user.receipts[row].id
            let classification: ReceiptClassification
            if let invalid {
                classification = ReceiptClassification(outcome: .invalid, outcomeFlag: .invalidReceipt, detail: invalid)
            } else if let transient {
                classification = .unverified(.transient, detail: transient)
            } else if let permanent {
                classification = .unverified(.permanent, detail: permanent)
            } else {
                used.sort()
                let purchases = used.flatMap { histories[$0].purchases }
                let renewals = used.flatMap { histories[$0].renewals }
                return ReceiptAnswer(
                    receipt: UserReceipt(
                        receiptID: receiptID, classification: histories[used.first ?? 0].classification,
                        purchases: purchases, renewals: renewals, source: .serverAPI),
                    attempts: requests[row], bundleID: question.bundleID)
            }
            return ReceiptAnswer(
                receipt: UserReceipt(
                    receiptID: receiptID, classification: classification, purchases: question.claimed,
                    source: .serverAPI),
                attempts: requests[row], bundleID: question.bundleID)
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

    /// Whether the subscription statuses are worth asking for: Apple's answer speaks for `--as-of` (a
    /// status is Apple's state now, CONTRACT §9 "As of"), and a subscription ended recently enough to be in
    /// billing retry or its grace period (then only the status tells access from a lapse).
    func needsStatuses(_ purchases: [Purchase]) -> Bool {
        let answered = purchases.lazy.compactMap(\.evidenceDate).max() ?? Date()
        guard abs(answered.timeIntervalSince(asOf)) <= SubscriptionRenewal.currentStateWindow else { return false }
        var latest: [String: Date] = [:]
        for purchase in purchases where purchase.revocationHappened(by: asOf) == nil {
            guard let expires = purchase.expiresDate else { continue }
            let chain = purchase.originalTransactionID ?? purchase.transactionID ?? ""
            latest[chain] = max(latest[chain] ?? expires, expires)
        }
        return latest.values.contains { $0 <= asOf && asOf.timeIntervalSince($0) <= UserTruth.billingRetryWindow }
    }

    /// The renewal state the rules read: a grace period only for a subscription Apple says is in it
    /// (status 4); billing retry without grace (status 3) keeps no access.
    static func renewals(_ statuses: ServerAPIStatuses) -> [SubscriptionRenewal] {
        statuses.subscriptions.compactMap { subscription in
            guard let signed = subscription.renewalInfo else { return nil }
            return SubscriptionRenewal(
                signed, inGracePeriod: subscription.status == 4,
                originalTransactionID: subscription.originalTransactionID)
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
                uniqueKeysWithValues: traffic.requestsByEndpoint.map { ($0.key.rawValue, $0.value) }),
            serverAPIAnswers: traffic.answers)
    }
}
