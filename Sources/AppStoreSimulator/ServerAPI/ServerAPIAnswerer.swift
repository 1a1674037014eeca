import AppStoreReceipts

/// One Server API answer before it becomes HTTP: a status, a JSON body, and the error code it carries.
struct ServerAPIReply: Sendable, Hashable {
    var status: Int
    var body: [UInt8]
    var errorCode: Int?

    static func error(_ status: Int, _ code: Int, _ message: String) -> ServerAPIReply {
        ServerAPIReply(
            status: status, body: Array("{\"errorCode\":\(code),\"errorMessage\":\"\(message)\"}".utf8),
            errorCode: code)
    }

    static let notFound = error(404, 4_040_010, "Transaction id not found.")
    static let accountNotFound = error(404, 4_040_001, "Account not found.")
    static let internalError = error(500, 5_000_000, "An unknown error occurred.")
    /// A token for an app the key may not ask about: 401 with no body, like a bad token.
    static let unauthorized = ServerAPIReply(status: 401, body: [], errorCode: nil)
}

/// The App Store Server API over the world: what Apple answers at `asOf` for a transaction id, in the
/// environment asked, to a caller whose token names `bundleID`.
///
/// An id leads to its account without any index (`ServerAPILookup`, which also decides every error:
/// 401 for a `bid` the key may not name, 4000006 for an id of a format Apple refuses, 4040010 for an id
/// unknown to the world, of another environment or app, or one Apple loses now and then, 4040001 for
/// a deleted Apple account in either environment, a persistent 500 / 5000000 for an account Apple's
/// data is broken for). docs/simulator.md lists what each receipt scenario meets.
///
/// Pure apart from the signer's cache: no clock (the world's `asOf` is Apple's now), no randomness.
struct ServerAPIAnswerer: Sendable {
    let world: SimulatedWorld
    let units: @Sendable (Int) -> WorldUnit
    let signer: ServerAPISigner

    static let pageSize = 20

    var lookup: ServerAPILookup { ServerAPILookup(world: world, units: units) }

    func answer(
        _ endpoint: ServerAPIEndpoint, id: String, environment: AppStoreEnvironment, bundleID: String,
        query: String?, queryValue: (String) -> String?
    ) -> ServerAPIReply {
        let unit: WorldUnit
        let slot: Int
        let transaction: WorldTransaction?
        switch lookup.resolve(id, environment: environment, bundleID: bundleID) {
        case .refused(let reply): return reply
        case .found(let foundUnit, let foundSlot, let foundTransaction):
            (unit, slot, transaction) = (foundUnit, foundSlot, foundTransaction)
        }
        let owner = unit.accounts[slot]
        switch endpoint {
        case .transactionInfo:
            guard let transaction else { return .error(400, 4_000_048, "App transaction id not supported.") }
            return ServerAPIReply(
                status: 200,
                body: Array("{\"signedTransactionInfo\":\"\(signed(transaction, of: owner, in: unit))\"}".utf8))
        case .transactionHistory:
            return history(unit: unit, slot: slot, query: query, queryValue: queryValue)
        case .subscriptionStatuses:
            return statuses(unit: unit, slot: slot)
        case .notificationHistory, .orderLookup:
            preconditionFailure("the notification history and order lookups are routed before any id lookup")
        }
    }

    // MARK: History

    private func history(unit: WorldUnit, slot: Int, query: String?, queryValue: (String) -> String?)
        -> ServerAPIReply
    {
        let owner = unit.accounts[slot]
        var transactions = owner.transactions(purchasedBy: owner.answeredAt(worldAsOf: world.asOfMs))
        // "Recently modified" order: purchase time here (a refund does not reorder the world's history).
        transactions.sort { ($0.purchaseMs, $0.transactionID) < ($1.purchaseMs, $1.transactionID) }
        switch queryValue("sort") {
        case nil, "ASCENDING": break
        case "DESCENDING": transactions.reverse()
        default: return .error(400, 4_000_021, "Invalid sort.")
        }
        let fingerprint = ServerAPIRevision.fingerprint(
            unit: unit.index, account: slot, environment: owner.signedEnvironment, query: query)
        var offset = 0
        if let text = queryValue("revision") {
            guard let revision = ServerAPIRevision(text: text), revision.fingerprint == fingerprint,
                revision.offset <= transactions.count
            else { return .error(400, 4_000_005, "Invalid request revision.") }
            offset = revision.offset
        }
        let page = transactions[offset..<min(transactions.count, offset + Self.pageSize)]
        let next = ServerAPIRevision(offset: offset + page.count, fingerprint: fingerprint)
        let signed = page.map { "\"" + self.signed($0, of: owner, in: unit) + "\"" }
        let body =
            "{\"revision\":\"\(next.text)\",\"hasMore\":\(next.offset < transactions.count),"
            + header(owner) + ",\"signedTransactions\":[" + signed.joined(separator: ",") + "]}"
        return ServerAPIReply(status: 200, body: Array(body.utf8))
    }

