import AppStoreReceipts
import Foundation

/// One user's rows under the App Store Server API, as an exchange (see `ServerAPIBackend` for what
/// proves what): the first id no answer covers yet is looked up (its history, then its statuses when
/// a subscription may be in billing retry), every id that history holds is answered by it, and so on
/// until every row's ids are resolved; then each row's answer is ruled from what its ids resolved to.
struct ServerAPIUserWalk: AppleExchange {
    /// A history Apple gave, with what the rules read of it.
    struct Found {
        var classification: ReceiptClassification
        var purchases: [Purchase]
        var renewals: [SubscriptionRenewal]
    }

    /// What one id resolved to; `code` is the `errorCode` Apple answered with, kept for the evidence.
    enum Resolution {
        case found(Int)
        /// 4040010 / 4040005 in both environments: absent only if no history of the run holds it and
        /// Apple never answered for it before (decided in `finish`).
        case notFound(String, code: Int?)
        /// Apple refuses the id's format (4000006 / 4000008).
        case invalid(String, code: Int?)
        case unverified(UnverifiedKind, String, code: Int? = nil)
    }

    /// The lookup in progress: which row and id it is for, and whether an answer came yet.
    private struct Lookup {
        enum Stage {
            case history(TransactionHistoryWalk)
            /// The history found, waiting for its statuses.
            case statuses(SubscriptionStatusesLookup, Found, ids: [String])
        }

        var stage: Stage
        let id: String
        let row: Int
        let bundleID: String
        var answered = false
    }

    private let backend: ServerAPIBackend
    private let user: UserWork
    private let keys: [StoredRowKey]
    private var histories: [Found] = []
    /// Every id a fetched history holds, and which history.
    private var held: [String: Int] = [:]
    private var resolved: [String: Resolution] = [:]
    /// Requests made for each row's lookups (`recon_results.attempts`).
    private var requests: [Int]
    private var lookup: Lookup?
    /// Set once the run drains: no further id is looked up.
    private var draining = false

    init(backend: ServerAPIBackend, user: UserWork, keys: [StoredRowKey]) {
        self.backend = backend
        self.user = user
        self.keys = keys
        requests = Array(repeating: 0, count: keys.count)
    }

    mutating func start() -> ExchangeStep<AppleUserAnswer> {
        next()
    }

    mutating func handle(_ event: ExchangeEvent) -> ExchangeStep<AppleUserAnswer> {
        guard var lookup else { return finish() }
        switch event {
        case .stop(.beforeAsking) where !lookup.answered:
            // A draining run asks no new question: the rows not yet resolved are left out.
            self.lookup = nil
            return finish()
        case .stop(.beforeAsking):
            draining = true
        case .answer:
            lookup.answered = true
            requests[lookup.row] += 1
        case .stop:
            break
        }
        switch lookup.stage {
        case .history(var walk):
            let step = walk.handle(event)
            lookup.stage = .history(walk)
            self.lookup = lookup
            return followHistory(step)
        case .statuses(var statuses, let found, let ids):
            let step = statuses.handle(event)
            lookup.stage = .statuses(statuses, found, ids: ids)
            self.lookup = lookup
            return followStatuses(step)
        }
    }

    /// Looks up the first id no answer covers yet, or finishes.
    private mutating func next() -> ExchangeStep<AppleUserAnswer> {
        guard !draining else { return finish() }
        for (row, key) in keys.enumerated() {
            guard case .ask(let question) = key, let id = question.ids.first(where: { resolved[$0] == nil })
            else { continue }
            let bundleID = bid(question)
            var walk = backend.client.history(
                of: id, bundleID: bundleID, environment: question.environment ?? backend.context.servedEnvironment,
                mayHop: true)
            let step = walk.start()
            lookup = Lookup(stage: .history(walk), id: id, row: row, bundleID: bundleID)
            return followHistory(step)
        }
        return finish()
    }

    /// The bid for a row (CONTRACT §9, "Bundle ids for the JWT"): its own when accepted (StoredRowKey
    /// decided every other), else the default.
    private func bid(_ question: StoredRowKey.Question) -> String {
        question.bundleID.flatMap { backend.context.acceptedBundleIDs.contains($0) ? $0 : nil }
            ?? backend.defaultBundleID
    }

