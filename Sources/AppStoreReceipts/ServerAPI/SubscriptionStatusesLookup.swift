import Foundation

/// Get All Subscription Statuses for one id, as an exchange: asked where the history was found (so no
/// hop); not there is `notFound` or `gone`, as for a history.
public struct SubscriptionStatusesLookup: AppleExchange {
    private let client: ServerAPIClient
    private let environment: AppStoreEnvironment
    /// nil for an id Apple cannot have issued: no request is made.
    private var call: ServerAPICall?

    init(
        client: ServerAPIClient, id: String, bundleID: String, environment: AppStoreEnvironment,
        purpose: RequestPurpose
    ) {
        self.client = client
        self.environment = environment
        guard ServerAPIClient.isWellFormedID(id) else { return }
        call = ServerAPICall(
            client: client, endpoint: .subscriptionStatuses, id: id, query: "", bundleID: bundleID,
            environment: environment, purpose: purpose)
    }

    public mutating func start() -> ExchangeStep<ServerAPILookup<ServerAPIStatuses>> {
        guard var call else { return .finish(.invalidID(detail: ServerAPIClient.malformedIDDetail)) }
        let step = call.start()
        self.call = call
        return follow(step)
    }

    public mutating func handle(_ event: ExchangeEvent) -> ExchangeStep<ServerAPILookup<ServerAPIStatuses>> {
        guard let step = call.handle(event) else {
            return .finish(.invalidID(detail: ServerAPIClient.malformedIDDetail))
        }
        return follow(step)
    }

    private func follow(_ step: ExchangeStep<ServerAPICall.Outcome>) -> ExchangeStep<ServerAPILookup<ServerAPIStatuses>>
    {
        let detail = { (code: Int) in "subscription statuses: errorCode \(code) in \(environment)" }
        switch step {
        case .send(let request, let delay): return .send(request, after: delay)
        case .finish(.finished(let end)): return .finish(end.lookup())
        case .finish(.answer(let body)): return .finish(client.statuses(body, environment: environment))
        case .finish(.notHere(let code, gone: false)): return .finish(.notFound(detail: detail(code), errorCode: code))
        case .finish(.notHere(let code, gone: true)): return .finish(.gone(code: code, detail: detail(code)))
        case .finish(.restartWalk(let code)):
            return .finish(.unverified(detail: detail(code) + " (a pagination error for a request without pages)"))
        }
    }
}
