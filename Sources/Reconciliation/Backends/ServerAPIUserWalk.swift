import AppStoreReceipts
import Foundation

/// One user's rows under the App Store Server API, as an exchange: one Apple conversation at a time
/// (`SubExchange`), in this order, until every row's ids are resolved (`ServerAPIBackend` says which
/// requests, `ServerAPIAnswerRule` what each answer proves):
///
/// 1. `next`: the history of the first id no answer covers yet (`TransactionHistoryWalk`);
/// 2. `historyEnded`: a history found answers every id it holds; when a subscription of it may be in
///    billing retry (`RenewalStateRule.needsStatuses`), its statuses are asked first
///    (`SubscriptionStatusesLookup`); any other end is ruled;
/// 3. `statusesEnded`: the history is recorded with its renewal state, or the end is ruled;
///
/// then `finish` rules each row from what its ids resolved to.
struct ServerAPIUserWalk: AppleExchange {
    /// A history Apple gave, with what the rules read of it.
    struct Found: Sendable {
        var classification: ReceiptClassification
        var purchases: [Purchase]
        var renewals: [SubscriptionRenewal]
        /// The id asked about and every id the history holds.
        var ids: [String]
    }

    /// How the conversation in progress ended.
    private enum Ended: Sendable {
        case history(ServerAPILookup<ServerAPIHistory>)
        case statuses(ServerAPILookup<ServerAPIStatuses>, Found)
    }

    /// The id being asked about: its row, the bid asked with, the conversation in progress, and whether
    /// Apple answered any request of it yet.
    private struct Asking {
        var exchange: SubExchange<Ended>
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
    private var resolved: [String: IDResolution] = [:]
    /// Requests made for each row's lookups (`recon_results.attempts`).
    private var requests: [Int]
    private var asking: Asking?
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
        guard var asking else { return finish() }
        switch event {
        case .stop(.beforeAsking) where !asking.answered:
            // A draining run asks no new question: the rows not yet resolved are left out.
            self.asking = nil
            return finish()
        case .stop(.beforeAsking):
            draining = true
        case .answer:
            asking.answered = true
            requests[asking.row] += 1
        case .stop:
            break
        }
        let step = asking.exchange.handle(event)
        self.asking = asking
        return follow(step)
    }

    /// Step 1: the history of the first id no answer covers yet, or the end.
    private mutating func next() -> ExchangeStep<AppleUserAnswer> {
        guard !draining else { return finish() }
        for (row, key) in keys.enumerated() {
            guard case .ask(let question) = key, let id = question.ids.first(where: { resolved[$0] == nil })
            else { continue }
            let bundleID = bid(question)
            let history = backend.client.history(
                of: id, bundleID: bundleID, environment: question.environment ?? backend.context.servedEnvironment,
                mayHop: true)
            return ask(Asking(exchange: SubExchange(history) { .history($0) }, id: id, row: row, bundleID: bundleID))
        }
        return finish()
    }

    /// Step 2: a history found is recorded, after its statuses when a subscription may be in billing retry.
    private mutating func historyEnded(_ end: ServerAPILookup<ServerAPIHistory>, _ asking: Asking) -> ExchangeStep<
        AppleUserAnswer
    > {
        guard case .found(let history, let environment) = end else {
            return apply(
                ServerAPIAnswerRule.history(
                    end, id: asking.id, bundleID: asking.bundleID, isDefaultBundle: isDefault(asking)), asking)
        }
        let purchases = history.transactions.map { Purchase($0, source: .serverAPI) }
        let found = Found(
            classification: ReceiptOutcomeRule.classifyHistory(
                environment: environment, bundleID: history.transactions.lazy.compactMap(\.bundleID).first,
                transactions: purchases.count, context: backend.context),
            purchases: purchases, renewals: [],
            ids: [asking.id]
                + history.transactions.flatMap { [$0.transactionID, $0.originalTransactionID] }.compactMap { $0 })
        guard RenewalStateRule.needsStatuses(purchases, asOf: backend.asOf, now: Date()) else { return record(found) }
        var statuses = asking
        statuses.exchange = SubExchange(
            backend.client.statuses(of: asking.id, bundleID: asking.bundleID, environment: environment)
        ) { .statuses($0, found) }
        return ask(statuses)
    }

    /// Step 3: the history with its renewal state.
    private mutating func statusesEnded(_ end: ServerAPILookup<ServerAPIStatuses>, _ found: Found, _ asking: Asking)
        -> ExchangeStep<AppleUserAnswer>
    {
        guard case .found(let statuses, _) = end else {
            return apply(ServerAPIAnswerRule.statuses(end, isDefaultBundle: isDefault(asking)), asking, found: found)
        }
        var found = found
        found.renewals = ServerAPIBackend.renewals(statuses)
        return record(found)
    }

