import Foundation

/// Get Notification History over one time span, as an exchange (research/server-api.md §9): the
/// same body (`startDate`, `endDate`) on every page, `paginationToken` from the second page on, every
/// record's `signedPayload` and its nested signed data verified, and for the app and environment
/// `audience` names, before it is believed. What each
/// answer means:
///
/// - a page: its records; a record that cannot be believed is kept apart (`rejected`), never fatal;
///   `hasMore` without a token ends the read incomplete.
/// - 4000014 / 4000017 (a token Apple no longer takes): the first page again, once.
/// - a failure that outlasted its retries, a refused request, a stop: incomplete, with what was read.
/// - 401 after a fresh token, 4000002: the configuration is wrong.
public struct NotificationHistoryWalk: AppleExchange {
    /// Apple pages by 20; a span with more pages than this is cut short (incomplete) and read again.
    static let maximumPages = 50_000

    private let client: ServerAPIClient
    private let bundleID: String
    private let audience: NotificationAudience
    private var environment: AppStoreEnvironment { audience.environment }
    private let purpose: RequestPurpose
    /// The request body, the same for every page.
    private let body: Data
    private var batch = NotificationBatch()
    /// Notifications read so far, by `notificationUUID`: a restarted walk does not keep one twice.
    private var seen: Set<String> = []
    private var restarted = false
    private var call: ServerAPICall?
    /// Told once, when Apple's first page was read: Apple took the key and the app (see `init`).
    private var firstPageRead: (@Sendable () -> Void)?

    /// - Parameter firstPageRead: called once, on the thread that handles the answer, as soon as a page
    ///   was read (a 200 whose body is a page, whatever its records prove): Apple took the key and the
    ///   app, long before a walk of many pages ends.
    init(
        client: ServerAPIClient, bundleID: String, audience: NotificationAudience, from start: Date, to end: Date,
        purpose: RequestPurpose, firstPageRead: (@Sendable () -> Void)? = nil
    ) {
        self.client = client
        self.bundleID = bundleID
        self.audience = audience
        self.purpose = purpose
        self.firstPageRead = firstPageRead
        body = Data(#"{"startDate":\#(Self.milliseconds(start)),"endDate":\#(Self.milliseconds(end))}"#.utf8)
    }

    public mutating func start() -> ExchangeStep<NotificationHistoryRead> {
        page(token: nil, purpose)
    }

    public mutating func handle(_ event: ExchangeEvent) -> ExchangeStep<NotificationHistoryRead> {
        guard let step = call.handle(event) else {
            return .finish(.incomplete(batch, detail: "notification history: no request in progress"))
        }
        return follow(step)
    }

    private mutating func page(token: String?, _ purpose: RequestPurpose) -> ExchangeStep<NotificationHistoryRead> {
        var query = ""
        if let token {
            query = "paginationToken=" + (token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token)
        }
        return follow(
            call.start(
                ServerAPICall(
                    client: client, endpoint: .notificationHistory, method: .post,
                    url: client.configuration.url(.notificationHistory, id: "", query: query, environment: environment),
                    body: body, bundleID: bundleID, environment: environment, purpose: purpose)))
    }

    private mutating func follow(_ step: ExchangeStep<ServerAPICall.Outcome>) -> ExchangeStep<NotificationHistoryRead> {
        switch step {
        case .send(let request, let delay): return .send(request, after: delay)
        case .finish(.answer(let body)): return received(body)
        case .finish(.finished(.configuration(let detail))): return .finish(.configuration(detail: detail))
        case .finish(.finished(.unverified(let detail))), .finish(.finished(.invalidID(let detail, _))):
            return incomplete(detail)
        case .finish(.notHere(let code, _)): return incomplete("errorCode \(code) in \(environment)")
        case .finish(.restartWalk(let code)):
            guard !restarted else { return incomplete("errorCode \(code) again after the walk restarted") }
            restarted = true
            return page(token: nil, .continuation)
        }
    }

    private mutating func received(_ body: Data) -> ExchangeStep<NotificationHistoryRead> {
        batch.pages += 1
        let page: ServerAPINotificationPage
        do {
            page = try ServerAPINotificationPage(body)
        } catch {
            return incomplete("\(error)")
        }
        if let told = firstPageRead {
            firstPageRead = nil
            told()
        }
        for record in page.records {
            guard let jws = record.signedPayload else {
                batch.rejected.append(RejectedNotification(detail: "a record without signedPayload"))
                continue
            }
            switch client.notification(jws, for: audience) {
            case .failure(let rejected):
                batch.rejected.append(rejected)
            case .success(var verified):
                verified.deliveryFailed =
                    !record.sendAttemptResults.isEmpty && !record.sendAttemptResults.contains("SUCCESS")
                if let uuid = verified.notification.notificationUUID {
                    guard seen.insert(uuid).inserted else { continue }
                }
                batch.notifications.append(NotificationRecord(verified))
            }
        }
        guard page.hasMore else { return .finish(.complete(batch)) }
        guard let token = page.paginationToken, !token.isEmpty, batch.pages < Self.maximumPages else {
            return incomplete("hasMore without a usable paginationToken after \(batch.pages) pages")
        }
        return self.page(token: token, .continuation)
    }

    private func incomplete(_ detail: String) -> ExchangeStep<NotificationHistoryRead> {
        .finish(.incomplete(batch, detail: "notification history: \(detail)"))
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