    private mutating func followHistory(_ step: ExchangeStep<ServerAPILookup<ServerAPIHistory>>) -> ExchangeStep<
        AppleUserAnswer
    > {
        guard case .finish(let result) = step, let lookup else {
            if case .send(let request, let delay) = step { return .send(request, after: delay) }
            return finish()
        }
        let (id, row, bundleID) = (lookup.id, lookup.row, lookup.bundleID)
        switch result {
        case .configuration(let detail):
            guard bundleID != backend.defaultBundleID else { return abort(detail) }
            // The key is refused for this row's app only: the run goes on for everyone else.
            return settle(
                row, .unverified(.permanent, "the App Store Server API refused bundle id \(bundleID): \(detail)"))
        case .notFound(let detail, let code):
            return resolve(id, .notFound(detail, code: code))
        case .gone(let code, let detail):
            return resolve(
                id,
                .unverified(
                    .permanent, "Apple no longer finds the \(Self.goneSubject(code)) of transaction \(id) (\(detail))",
                    code: code))
        case .invalidID(let detail, let code):
            return resolve(id, .invalid("Apple refuses transaction id \(id) (\(detail))", code: code))
        case .unverified(let detail):
            return settle(row, .unverified(.transient, detail))
        case .found(let history, let environment):
            return found(history, in: environment)
        }
    }

    /// Records a history, asking for the statuses first when a subscription may be in billing retry.
    private mutating func found(_ history: ServerAPIHistory, in environment: AppStoreEnvironment) -> ExchangeStep<
        AppleUserAnswer
    > {
        guard var lookup else { return finish() }
        let purchases = history.transactions.map { Purchase($0, source: .serverAPI) }
        let ids =
            [lookup.id]
            + history.transactions.flatMap { [$0.transactionID, $0.originalTransactionID] }.compactMap { $0 }
        let classification = backend.classify(
            environment: environment, bundleID: history.transactions.lazy.compactMap(\.bundleID).first,
            transactions: purchases.count)
        let found = Found(classification: classification, purchases: purchases, renewals: [])
        guard backend.needsStatuses(purchases) else { return record(found, for: ids) }
        var statuses = backend.client.statuses(of: lookup.id, bundleID: lookup.bundleID, environment: environment)
        let step = statuses.start()
        lookup.stage = .statuses(statuses, found, ids: ids)
        self.lookup = lookup
        return followStatuses(step)
    }

    private mutating func followStatuses(_ step: ExchangeStep<ServerAPILookup<ServerAPIStatuses>>) -> ExchangeStep<
        AppleUserAnswer
    > {
        guard case .finish(let result) = step, let lookup, case .statuses(_, var found, let ids) = lookup.stage else {
            if case .send(let request, let delay) = step { return .send(request, after: delay) }
            return finish()
        }
        switch result {
        case .found(let statuses, _):
            found.renewals = ServerAPIBackend.renewals(statuses)
            return record(found, for: ids)
        case .configuration(let detail):
            guard lookup.bundleID != backend.defaultBundleID else { return abort(detail) }
            return settle(lookup.row, .unverified(.permanent, "subscription statuses: \(detail)"))
        case .notFound(let detail, _), .gone(_, let detail), .invalidID(let detail, _), .unverified(let detail):
            // Without the status a grace period cannot be told from a lapse: no verdict.
            for id in ids where resolved[id] == nil {
                resolved[id] = .unverified(.transient, "subscription statuses: \(detail)")
            }
            self.lookup = nil
            return next()
        }
    }

    private mutating func resolve(_ id: String, _ resolution: Resolution) -> ExchangeStep<AppleUserAnswer> {
        resolved[id] = resolution
        lookup = nil
        return next()
    }

    /// A row whose lookup ended without a verdict is without one whatever its other ids say (unless one
    /// proves it altered, which a verdict-less answer cannot): they are not asked about.
    private mutating func settle(_ row: Int, _ resolution: Resolution) -> ExchangeStep<AppleUserAnswer> {
        if case .ask(let question) = keys[row] {
            for id in question.ids where resolved[id] == nil { resolved[id] = resolution }
        }
        lookup = nil
        return next()
    }

    private mutating func record(_ found: Found, for ids: [String]) -> ExchangeStep<AppleUserAnswer> {
        histories.append(found)
        for id in ids {
            if held[id] == nil { held[id] = histories.count - 1 }
            if resolved[id] == nil { resolved[id] = .found(histories.count - 1) }
        }
        lookup = nil
        return next()
    }

