import AppStoreReceipts

/// The signed payload of a notification (`ResponseBodyV2DecodedPayload`, research/server-api.md §5):
/// type, subtype, UUID, `signedDate`, and `data` with the app's ids and the nested JWS of the transaction
/// and its chain's renewal info as they were when Apple sent it.
extension WorldUnit {
    /// The payload JSON of `notification`; `sign(key, payload)` signs the nested items (and may cache
    /// them under `key`). `home` is the world's environment (the orphan account's and `TEST`'s).
    func notificationPayload(
        _ notification: WorldNotification, home: AppStoreEnvironment, sign: (String, () -> [UInt8]) -> String
    ) -> [UInt8] {
        var data = PayloadJSON()
        let environment = notification.environment
        let appItemID = environment == .sandbox ? 0 : WorldCatalog.appItemID
        if appItemID != 0 { data.number("appAppleId", appItemID) }
        data.text("bundleId", WorldCatalog.appBundleID)
        if let slot = notification.account, let id = notification.transactionID {
            let owner = notificationAccount(slot, home: home)
            data.text("bundleVersion", owner.applicationVersion)
            data.text("environment", owner.signedEnvironment)
            let at = notification.signedMs
            let appTransactionID = appTransactionID(account: slot)
            if let transaction = owner.transaction(withID: id) {
                data.text(
                    "signedTransactionInfo",
                    sign("nt" + notification.uuid) {
                        owner.transactionPayload(
                            transaction, seenAt: at, signedMs: at, appTransactionID: appTransactionID)
                    })
                if notification.carriesRenewalInfo,
                    let renewal = owner.renewals.first(where: {
                        $0.originalTransactionID == transaction.originalTransactionID
                    })
                {
                    // The chain's newest period at send time.
                    let last =
                        owner.transactions(purchasedBy: at).last {
                            $0.originalTransactionID == transaction.originalTransactionID
                        } ?? transaction
                    data.text(
                        "signedRenewalInfo",
                        sign("nr" + notification.uuid) {
                            owner.renewalPayload(renewal, last: last, asOf: at, appTransactionID: appTransactionID)
                        })
                }
            }
        } else {
            data.text("environment", environment == .sandbox ? "Sandbox" : "Production")
        }
        var json = PayloadJSON()
        json.text("notificationType", notification.type)
        if let subtype = notification.subtype { json.text("subtype", subtype) }
        json.text("notificationUUID", notification.uuid)
        json.literal("data", String(decoding: data.bytes, as: UTF8.self))
        json.text("version", "2.0")
        json.number("signedDate", notification.signedMs)
        return json.bytes
    }
}
