import AppStoreReceipts
import Foundation

/// Every notification of the world in Apple's history window, as compact entries sorted by
/// `(signedDate, UUID)`: what a time-range query pages over without rebuilding every unit per page.
///
/// Built once, from every unit in turn (memory stays at one unit while building), about 40 bytes a
/// notification. An entry leads back to its notification by `(unit, position)`: a page rebuilds only
/// the units of its 20 records. The filters Apple offers on a span (type, subtype, failed
/// deliveries, environment) are answered from the entry itself.
struct NotificationHistoryIndex: Sendable {
    /// The order of the history: `signedDate`, then the UUID's 128 bits (the order of its text).
    struct Key: Sendable, Hashable, Comparable {
        var signedMs: Int64
        var high: UInt64
        var low: UInt64

        static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.signedMs, lhs.high, lhs.low) < (rhs.signedMs, rhs.high, rhs.low)
        }

        /// The key of a notification (its UUID text parsed back to bits).
        init(_ notification: WorldNotification) {
            let hex = notification.uuid.replacingOccurrences(of: "-", with: "")
            self.init(
                signedMs: notification.signedMs, high: UInt64(hex.prefix(16), radix: 16) ?? 0,
                low: UInt64(hex.suffix(16), radix: 16) ?? 0)
        }

        init(signedMs: Int64, high: UInt64, low: UInt64) {
            self.signedMs = signedMs
            self.high = high
            self.low = low
        }
    }

    struct Entry: Sendable {
        var key: Key
        var unit: Int32
        /// Position in `SimulatedWorld.notifications(of:)` of the unit.
        var position: Int32
        var type: UInt16
        /// 0: none; else 1 + index in `subtypes`.
        var subtype: UInt16
        var isSandbox: Bool
        var deliveryFailed: Bool
    }

    let entries: [Entry]
    let types: [String]
    let subtypes: [String]

    /// Reads every unit of `world`, each built for the index alone: going through the serving cache
    /// would push out the units requests are using.
    init(world: SimulatedWorld) {
        var entries: [Entry] = []
        var types: [String] = []
        var subtypes: [String] = []
        var typeCodes: [String: UInt16] = [:]
        var subtypeCodes: [String: UInt16] = [:]
        for index in 0..<world.unitCount {
            for (position, notification) in world.notifications(of: world.unit(index)).enumerated() {
                let window = SimulatedWorld.historyWindowMs(notification.environment)
                guard notification.signedMs >= world.asOfMs - window, notification.signedMs <= world.asOfMs else {
                    continue
                }
                let type =
                    typeCodes[notification.type]
                    ?? {
                        types.append(notification.type)
                        typeCodes[notification.type] = UInt16(types.count - 1)
                        return UInt16(types.count - 1)
                    }()
                var subtype: UInt16 = 0
                if let name = notification.subtype {
                    subtype =
                        subtypeCodes[name]
                        ?? {
                            subtypes.append(name)
                            subtypeCodes[name] = UInt16(subtypes.count)
                            return UInt16(subtypes.count)
                        }()
                }
                entries.append(
                    Entry(
                        key: Key(notification), unit: Int32(index), position: Int32(position), type: type,
                        subtype: subtype, isSandbox: notification.environment == .sandbox,
                        deliveryFailed: notification.deliveryFailed))
            }
        }
        entries.sort { $0.key < $1.key }
        self.entries = entries
        self.types = types
        self.subtypes = subtypes
    }

    /// Up to `limit` entries after `after` (or from `request.startMs`) matching the request in
    /// `environment`, and whether more follow.
    func page(
        _ request: NotificationHistoryRequest, environment: AppStoreEnvironment, after: Key?, limit: Int
    ) -> (entries: [Entry], hasMore: Bool) {
        let typeCode = request.notificationType.map { name in types.firstIndex(of: name).map(UInt16.init) ?? .max }
        let subtypeCode = request.notificationSubtype.map { name in
            subtypes.firstIndex(of: name).map { UInt16($0 + 1) } ?? .max
        }
        let sandbox = environment == .sandbox
        var position = firstIndex { key in after.map { key > $0 } ?? (key.signedMs >= request.startMs) }
        var page: [Entry] = []
        while position < entries.count, entries[position].key.signedMs < request.endMs {
            let entry = entries[position]
            position += 1
            guard entry.key.signedMs >= request.startMs, entry.isSandbox == sandbox else { continue }
            if let typeCode, entry.type != typeCode { continue }
            if let subtypeCode, entry.subtype != subtypeCode { continue }
            if request.onlyFailures, !entry.deliveryFailed { continue }
            if page.count == limit { return (page, true) }
            page.append(entry)
        }
        return (page, false)
    }

    /// The first position whose key satisfies `isAfter` (monotone over the sorted entries).
    private func firstIndex(_ isAfter: (Key) -> Bool) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(entries[middle].key) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
