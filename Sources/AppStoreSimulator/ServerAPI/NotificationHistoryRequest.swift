import AppStoreReceipts
import Foundation

/// The body of `POST /inApps/v1/notifications/history` (`NotificationHistoryRequest`,
/// research/server-api.md §9), checked as Apple checks it: the dates (4000015 / 4000016 missing or not a
/// number, 4000013 start after end), at most one of `notificationType` and `transactionId` (4000019).
/// The window check needs the world's `asOf` and is the answerer's.
struct NotificationHistoryRequest: Sendable, Hashable {
    var startMs: Int64
    var endMs: Int64
    var notificationType: String?
    var notificationSubtype: String?
    var transactionID: String?
    var onlyFailures: Bool

    /// The request, or Apple's error answer for it.
    static func parse(_ body: [UInt8]) -> Result<NotificationHistoryRequest, ServerAPIReply> {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return .failure(.error(400, 4_000_000, "Bad request."))
        }
        guard let start = milliseconds(object["startDate"]) else {
            return .failure(.error(400, 4_000_015, "Invalid start date."))
        }
        guard let end = milliseconds(object["endDate"]) else {
            return .failure(.error(400, 4_000_016, "Invalid end date."))
        }
        guard start <= end else { return .failure(.error(400, 4_000_013, "Start date after end date.")) }
        let type = object["notificationType"] as? String
        let transactionID = object["transactionId"] as? String
        if type != nil, transactionID != nil {
            return .failure(.error(400, 4_000_019, "Multiple filters supplied."))
        }
        return .success(
            NotificationHistoryRequest(
                startMs: start, endMs: end, notificationType: type,
                notificationSubtype: object["notificationSubtype"] as? String, transactionID: transactionID,
                onlyFailures: (object["onlyFailures"] as? Bool) ?? false))
    }

    /// A whole, non-negative number of milliseconds (JSON numbers arrive as `NSNumber`).
    private static func milliseconds(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        guard double.isFinite, double >= 0, double == double.rounded() else { return nil }
        return number.int64Value
    }

    /// FNV-1a over the request's fields: a token names the body it was issued for.
    var fingerprint: UInt64 {
        let text = [
            String(startMs), String(endMs), notificationType ?? "-", notificationSubtype ?? "-", transactionID ?? "-",
            onlyFailures ? "1" : "0",
        ].joined(separator: "|")
        return FNV1a.hash(text.utf8)
    }
}

/// An error answer is what a check fails with.
extension ServerAPIReply: Error {}

/// `paginationToken`: opaque to the client; here the key of the last record sent (`signedMs`, UUID bits),
/// the body's fingerprint and a check keyed by the world's seed, base64url. A token that does not decode,
/// fails its check, or was issued for another body is 4000014 (InvalidPaginationToken).
struct NotificationHistoryToken: Sendable, Hashable {
    var key: NotificationHistoryIndex.Key
    var fingerprint: UInt64

    func text(seed: UInt64) -> String {
        let fields = [
            String(key.signedMs), String(key.high, radix: 16), String(key.low, radix: 16),
            String(fingerprint, radix: 16),
        ]
        let body = fields.joined(separator: ".")
        let text = body + "." + String(Self.check(body, seed: seed), radix: 16)
        return WorldUnit.base64URL(Array(text.utf8))
    }

    init(key: NotificationHistoryIndex.Key, fingerprint: UInt64) {
        self.key = key
        self.fingerprint = fingerprint
    }

    init?(text: String, seed: UInt64) {
        guard let bytes = WorldUnit.bytes(base64URL: text), let decoded = String(validating: bytes, as: UTF8.self)
        else { return nil }
        let parts = decoded.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, let signedMs = Int64(parts[0]), let high = UInt64(parts[1], radix: 16),
            let low = UInt64(parts[2], radix: 16), let fingerprint = UInt64(parts[3], radix: 16),
            let check = UInt64(parts[4], radix: 16),
            check == Self.check(parts[0..<4].joined(separator: "."), seed: seed)
        else { return nil }
        self.init(key: NotificationHistoryIndex.Key(signedMs: signedMs, high: high, low: low), fingerprint: fingerprint)
    }

    private static func check(_ body: String, seed: UInt64) -> UInt64 {
        var hash = seed ^ 0x7A6E_0C4E_5EED_0001
        for byte in body.utf8 {
            hash = SplitMix64.mix(hash ^ UInt64(byte))
        }
        return hash
    }
}
