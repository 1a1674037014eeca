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
        if forgedFraction > 0 {
            // A world asked to forge must forge: a chain that cannot be minted is a broken simulator.
            let chain: SigningChain
            do {
                chain = try SigningChain.mint(
                    name: "not the App Store", notBefore: world.asOf.addingTimeInterval(-decade),
                    notAfter: world.asOf.addingTimeInterval(decade))
            } catch {
                preconditionFailure("cannot mint the forger's chain: \(error)")
            }
            forger = ServerAPISigner(chain: chain, cacheCapacity: 1_024)
        } else {
            forger = nil
        }
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
            let built = NotificationHistoryIndex(world: world)
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
        let records: [Record]
        let hasMore: Bool
        if let transactionID = request.transactionID {
            switch ofTransaction(transactionID, request, environment: environment, bundleID: bundleID, after: after) {
            case .failure(let reply): return reply
            case .success(let page): (records, hasMore) = page
            }
        } else {
            let page = builtIndex().page(request, environment: environment, after: after, limit: Self.pageSize)
            records = self.records(page.entries)
            hasMore = page.hasMore
        }
        return reply(records, hasMore: hasMore, request: request)
    }

    /// A notification with the unit it came from (which signs its nested items).
    private typealias Record = (unit: WorldUnit, notification: WorldNotification)

    /// The notifications of index entries; each unit is rebuilt, and its notifications listed, once
    /// however many of the page's entries it holds.
    private func records(_ entries: [NotificationHistoryIndex.Entry]) -> [Record] {
        var listed: [Int32: (unit: WorldUnit, notifications: [WorldNotification])] = [:]
        var records: [Record] = []
        for entry in entries {
            let source =
                listed[entry.unit]
                ?? {
                    let unit = units(Int(entry.unit))
                    return (unit, world.notifications(of: unit))
                }()
            listed[entry.unit] = source
            records.append((source.unit, source.notifications[Int(entry.position)]))
        }
        return records
    }

    /// The notifications of `transactionID`'s original transaction in the span, after `after`.
    private func ofTransaction(
        _ transactionID: String, _ request: NotificationHistoryRequest, environment: AppStoreEnvironment,
        bundleID: String, after: NotificationHistoryIndex.Key?
    ) -> Result<([Record], Bool), ServerAPIReply> {
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
            return .success((matching.prefix(Self.pageSize).map { (unit, $0) }, matching.count > Self.pageSize))
        }
    }

    private func reply(_ records: [Record], hasMore: Bool, request: NotificationHistoryRequest) -> ServerAPIReply {
        let texts = records.map { unit, notification -> String in
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
        var body = "{\"notificationHistory\":[" + texts.joined(separator: ",") + "],\"hasMore\":\(hasMore)"
        if hasMore, let last = records.last?.notification {
            let token = NotificationHistoryToken(
                key: NotificationHistoryIndex.Key(last), fingerprint: request.fingerprint)
            body += ",\"paginationToken\":\"" + token.text(seed: world.parameters.seed) + "\""
        }
        return ServerAPIReply(status: 200, body: Array((body + "}").utf8))
    }
}