    private mutating func ask(_ asking: Asking) -> ExchangeStep<AppleUserAnswer> {
        var asking = asking
        let step = asking.exchange.start()
        self.asking = asking
        return follow(step)
    }

    /// The conversation's requests pass through; its end is the next step's.
    private mutating func follow(_ step: ExchangeStep<Ended>) -> ExchangeStep<AppleUserAnswer> {
        guard case .finish(let ended) = step, let asking else {
            if case .send(let request, let delay) = step { return .send(request, after: delay) }
            return finish()
        }
        self.asking = nil
        switch ended {
        case .history(let end): return historyEnded(end, asking)
        case .statuses(let end, let found): return statusesEnded(end, found, asking)
        }
    }

    /// Applies what a lookup's end decides to the ids it decides for, then goes on.
    private mutating func apply(_ ruling: ServerAPIAnswerRule.Ruling?, _ asking: Asking, found: Found? = nil)
        -> ExchangeStep<AppleUserAnswer>
    {
        switch ruling {
        case .abort(let detail):
            return .finish(
                AppleUserAnswer(receipts: [], configurationAbort: ConfigurationAbort(problem: .serverAPI(detail))))
        case .id(let resolution):
            resolved[asking.id] = resolution
        case .row(let resolution):
            if case .ask(let question) = keys[asking.row] {
                for id in question.ids where resolved[id] == nil { resolved[id] = resolution }
            }
        case .history(let resolution):
            for id in found?.ids ?? [] where resolved[id] == nil { resolved[id] = resolution }
        case nil:
            break
        }
        return next()
    }

    private mutating func record(_ found: Found) -> ExchangeStep<AppleUserAnswer> {
        histories.append(found)
        for id in found.ids {
            if held[id] == nil { held[id] = histories.count - 1 }
            if resolved[id] == nil { resolved[id] = .found(histories.count - 1) }
        }
        return next()
    }

    /// The bid for a row (CONTRACT §9, "Bundle ids for the JWT"): its own when accepted (StoredRowKey
    /// decided every other), else the default.
    private func bid(_ question: StoredRowKey.Question) -> String {
        question.bundleID.flatMap { backend.context.acceptedBundleIDs.contains($0) ? $0 : nil }
            ?? backend.defaultBundleID
    }

    private func isDefault(_ asking: Asking) -> Bool { asking.bundleID == backend.defaultBundleID }

    /// Every row's answer from what its ids resolved to (`ServerAPIAnswerRule.settled`, then `.row`).
    private func finish() -> ExchangeStep<AppleUserAnswer> {
        var answers: [ReceiptAnswer] = []
        for (row, key) in keys.enumerated() {
            switch key {
            case .decided(let answer):
                answers.append(answer)
            case .ask(let question):
                // A stopped run leaves rows it never asked about out of the answer.
                guard question.ids.allSatisfy({ resolved[$0] != nil }) else { continue }
                let resolutions = question.ids.map { id in
                    ServerAPIAnswerRule.settled(
                        resolved[id]!, id: id, heldBy: held[id], answeredBefore: user.knownTransactionIDs.contains(id),
                        appleSignature: question.voucher.appleSignature)
                }
                let verdict = ServerAPIAnswerRule.row(
                    resolutions, signatureFailed: question.voucher == .failedSignature)
                answers.append(answer(row, question, verdict))
            }
        }
        return .finish(AppleUserAnswer(receipts: answers))
    }

    /// A row's answer: its histories' outcome with their purchases and renewal state, or its verdict with
    /// the purchases it claims.
    private func answer(_ row: Int, _ question: StoredRowKey.Question, _ verdict: ServerAPIAnswerRule.RowVerdict)
        -> ReceiptAnswer
    {
        let receiptID = user.receipts[row].id
        let receipt: UserReceipt
        switch verdict {
        case .histories(let used):
            receipt = UserReceipt(
                receiptID: receiptID, classification: histories[used.first ?? 0].classification,
                purchases: used.flatMap { histories[$0].purchases }, renewals: used.flatMap { histories[$0].renewals },
                source: .serverAPI)
        case .classified(let classification):
            receipt = UserReceipt(
                receiptID: receiptID, classification: classification, purchases: question.claimed, source: .serverAPI)
        }
        return ReceiptAnswer(receipt: receipt, attempts: requests[row], bundleID: question.bundleID)
    }
}

extension StoredRowKey.Voucher {
    /// What carries Apple's verified signature over the row, if anything does.
    var appleSignature: String? {
        if case .appleSignature(let what) = self { return what }
        return nil
    }
}
