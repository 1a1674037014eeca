import Foundation

/// What Look Up Order ID said about one order id, after routing, retries and verification.
public enum OrderLookupResult: Sendable {
    /// Status 0 in `environment`: the order's transactions, every one verified (chain, signature,
    /// environment, bundle id) before it is believed.
    case found([SignedTransaction], environment: AppStoreEnvironment)
    /// Status 1 from production: Apple does not know the order id for the app. A plain answer, not a
    /// failure.
    case invalid(detail: String)
    /// No verdict: failures that outlasted the retries, a refused request, an answer that does not
    /// decode, a signed transaction that does not verify or names another app.
    case unverified(detail: String)
    /// 401 after a fresh token, or 4000002, for the bid asked with.
    case configuration(detail: String)
}

/// Look Up Order ID for one order id, as an exchange: the environment the database serves first, the
/// other once (the hop every lookup makes) when the first does not find the order (status 1) or does
/// not answer. Apple documents the endpoint for production only ("not available in the sandbox"), so
/// the sandbox's status 1 proves nothing, and neither does its failure: the order id is `invalid` only
/// when production answered status 1, and found wherever Apple answered status 0 with transactions
/// that verify.
public struct OrderIDLookup: AppleExchange {
    private let client: ServerAPIClient
    private let orderID: String
    private let bundleID: String
    /// The apps whose transactions are believed (`APPLE_BUNDLE_IDS`); a transaction that names none is
    /// taken for the app the token named, as Apple answered for it.
    private let acceptedBundleIDs: Set<String>
    private let purpose: RequestPurpose
    private var environment: AppStoreEnvironment
    private var mayHop = true
    /// Environments that answered status 1.
    private var invalidIn: [AppStoreEnvironment] = []
    /// What each environment that gave no answer said, for the detail.
    private var failures: [String] = []
    /// The driver stopped the question (a signal, the hour's budget spent): no hop is asked after it.
    private var stopped = false
    private var call: ServerAPICall?

    init(
        client: ServerAPIClient, orderID: String, bundleID: String, acceptedBundleIDs: Set<String>,
        environment: AppStoreEnvironment, purpose: RequestPurpose
    ) {
        self.client = client
        self.orderID = orderID
        self.bundleID = bundleID
        self.acceptedBundleIDs = acceptedBundleIDs
        self.environment = environment
        self.purpose = purpose
    }

    /// Asks the first environment, or ends at once without a request for an id that is not one.
    public mutating func start() -> ExchangeStep<OrderLookupResult> {
        guard ServerAPIClient.isWellFormedOrderID(orderID) else {
            return .finish(.invalid(detail: "the order id is not 1 to 32 letters and digits: not asked"))
        }
        return ask(purpose)
    }

    public mutating func handle(_ event: ExchangeEvent) -> ExchangeStep<OrderLookupResult> {
        if case .stop = event, call != nil { stopped = true }
        guard let step = call.handle(event) else {
            return .finish(.unverified(detail: "order lookup: no request in progress"))
        }
        return follow(step)
    }

    private mutating func ask(_ purpose: RequestPurpose) -> ExchangeStep<OrderLookupResult> {
        follow(
            call.start(
                ServerAPICall(
                    client: client, endpoint: .orderLookup, id: orderID, query: "", bundleID: bundleID,
                    environment: environment, purpose: purpose)))
    }

    private mutating func follow(_ step: ExchangeStep<ServerAPICall.Outcome>) -> ExchangeStep<OrderLookupResult> {
        switch step {
        case .send(let request, let delay): return .send(request, after: delay)
        case .finish(.answer(let body)): return received(body)
        case .finish(.finished(.configuration(let detail))): return .finish(.configuration(detail: detail))
        case .finish(.finished(.unverified(let detail))), .finish(.finished(.invalidID(let detail, _))):
            return failed(detail)
        case .finish(.notHere(let code, _)): return failed("errorCode \(code)")
        case .finish(.restartWalk(let code)): return failed("errorCode \(code)")
        }
    }

    private mutating func received(_ body: Data) -> ExchangeStep<OrderLookupResult> {
        let reading: ServerAPIOrderLookupBody.Reading
        do {
            reading = try ServerAPIOrderLookupBody(body).reading
        } catch {
            return failed("order lookup: \(error)")
        }
        switch reading {
        case .unreadable(let detail):
            return failed(detail)
        case .invalid:
            invalidIn.append(environment)
            return next()
        case .valid(let signed):
            var transactions: [SignedTransaction] = []
            for jws in signed {
                switch client.transaction(jws, environment: environment) {
                case .failure(let error):
                    return .finish(.unverified(detail: "order lookup in \(environment): \(error.detail)"))
                case .success(let transaction):
                    if let named = transaction.bundleID, named != bundleID, !acceptedBundleIDs.contains(named) {
                        return .finish(
                            .unverified(
                                detail: "order lookup in \(environment): a signed transaction names bundle id "
                                    + "\(named), not one of the job's apps"))
                    }
                    transactions.append(transaction)
                }
            }
            return .finish(.found(transactions, environment: environment))
        }
    }

    private mutating func failed(_ detail: String) -> ExchangeStep<OrderLookupResult> {
        failures.append("\(environment): \(detail)")
        return next()
    }

    /// The other environment once, else the verdict.
    private mutating func next() -> ExchangeStep<OrderLookupResult> {
        if mayHop, !stopped {
            mayHop = false
            environment = environment.other
            return ask(.hop)
        }
        let notes = failures.isEmpty ? "" : " (" + failures.joined(separator: "; ") + ")"
        if invalidIn.contains(.production) {
            let answered = invalidIn.map(\.rawValue).joined(separator: " and ")
            return .finish(.invalid(detail: "Apple answered status 1 (invalid order id) in \(answered)\(notes)"))
        }
        if invalidIn.isEmpty {
            return .finish(.unverified(detail: "order lookup: " + failures.joined(separator: "; ")))
        }
        return .finish(
            .unverified(
                detail: "order lookup: only the sandbox answered (status 1), and Apple serves order ids in "
                    + "production\(notes)"))
    }
}
