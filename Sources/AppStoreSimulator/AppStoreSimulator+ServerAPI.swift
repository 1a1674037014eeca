import AppStoreReceipts
import Foundation

/// The App Store Server API routes: `GET /{production|sandbox}/inApps/v2/history/{id}`,
/// `/inApps/v1/subscriptions/{id}`, `/inApps/v1/transactions/{id}` and `/inApps/v1/lookup/{orderId}`, and
/// `POST /{production|sandbox}/inApps/v1/notifications/history`.
///
/// Each request: the token (401 with no body, as Apple), the endpoint's own rate limit (429 with
/// `Retry-After` in Unix milliseconds), a fault decision (mapped by `ServerAPIService.inject`), then the
/// answer (`ServerAPIAnswerer`), after the request's latency like verifyReceipt's.
extension AppStoreSimulator {
    func serverAPI(
        _ request: HTTPRequest, endpoint: ServerAPIEndpoint, environment: AppStoreEnvironment, id: String
    ) -> HTTPResponse {
        let arrival = recorder.arrival()
        let name = ServerAPIService.name(endpoint, environment)
        func record(code: Int?, http: Int?, fault: FaultKind? = nil, limited: Bool = false, delay: Duration?) {
            recorder.record(
                endpoint: name, arrivedAt: arrival.at, appleStatus: code, httpStatus: http, fault: fault,
                rateLimited: limited, delay: delay)
        }
        guard let serverAPI else {
            record(code: nil, http: 401, delay: nil)
            let message =
                "{\"errorMessage\":\"this simulator serves no App Store Server API: "
                + "start it with the --pki-dir that 'simulator seed' wrote\"}"
            return .json(Data(message.utf8), status: 401)
        }
        let method = endpoint.method
        guard request.method == method else {
            record(code: nil, http: 405, delay: nil)
            return .error(405, nil, headers: [("Allow", method)])
        }
        let now = Date()
        let token: ServerAPIToken
        switch ServerAPIToken.check(
            authorization: request.headers["Authorization"], key: serverAPI.key,
            now: Int64(now.timeIntervalSince1970))
        {
        case .success(let accepted): token = accepted
        case .failure:
            record(code: nil, http: 401, delay: nil)
            return HTTPResponse(status: 401)
        }

        let decision = faults.decide(requestNumber: arrival.number)
        let delay = decision.delay > .zero ? decision.delay : nil
        if let limiter = serverAPI.limiters[name], let wait = limiter.admit(now: arrival.at) {
            record(code: 4_290_000, http: 429, limited: true, delay: delay)
            let waitMs = (FaultInjector.nanoseconds(wait) + 999_999) / 1_000_000
            let retryAt = Int64((now.timeIntervalSince1970 * 1000).rounded(.up)) + waitMs
            let reply = ServerAPIReply.error(429, 4_290_000, "Rate limit exceeded.")
            return HTTPResponse(
                status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", String(retryAt))],
                body: reply.body
            ).withDelay(delay)
        }
        if let fault = decision.fault {
            let (response, code) = ServerAPIService.inject(fault, options: options)
            let applied = fault == .stall ? nil : delay
            record(code: code, http: response.action == .respond ? response.status : nil, fault: fault, delay: applied)
            return fault == .stall ? response : response.withDelay(delay)
        }

        let reply: ServerAPIReply
        switch endpoint {
        case .notificationHistory:
            reply = serverAPI.notificationHistory.answer(
                body: request.body, environment: environment, bundleID: token.bundleID,
                paginationToken: request.queryValue("paginationToken"))
        case .orderLookup:
            reply = serverAPI.answerer.orderLookup(id, environment: environment, bundleID: token.bundleID)
        default:
            reply = serverAPI.answerer.answer(
                endpoint, id: id, environment: environment, bundleID: token.bundleID, query: request.query,
                queryValue: request.queryValue)
        }
        record(code: reply.errorCode, http: reply.status, delay: delay)
        return HTTPResponse(
            status: reply.status, headers: [("Content-Type", "application/json")], body: reply.body, delay: delay)
    }

    /// Builds the notification history's index now (the caller's thread), so the first
    /// `notifications/history` request does not wait for it; nothing without a Server API.
    package func prepareNotificationHistory() {
        serverAPI?.notificationHistory.prepare()
    }
}