    // MARK: Subscription statuses

    private func statuses(unit: WorldUnit, slot: Int) -> ServerAPIReply {
        let owner = unit.accounts[slot]
        let asOf = owner.answeredAt(worldAsOf: world.asOfMs)
        let subscriptions = owner.transactions(purchasedBy: asOf).filter {
            WorldCatalog.product($0.productID)?.kind == .autoRenewable
        }
        var items: [String] = []
        for last in AppleAnswerer.newestPerOriginalTransaction(subscriptions) {
            let renewal =
                owner.renewals.first { $0.originalTransactionID == last.originalTransactionID }
                ?? WorldAccount.RenewalInfo(
                    originalTransactionID: last.originalTransactionID, productID: last.productID,
                    autoRenewProductID: last.productID, autoRenewStatus: false, expirationIntent: nil,
                    isInBillingRetryPeriod: nil, gracePeriodExpiresMs: nil)
            let status = Self.status(of: last, renewal: renewal, asOf: asOf)
            let renewalJWS = signer.signed("r" + last.originalTransactionID) {
                owner.renewalPayload(
                    renewal, last: last, asOf: asOf, appTransactionID: unit.appTransactionID(account: slot))
            }
            items.append(
                "{\"status\":\(status),\"originalTransactionId\":\"\(last.originalTransactionID)\","
                    + "\"signedTransactionInfo\":\"\(signed(last, of: owner, in: unit))\","
                    + "\"signedRenewalInfo\":\"\(renewalJWS)\"}")
        }
        // The world sells one subscription group.
        let data =
            items.isEmpty
            ? "[]"
            : "[{\"subscriptionGroupIdentifier\":\"\(WorldCatalog.premiumGroupID)\",\"lastTransactions\":["
                + items.joined(separator: ",") + "]}]"
        return ServerAPIReply(status: 200, body: Array(("{" + header(owner) + ",\"data\":" + data + "}").utf8))
    }

    /// The subscription status of a chain whose newest period is `last` (1 active, 2 expired, 3 billing
    /// retry, 4 billing grace period, 5 revoked), from the same facts as verifyReceipt's answer for it:
    /// the period's expiry and cancellation, and `pending_renewal_info`'s billing retry and grace period.
    static func status(of last: WorldTransaction, renewal: WorldAccount.RenewalInfo, asOf: Int64) -> Int {
        let view = last.view(at: asOf)
        if view.cancellationMs != nil, !view.isUpgraded { return 5 }
        if (last.expiresMs ?? .min) > asOf { return 1 }
        if renewal.isInBillingRetryPeriod == true {
            return (renewal.gracePeriodExpiresMs ?? .min) > asOf ? 4 : 3
        }
        return 2
    }

    // MARK: Parts

    /// A transaction as Apple signs it at `asOf`, cached by its id (unique in the world).
    func signed(_ transaction: WorldTransaction, of owner: WorldAccount, in unit: WorldUnit) -> String {
        let slot = owner.slot
        return signer.signed(transaction.transactionID) {
            owner.transactionPayload(
                transaction, seenAt: owner.answeredAt(worldAsOf: world.asOfMs),
                signedMs: owner.answeredAt(worldAsOf: world.asOfMs),
                appTransactionID: unit.appTransactionID(account: slot))
        }
    }

    /// `"bundleId":…,"appAppleId":…,"environment":…` (no `appAppleId` in the sandbox, where it is 0).
    private func header(_ owner: WorldAccount) -> String {
        "\"bundleId\":\"\(owner.bundleID)\""
            + (owner.appItemID != 0 ? ",\"appAppleId\":\(owner.appItemID)" : "")
            + ",\"environment\":\"\(owner.signedEnvironment)\""
    }
}
