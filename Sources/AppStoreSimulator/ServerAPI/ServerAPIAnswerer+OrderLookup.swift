import AppStoreReceipts

extension ServerAPIAnswerer {
    /// Look Up Order ID over the world (`WorldTransaction.orderID`): status 0 with the order's one
    /// transaction signed as Apple signs it at `asOf`, for an order of the environment and app asked;
    /// status 1 for any other order id (unknown, not yet purchased, another environment or app, a deleted
    /// account), as Apple answers "invalid for your app"; 401 for a `bid` the key may not name; 500
    /// 5000000 for an account Apple's data is broken for.
    func orderLookup(_ orderID: String, environment: AppStoreEnvironment, bundleID: String) -> ServerAPIReply {
        guard ServerAPILookup.keyBundleIDs.contains(bundleID) else { return .unauthorized }
        let invalid = ServerAPIReply(status: 200, body: Array("{\"status\":1}".utf8))
        guard let id = WorldTransaction.transactionID(ofOrderID: orderID),
            let (unit, slot, found) = lookup.locate(id), let transaction = found
        else { return invalid }
        let owner = unit.accounts[slot]
        if case .deleted(let at) = owner.standing, at <= world.asOfMs { return invalid }
        guard owner.environment == environment, owner.bundleID == bundleID else { return invalid }
        if case .internalError = owner.standing { return .internalError }
        let body = "{\"status\":0,\"signedTransactions\":[\"" + signed(transaction, of: owner, in: unit) + "\"]}"
        return ServerAPIReply(status: 200, body: Array(body.utf8))
    }
}
