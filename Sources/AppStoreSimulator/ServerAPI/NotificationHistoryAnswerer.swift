import AppStoreReceipts
import Foundation
import Synchronization

/// `POST /{production|sandbox}/inApps/v1/notifications/history` over the world's notifications
/// (research/server-api.md §9): pages of 20 in `(signedDate, notificationUUID)` order, `paginationToken`
/// to go on (4000014 for one that is not ours or was issued for another body), the date window Apple
/// keeps (4000012 for a start more than 180 days before `asOf` in production, 30 in the sandbox), the
/// filters `notificationType`/`notificationSubtype`, `transactionId` (the notifications of its original
/// transaction) and `onlyFailures`. Every record is signed with the world's chain, its nested signed
/// transaction and renewal info too.
///
/// The index of every notification (`NotificationHistoryIndex`) is built on the first request that
/// needs it (`prepare()` builds it ahead), once; a `transactionId` query rebuilds only its unit.
final class NotificationHistoryAnswerer: Sendable {
    let world: SimulatedWorld
    let units: @Sendable (Int) -> WorldUnit
    let signer: ServerAPISigner
    /// Signs the forged share (`SimulatorOptions.forgedNotificationFraction`) with a chain of its own,
    /// valid and well formed but not Apple's; nil: nothing is forged.
    let forger: ServerAPISigner?
    let forgedFraction: Double
    private let index = Mutex<NotificationHistoryIndex?>(nil)

    static let pageSize = 20

    init(
        world: SimulatedWorld, units: @escaping @Sendable (Int) -> WorldUnit, signer: ServerAPISigner,
        forgedFraction: Double = 0
    ) {
        self.world = world
        self.units = units
        self.signer = signer
        self.forgedFraction = forgedFraction
        let decade: TimeInterval = 3650 * 86_400
        forger =
            forgedFraction > 0
            ? (try? SigningChain.mint(
                name: "not the App Store", notBefore: world.asOf.addingTimeInterval(-decade),
                notAfter: world.asOf.addingTimeInterval(decade))).map {
                    ServerAPISigner(chain: $0, cacheCapacity: 1_024)
                }
            : nil
    }

    /// Whether `uuid`'s record is signed by the forger: a fixed share, chosen by the UUID and the seed.
    func isForged(_ uuid: String) -> Bool {
        guard forgedFraction > 0 else { return false }
        var hash = world.parameters.seed ^ 0xF0_76ED
        for byte in uuid.utf8 { hash = SplitMix64.mix(hash ^ UInt64(byte)) }
        return Double(hash >> 11) / Double(1 << 53) < forgedFraction
    }

    /// Builds the index now (a caller's thread), so the first request does not wait for it.
    func prepare() { _ = builtIndex() }

    private func builtIndex() -> NotificationHistoryIndex {
        index.withLock { index in
            if let index { return index }
            let built = NotificationHistoryIndex(world: world, units: units)
            index = built
            return built
        }
    }

    func answer(body: [UInt8], environment: AppStoreEnvironment, bundleID: String, paginationToken: String?)
        -> ServerAPIReply
    {
        guard ServerAPILookup.keyBundleIDs.contains(bundleID) else { return .unauthorized }
        let request: NotificationHistoryRequest
        switch NotificationHistoryRequest.parse(body) {
        case .failure(let reply): return reply
        case .success(let parsed): request = parsed
        }
        if request.startMs < world.asOfMs - SimulatedWorld.historyWindowMs(environment) {
            return .error(400, 4_000_012, "Start date too far in the past.")
        }
        var after: NotificationHistoryIndex.Key?
        if let paginationToken {
            guard let token = NotificationHistoryToken(text: paginationToken, seed: world.parameters.seed),
                token.fingerprint == request.fingerprint
            else { return .error(400, 4_000_014, "Invalid pagination token.") }
            after = token.key
        }
        let notifications: [WorldNotification]
        let hasMore: Bool
        if let transactionID = request.transactionID {
            switch ofTransaction(transactionID, request, environment: environment, bundleID: bundleID, after: after) {
            case .failure(let reply): return reply
            case .success(let page): (notifications, hasMore) = page
            }
        } else {
            let page = builtIndex().page(request, environment: environment, after: after, limit: Self.pageSize)
            notifications = page.entries.map { entry in
                world.notifications(of: units(Int(entry.unit)))[Int(entry.position)]
            }
            hasMore = page.hasMore
        }
        return reply(notifications, hasMore: hasMore, request: request)
    }

    /// The notifications of `transactionID`'s original transaction in the span, after `after`.
    private func ofTransaction(
        _ transactionID: String, _ request: NotificationHistoryRequest, environment: AppStoreEnvironment,
        bundleID: String, after: NotificationHistoryIndex.Key?
    ) -> Result<([WorldNotification], Bool), ServerAPIReply> {
        let lookup = ServerAPILookup(world: world, units: units)
        switch lookup.resolve(transactionID, environment: environment, bundleID: bundleID) {
        case .refused(let reply): return .failure(reply)
        case .found(_, _, nil): return .failure(.error(400, 4_000_048, "App transaction id not supported."))
        case .found(let unit, let slot, let transaction?):
            let window = SimulatedWorld.historyWindowMs(environment)
            let matching = world.notifications(of: unit).filter { notification in
                notification.account == slot
                    && notification.originalTransactionID == transaction.originalTransactionID
                    && notification.signedMs >= max(request.startMs, world.asOfMs - window)
                    && notification.signedMs < request.endMs && (!request.onlyFailures || notification.deliveryFailed)
                    && after.map { NotificationHistoryIndex.Key(notification) > $0 } ?? true
            }.sorted { NotificationHistoryIndex.Key($0) < NotificationHistoryIndex.Key($1) }
            return .success((Array(matching.prefix(Self.pageSize)), matching.count > Self.pageSize))
        }
    }

    private func reply(_ notifications: [WorldNotification], hasMore: Bool, request: NotificationHistoryRequest)
        -> ServerAPIReply
    {
        let records = notifications.map { notification -> String in
            let unit = units(
                notification.account == nil ? SimulatedWorld.forcedNotificationUnit : unitIndex(notification))
            let by = isForged(notification.uuid) ? (forger ?? signer) : signer
            let jws = by.signed("n" + notification.uuid) {
                unit.notificationPayload(notification, home: world.environment) { key, payload in
                    by.signed(key, payload: payload)
                }
            }
            let attempts = notification.sendAttempts.map {
                "{\"attemptDate\":\($0.attemptMs),\"sendAttemptResult\":\"\($0.result)\"}"
            }
            return "{\"sendAttempts\":[" + attempts.joined(separator: ",") + "],\"signedPayload\":\"" + jws + "\"}"
        }
        var body = "{\"notificationHistory\":[" + records.joined(separator: ",") + "],\"hasMore\":\(hasMore)"
        if hasMore, let last = notifications.last {
            let token = NotificationHistoryToken(
                key: NotificationHistoryIndex.Key(last), fingerprint: request.fingerprint)
            body += ",\"paginationToken\":\"" + token.text(seed: world.parameters.seed) + "\""
        }
        return ServerAPIReply(status: 200, body: Array((body + "}").utf8))
    }

    /// The unit a notification came from: its transaction id names it (the orphan's too).
    private func unitIndex(_ notification: WorldNotification) -> Int {
        notification.transactionID.flatMap { WorldReceiptLocator.place(ofTransactionID: $0)?.unit }
            ?? SimulatedWorld.forcedNotificationUnit
    }
}
