import Foundation

/// Get Transaction History v2 for one id, page after page and environment after environment, until
/// Apple's answer proves something (CONTRACT §9, "What proves a purchase absent"):
///
/// - pages: the first without `revision`, then each with the previous page's `revision` while
///   `hasMore`. With ascending order a transaction that changed while the walk went on (a renewal
///   upgraded, a refund) is delivered again with its new data: the last delivery of each id wins.
///   A `revision` Apple no longer takes (4000005 / 4000014 / 4000017) restarts the walk from the first
///   page, once per environment; a second time leaves the id without a verdict.
/// - found: the history holds the id asked about, as a `transactionId` or `originalTransactionId`
///   of some transaction on some page. A history that does not is the customer's, not the id's:
///   "not here", like 4040010.
/// - not here (4040010 / 4040005, 4040001 / 4040003 / 4040019, or a history without the id): the
///   other environment is asked once when `mayHop`. Nothing anywhere is `notFound`, or `gone` when an
///   environment said the account, app or app transaction is no longer found.
///
/// Threading: one page at a time; the walk moves to the executor with each answer.
final class HistoryWalk: @unchecked Sendable {
    /// Apple pages by 20; a customer with more than this many pages is not a real one.
    static let maximumPages = 500

    private let client: ServerAPIClient
    private let id: String
    private let bundleID: String
    private let shouldStop: @Sendable () -> Bool
    private let executor: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
    private let completion: @Sendable (ServerAPILookup<ServerAPIHistory>, ServerAPITraffic) -> Void
    private var environment: AppStoreEnvironment
    private var mayHop: Bool
    private var traffic = ServerAPITraffic()
    /// What each environment asked said, for the detail of a lookup that found nothing.
    private var misses: [String] = []
    /// The first 4040001 / 4040003 / 4040019 of the lookup, in any environment.
    private var goneCode: Int?

    // The walk in the current environment.
    private var transactions: [SignedTransaction] = []
    private var positions: [String: Int] = [:]
    private var pages = 0
    private var holdsID = false
    private var restarted = false

    init(
        client: ServerAPIClient, id: String, bundleID: String, environment: AppStoreEnvironment, mayHop: Bool,
        shouldStop: @escaping @Sendable () -> Bool,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
        completion: @escaping @Sendable (ServerAPILookup<ServerAPIHistory>, ServerAPITraffic) -> Void
    ) {
        self.client = client
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.mayHop = mayHop
        self.shouldStop = shouldStop
        self.executor = executor
        self.completion = completion
    }

    /// Asks for the first page, or ends at once without a request for an id Apple cannot have issued.
    func start() {
        guard ServerAPIClient.isWellFormedID(id) else {
            let traffic = traffic
            return executor { self.completion(.invalidID(detail: ServerAPIClient.malformedIDDetail), traffic) }
        }
        page(revision: nil)
    }

    private func page(revision: String?) {
        var query = "sort=ASCENDING"
        if let revision {
            query += "&revision=" + (revision.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? revision)
        }
        ServerAPIExchange(
            client: client, endpoint: .transactionHistory, id: id, query: query, bundleID: bundleID,
            environment: environment, shouldStop: shouldStop, executor: executor
        ) { outcome, traffic in
            self.traffic.add(traffic)
            switch outcome {
            case .finished(let end):
                self.completion(end.lookup(), self.traffic)
            case .answer(let body, _):
                self.received(body)
            case .notHere(let code, let gone):
                self.notHere("errorCode \(code) in \(self.environment)", gone: gone ? code : nil)
            case .restartWalk(let code):
                self.restart(code)
            }
        }.send()
    }

    private func received(_ body: Data) {
        pages += 1
        let page: ServerAPIHistoryPage
        do {
            page = try ServerAPIHistoryPage(body)
        } catch {
            return completion(.unverified(detail: "transaction history: \(error)"), traffic)
        }
        for jws in page.signedTransactions {
            switch client.transaction(jws, environment: environment) {
            case .failure(let error):
                return completion(.unverified(detail: error.detail), traffic)
            case .success(let transaction):
                if transaction.transactionID == id || transaction.originalTransactionID == id { holdsID = true }
                let key = transaction.transactionID ?? "#\(transactions.count)"
                if let position = positions[key] {
                    transactions[position] = transaction
                } else {
                    positions[key] = transactions.count
                    transactions.append(transaction)
                }
            }
        }
        if page.hasMore {
            guard let revision = page.revision, !revision.isEmpty, pages < Self.maximumPages else {
                return completion(
                    .unverified(detail: "transaction history: hasMore without a usable revision after \(pages) pages"),
                    traffic)
            }
            return self.page(revision: revision)
        }
        guard holdsID else {
            return notHere(
                "the \(environment) history (\(transactions.count) transaction(s)) does not hold the id", gone: nil)
        }
        completion(.found(ServerAPIHistory(transactions: transactions), environment: environment), traffic)
    }

    /// The id is not in the environment just asked: the other one once, else the end.
    private func notHere(_ miss: String, gone code: Int?) {
        misses.append(miss)
        if goneCode == nil { goneCode = code }
        guard mayHop else {
            let detail = "transaction history: " + misses.joined(separator: "; ")
            if let goneCode { return completion(.gone(code: goneCode, detail: detail), traffic) }
            return completion(.notFound(detail: detail), traffic)
        }
        mayHop = false
        traffic.hops += 1
        environment = environment.other
        restarted = false
        startOver()
    }

    /// A `revision` Apple no longer takes: the first page again, once per environment.
    private func restart(_ code: Int) {
        guard !restarted else {
            return completion(
                .unverified(
                    detail: "transaction history: errorCode \(code) in \(environment) again after the page walk "
                        + "restarted"),
                traffic)
        }
        restarted = true
        startOver()
    }

    private func startOver() {
        transactions = []
        positions = [:]
        pages = 0
        holdsID = false
        page(revision: nil)
    }
}
