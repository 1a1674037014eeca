import AppStoreReceipts

/// The App Store Server API as the run asks it, for tests: the client and the driver that sends its
/// requests, with lookups that wait for their answer.
public struct ServerAPIRig: Sendable {
    public let client: ServerAPIClient
    public let driver: ExchangeDriver

    public init(client: ServerAPIClient, driver: ExchangeDriver) {
        self.client = client
        self.driver = driver
    }

    /// `client.history(of:…)`, driven and waited for: the lookup and its traffic.
    public func historyNow(
        of id: String, bundleID: String = "com.example", environment: AppStoreEnvironment = .production,
        mayHop: Bool = true
    ) -> (lookup: ServerAPILookup<ServerAPIHistory>, traffic: AppleTraffic) {
        let (lookup, traffic) = driver.resultNow(
            of: client.history(of: id, bundleID: bundleID, environment: environment, mayHop: mayHop))
        return (lookup, traffic)
    }

    /// `client.statuses(of:…)`, driven and waited for.
    public func statusesNow(
        of id: String, bundleID: String = "com.example", environment: AppStoreEnvironment = .production
    ) -> (lookup: ServerAPILookup<ServerAPIStatuses>, traffic: AppleTraffic) {
        let (lookup, traffic) = driver.resultNow(
            of: client.statuses(of: id, bundleID: bundleID, environment: environment))
        return (lookup, traffic)
    }

    /// `client.orderLookup(…)`, driven and waited for.
    public func orderLookupNow(
        _ orderID: String, bundleID: String = "com.example", acceptedBundleIDs: Set<String> = ["com.example"],
        environment: AppStoreEnvironment = .production
    ) -> (result: OrderLookupResult, traffic: AppleTraffic) {
        driver.resultNow(
            of: client.orderLookup(
                orderID, bundleID: bundleID, acceptedBundleIDs: acceptedBundleIDs, environment: environment))
    }

    /// What a signal does to the run's driver.
    public func stop() { driver.stop() }
}
