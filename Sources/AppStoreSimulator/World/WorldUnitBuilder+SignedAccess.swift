import AppStoreReceipts

/// The users of issue 35's first point: data Apple signed whose ids the App Store Server API cannot find
/// (Apple: 4040010 "can happen, rarely, for transaction IDs that previously returned data"). Apple's
/// signature proves the purchase existed, so the row is a permanent `unverified` that keeps what it
/// names, never `invalid` (CONTRACT §9, "What proves a purchase absent"). `WorldScenario` states what a
/// correct run does with each.
extension WorldUnitBuilder {
    private typealias Catalog = WorldCatalog

    mutating func addSignedAccess(to user: inout WorldUser, rng: inout SplitMix64) {
        // A pro purchase (non-consumable: nothing about it changes with time), granted by the app.
        let purchase = asOf - days(&rng, 5...400)
        let account = openAccount(&rng, environment: home, downloadedAt: purchase - days(&rng, 0...60))
        let id = buy(account, Catalog.pro, at: purchase)
        let stored = shortlyAfter(&rng, purchase, in: home)
        // The only id of the account: no other history can list it.
        accounts[account].idsTheServerAPILoses = [id]
        switch user.scenario {
        case .appleSignedIDLost:
            user.receipts = [receipt(.app(account: account, createdMs: stored), stored)]
        case .storeKit2AppleSignedIDLost:
            user.receipts = [signedRow(account, id, stored)]
        default:
            preconditionFailure("\(user.scenario) is not one of issue 35's signed-access scenarios")
        }
        user.entitlements = [row("pro", true, nil, Catalog.pro.id, id, stored)]
    }
}
