import Foundation

/// Get Transaction History v2 for one id, page after page and environment after environment, until
/// Apple's answer proves something (CONTRACT §9, "What proves a purchase absent"), as an exchange:
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
public struct TransactionHistoryWalk: AppleExchange {
    /// Apple pages by 20; a customer with more than this many pages is not a real one.
    static let maximumPages = 500

    private let client: ServerAPIClient
    private let id: String
    private let bundleID: String
    private let purpose: RequestPurpose
    private var environment: AppStoreEnvironment
    private var mayHop: Bool
    /// What each environment asked said, for the detail of a lookup that found nothing.
    private var misses: [String] = []
    /// The first 4040001 / 4040003 / 4040019 of the lookup, in any environment.
    private var goneCode: Int?
    /// The last 4040010 / 4040005 of the lookup: the errorCode that proves the id absent.
    private var notFoundCode: Int?
    /// The request in progress.
    private var call: ServerAPICall?

    // The walk in the current environment.
    private var transactions: [SignedTransaction] = []
    private var positions: [String: Int] = [:]
    private var pages = 0
    private var holdsID = false
    private var restarted = false

    init(
        client: ServerAPIClient, id: String, bundleID: String, environment: AppStoreEnvironment, mayHop: Bool,
        purpose: RequestPurpose
    ) {
        self.client = client
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.mayHop = mayHop
        self.purpose = purpose
    }

    /// Asks for the first page, or ends at once without a request for an id Apple cannot have issued.
    public mutating func start() -> ExchangeStep<ServerAPILookup<ServerAPIHistory>> {
        guard ServerAPIClient.isWellFormedID(id) else {
            return .finish(.invalidID(detail: ServerAPIClient.malformedIDDetail))
        }
        return page(revision: nil, purpose)
    }

    public mutating func handle(_ event: ExchangeEvent) -> ExchangeStep<ServerAPILookup<ServerAPIHistory>> {
        guard let step = call.handle(event) else {
            return .finish(.unverified(detail: "transaction history: no request in progress"))
        }
        return follow(step)
    }

    private mutating func page(revision: String?, _ purpose: RequestPurpose) -> ExchangeStep<
        ServerAPILookup<ServerAPIHistory>
    > {
        var query = "sort=ASCENDING"
        if let revision {
            query += "&revision=" + (revision.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? revision)
        }
        return follow(
            call.start(
                ServerAPICall(
                    client: client, endpoint: .transactionHistory, id: id, query: query, bundleID: bundleID,
                    environment: environment, purpose: purpose)))
    }

    /// The walk's step for the request's: its requests pass through, its outcome is read here.
    private mutating func follow(_ step: ExchangeStep<ServerAPICall.Outcome>) -> ExchangeStep<
        ServerAPILookup<ServerAPIHistory>
    > {
        switch step {
        case .send(let request, let delay): return .send(request, after: delay)
        case .finish(.finished(let end)): return .finish(end.lookup())
        case .finish(.answer(let body)): return received(body)
        case .finish(.notHere(let code, let gone)):
            if !gone { notFoundCode = code }
            return notHere("errorCode \(code) in \(environment)", gone: gone ? code : nil)
        case .finish(.restartWalk(let code)): return restart(code)
        }
    }

    private mutating func received(_ body: Data) -> ExchangeStep<ServerAPILookup<ServerAPIHistory>> {
        pages += 1
        let page: ServerAPIHistoryPage
        do {
            page = try ServerAPIHistoryPage(body)
        } catch {
            return .finish(.unverified(detail: "transaction history: \(error)"))
        }
        for jws in page.signedTransactions {
            switch client.transaction(jws, environment: environment) {
            case .failure(let error):
                return .finish(.unverified(detail: error.detail))
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
                return .finish(
                    .unverified(detail: "transaction history: hasMore without a usable revision after \(pages) pages"))
            }
            return self.page(revision: revision, .continuation)
        }
        guard holdsID else {
            return notHere(
                "the \(environment) history (\(transactions.count) transaction(s)) does not hold the id", gone: nil)
        }
        return .finish(.found(ServerAPIHistory(transactions: transactions), environment: environment))
    }

    /// The id is not in the environment just asked: the other one once, else the end.
    private mutating func notHere(_ miss: String, gone code: Int?) -> ExchangeStep<ServerAPILookup<ServerAPIHistory>> {
        misses.append(miss)
        if goneCode == nil { goneCode = code }
        guard mayHop else {
            let detail = "transaction history: " + misses.joined(separator: "; ")
            if let goneCode { return .finish(.gone(code: goneCode, detail: detail)) }
            return .finish(.notFound(detail: detail, errorCode: notFoundCode))
        }
        mayHop = false
        environment = environment.other
        restarted = false
        return startOver(.hop)
    }

    /// A `revision` Apple no longer takes: the first page again, once per environment.
    private mutating func restart(_ code: Int) -> ExchangeStep<ServerAPILookup<ServerAPIHistory>> {
        guard !restarted else {
            return .finish(
                .unverified(
                    detail: "transaction history: errorCode \(code) in \(environment) again after the page walk "
                        + "restarted"))
        }
        restarted = true
        return startOver(.continuation)
    }

    private mutating func startOver(_ purpose: RequestPurpose) -> ExchangeStep<ServerAPILookup<ServerAPIHistory>> {
        transactions = []
        positions = [:]
        pages = 0
        holdsID = false
        return page(revision: nil, purpose)
    }
}
