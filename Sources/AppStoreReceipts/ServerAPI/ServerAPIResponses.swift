import Foundation

/// Get Transaction History's body: one page of signed transactions (≤ 20) and where to go on.
struct ServerAPIHistoryPage {
    var revision: String?
    var hasMore: Bool
    var bundleID: String?
    var environment: String?
    var signedTransactions: [String]

    init(_ body: Data) throws(ServerAPIDecodingError) {
        let object = try ServerAPIDecodingError.object(body)
        revision = object.appleString("revision")
        hasMore = object.appleBool("hasMore") ?? false
        bundleID = object.appleString("bundleId")
        environment = object.appleString("environment")
        signedTransactions = ServerAPIDecodingError.strings(object["signedTransactions"])
    }
}

/// Get Notification History's body: one page of notifications (≤ 20), each with its delivery
/// attempts, and where to go on (research/server-api.md §9).
struct ServerAPINotificationPage {
    struct Record {
        var signedPayload: String?
        /// `sendAttemptResult` of each delivery attempt, in Apple's order.
        var sendAttemptResults: [String]
    }

    var records: [Record] = []
    var hasMore: Bool
    var paginationToken: String?

    init(_ body: Data) throws(ServerAPIDecodingError) {
        let object = try ServerAPIDecodingError.object(body)
        hasMore = object.appleBool("hasMore") ?? false
        paginationToken = object.appleString("paginationToken")
        guard case .array(let items)? = object["notificationHistory"] else { return }
        for case .object(let item) in items {
            var results: [String] = []
            if case .array(let attempts)? = item["sendAttempts"] {
                for case .object(let attempt) in attempts {
                    if let result = attempt.appleString("sendAttemptResult") { results.append(result) }
                }
            }
            records.append(Record(signedPayload: item.appleString("signedPayload"), sendAttemptResults: results))
        }
    }
}

/// Get All Subscription Statuses' body: per subscription group, the last transaction of each
/// subscription with its status and renewal info.
struct ServerAPIStatusesBody {
    struct Last {
        var status: Int?
        var originalTransactionID: String?
        var signedTransactionInfo: String?
        var signedRenewalInfo: String?
    }

    var environment: String?
    var lastTransactions: [Last] = []

    init(_ body: Data) throws(ServerAPIDecodingError) {
        let object = try ServerAPIDecodingError.object(body)
        environment = object.appleString("environment")
        guard case .array(let groups)? = object["data"] else { return }
        for case .object(let group) in groups {
            guard case .array(let lasts)? = group["lastTransactions"] else { continue }
            for case .object(let last) in lasts {
                lastTransactions.append(
                    Last(
                        status: last.appleInt("status"),
                        originalTransactionID: last.appleString("originalTransactionId"),
                        signedTransactionInfo: last.appleString("signedTransactionInfo"),
                        signedRenewalInfo: last.appleString("signedRenewalInfo")))
            }
        }
    }
}

/// A 2xx body that is not the JSON object the endpoint promises (an HTML error page, a cut body).
struct ServerAPIDecodingError: Error, CustomStringConvertible {
    let description: String

    static func object(_ body: Data) throws(ServerAPIDecodingError) -> AppleJSONObject {
        let value: AppleJSONValue
        do {
            value = try AppleJSONParser.parse(body)
        } catch {
            throw ServerAPIDecodingError(description: "answer is not JSON (\(body.count) bytes): \(error)")
        }
        guard case .object(let object) = value else {
            throw ServerAPIDecodingError(description: "answer is not a JSON object")
        }
        return object
    }

    static func strings(_ value: AppleJSONValue?) -> [String] {
        guard case .array(let elements)? = value else { return [] }
        return elements.compactMap { element in
            if case .string(let text) = element { return text }
            return nil
        }
    }
}

/// Look Up Order ID's body (`OrderLookupResponse`): `status` 0 for an order id valid for the app, 1
/// for one that is not, and the order's signed transactions (none for an invalid id).
struct ServerAPIOrderLookupBody: Equatable {
    /// What the body says, before any signature is checked.
    enum Reading: Equatable {
        /// Status 0 with the order's signed transactions (Apple promises at least one).
        case valid([String])
        /// Status 1: Apple does not know the order id for this app.
        case invalid
        /// A status Apple does not document, none, or status 0 without a transaction: no verdict.
        case unreadable(String)
    }

    var status: Int?
    var signedTransactions: [String]

    init(_ body: Data) throws(ServerAPIDecodingError) {
        let object = try ServerAPIDecodingError.object(body)
        status = object.appleInt("status")
        signedTransactions = ServerAPIDecodingError.strings(object["signedTransactions"])
    }

    var reading: Reading {
        switch status {
        case 0?:
            return signedTransactions.isEmpty
                ? .unreadable("order lookup: status 0 (valid) without a signed transaction")
                : .valid(signedTransactions)
        case 1?:
            return .invalid
        case let other?:
            return .unreadable("order lookup: status \(other), which Apple does not document (0 valid, 1 invalid)")
        case nil:
            return .unreadable("order lookup: the answer has no status")
        }
    }
}