    private func abort(_ detail: String) -> ExchangeStep<AppleUserAnswer> {
        .finish(AppleUserAnswer(receipts: [], configurationAbort: ConfigurationAbort(problem: .serverAPI(detail))))
    }

    static func goneSubject(_ code: Int) -> String {
        switch code {
        case 4_040_001: "Apple Account (errorCode 4040001)"
        case 4_040_003: "app (errorCode 4040003)"
        default: "app transaction (errorCode \(code))"
        }
    }

    /// Every row's answer from what its ids resolved to.
    private func finish() -> ExchangeStep<AppleUserAnswer> {
        var answers: [ReceiptAnswer] = []
        for (row, key) in keys.enumerated() {
            switch key {
            case .decided(let answer):
                answers.append(answer)
            case .ask(let question):
                // A stopped run leaves rows it never asked about out of the answer.
                guard question.ids.allSatisfy({ resolved[$0] != nil }) else { continue }
                answers.append(answer(row, question, question.ids.map { final($0, resolved[$0]!, question) }))
            }
        }
        return .finish(AppleUserAnswer(receipts: answers))
    }

    /// What a "not found" id proves once every history of the user is in: found if a history holds it
    /// (asked about first, answered by a later row's history), an Apple hiccup if Apple answered for it
    /// before or if Apple signed the row naming it (CONTRACT §9: Apple's signature proves the purchase
    /// existed; Apple says 4040010 can happen, rarely, for ids that returned data before), else absent.
    private func final(_ id: String, _ resolution: Resolution, _ question: StoredRowKey.Question) -> Resolution {
        guard case .notFound(let detail, let code) = resolution else { return resolution }
        if let history = held[id] { return .found(history) }
        if user.knownTransactionIDs.contains(id) {
            return .unverified(
                .permanent,
                "transaction \(id) is not found by the App Store Server API now (\(detail)), but Apple answered "
                    + "for it in an earlier run", code: code)
        }
        if case .appleSignature(let what) = question.voucher {
            return .unverified(
                .permanent,
                "transaction \(id) is not found by the App Store Server API in either environment (\(detail)), but "
                    + "Apple signed the row naming it (\(what))", code: code)
        }
        return .notFound(
            "transaction \(id) is unknown to the App Store Server API in both environments (\(detail))", code: code)
    }

    /// A row: `invalid` if any id proves it altered, else `unverified` (transient before permanent; a
    /// permanent one of a row whose signature failed is `untrusted`) if any id has no verdict, else its
    /// histories' outcome with their purchases and renewal state.
    private func answer(_ row: Int, _ question: StoredRowKey.Question, _ resolutions: [Resolution]) -> ReceiptAnswer {
        var invalid: (detail: String, code: Int?)?
        var transient: (detail: String, code: Int?)?
        var permanent: (detail: String, code: Int?)?
        var used: [Int] = []
        for resolution in resolutions {
            switch resolution {
            case .notFound(let detail, let code), .invalid(let detail, let code): invalid = invalid ?? (detail, code)
            case .unverified(.transient, let detail, let code): transient = transient ?? (detail, code)
            // Apple's permanent answers; whether the row keeps what it names is the row's signature's to say.
            case .unverified(.permanent, let detail, let code), .unverified(.untrusted, let detail, let code):
                permanent = permanent ?? (detail, code)
            case .found(let index): if !used.contains(index) { used.append(index) }
            }
        }
        let receiptID = user.receipts[row].id
        let classification: ReceiptClassification
        if let invalid {
            classification = ReceiptClassification(
                outcome: .invalid, outcomeFlag: .invalidReceipt, detail: invalid.detail, errorCode: invalid.code)
        } else if let transient {
            classification = .unverified(.transient, detail: transient.detail, errorCode: transient.code)
        } else if let permanent, question.voucher == .failedSignature {
            // Apple gives no verdict and the row's own claims are nobody's word: they keep nothing (CONTRACT §5).
            classification = .unverified(
                .untrusted, detail: permanent.detail + "; the row's own signature did not verify",
                errorCode: permanent.code)
        } else if let permanent {
            classification = .unverified(.permanent, detail: permanent.detail, errorCode: permanent.code)
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
                receiptID: receiptID, classification: classification, purchases: question.claimed, source: .serverAPI),
            attempts: requests[row], bundleID: question.bundleID)
    }
}
