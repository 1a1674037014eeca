import Foundation

/// Get Transaction History v2, page after page: the first without `revision`, then each with the
/// previous page's `revision` while `hasMore`. With ascending order a transaction that changed while
/// the walk went on (a renewal upgraded, a refund) is delivered again with its new data: the last
/// delivery of each id wins.
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
    private var transactions: [SignedTransaction] = []
    private var positions: [String: Int] = [:]
    private var traffic = ServerAPITraffic()
    private var pages = 0

    init(
        client: ServerAPIClient, id: String, bundleID: String, shouldStop: @escaping @Sendable () -> Bool,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
        completion: @escaping @Sendable (ServerAPILookup<ServerAPIHistory>, ServerAPITraffic) -> Void
    ) {
        self.client = client
        self.id = id
        self.bundleID = bundleID
        self.shouldStop = shouldStop
        self.executor = executor
        self.completion = completion
    }

    func page(revision: String?, environment: AppStoreEnvironment, mayHop: Bool) {
        var query = "sort=ASCENDING"
        if let revision {
            query += "&revision=" + (revision.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? revision)
        }
        ServerAPIExchange(
            client: client, endpoint: .transactionHistory, id: id, query: query, bundleID: bundleID,
            environment: environment, mayHop: mayHop, shouldStop: shouldStop, executor: executor
        ) { outcome, traffic in
            self.traffic.add(traffic)
            switch outcome {
            case .finished(let end): self.completion(end.lookup(), self.traffic)
            case .answer(let body, let answered): self.received(body, environment: answered)
            }
        }.send()
    }

    private func received(_ body: Data, environment: AppStoreEnvironment) {
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
                let key = transaction.transactionID ?? "#\(transactions.count)"
                if let position = positions[key] {
                    transactions[position] = transaction
                } else {
                    positions[key] = transactions.count
                    transactions.append(transaction)
                }
            }
        }
        guard page.hasMore else {
            return completion(.found(ServerAPIHistory(transactions: transactions), environment: environment), traffic)
        }
        guard let revision = page.revision, !revision.isEmpty, pages < Self.maximumPages else {
            return completion(
                .unverified(detail: "transaction history: hasMore without a usable revision after \(pages) pages"),
                traffic)
        }
        self.page(revision: revision, environment: environment, mayHop: false)
    }
}
