import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// A world served with the App Store Server API, a key to sign tokens with, and a raw client.
struct ServerAPIFixture: Sendable {
    static let world = TestWorlds.storeKit2
    static let chain = try! SigningChain.mint(
        notBefore: world.asOf.addingTimeInterval(-86_400 * 3650), notAfter: world.asOf.addingTimeInterval(86_400 * 3650)
    )
    static let key = try! ServerAPIKey.generate()
    static let cases = TestWorlds.firstOfEachScenario(world)

    /// A token as a client mints it (research/server-api.md §3); the parameters break it on purpose.
    static func token(
        bundleID: String? = WorldCatalog.appBundleID, key: ServerAPIKey = key, issuedAt: Int64? = nil,
        lifetime: Int64 = 300, audience: String = "appstoreconnect-v1", omitIssuedAt: Bool = false
    ) -> String {
        let now = issuedAt ?? Int64(Date().timeIntervalSince1970)
        let header = "{\"alg\":\"ES256\",\"kid\":\"\(key.keyID)\",\"typ\":\"JWT\"}"
        var claims = "{\"iss\":\"\(key.issuerID)\",\"exp\":\(now + lifetime),\"aud\":\"\(audience)\""
        if !omitIssuedAt { claims += ",\"iat\":\(now)" }
        if let bundleID { claims += ",\"bid\":\"\(bundleID)\"" }
        claims += "}"
        let input = WorldUnit.base64URL(Array(header.utf8)) + "." + WorldUnit.base64URL(Array(claims.utf8))
        return input + "." + WorldUnit.base64URL(key.key.sign(Array(input.utf8))!)
    }

    static func verifier(_ environment: AppStoreEnvironment, bundle: String = WorldCatalog.appBundleID)
        -> SignedDataVerifier
    {
        SignedDataVerifier(anchors: [TrustAnchor(chain.root)], acceptedBundleIDs: [bundle], environment: environment)
    }

    /// An account of the first user of `scenario` and one of its transaction ids.
    static func account(_ scenario: WorldScenario) throws -> (unit: WorldUnit, account: WorldAccount, id: String) {
        let (unit, user) = try #require(cases[scenario])
        let slot = try #require(unit.receipts[user.receipts[0].slot].account)
        let account = unit.accounts[slot]
        return (unit, account, try #require(account.transactions.last?.transactionID))
    }

    /// The world's production notifications signed at or after `startMs`: what a history read from
    /// there lists.
    static func productionNotifications(from startMs: Int64) -> [WorldNotification] {
        (0..<world.unitCount).flatMap { index in
            world.notifications(of: world.unit(index)).filter {
                $0.environment == .production && $0.signedMs >= startMs
            }
        }
    }
}

/// Starts a simulator with the Server API for `body` and stops it afterwards.
func withServerAPISimulator<T: Sendable>(
    options: SimulatorOptions = SimulatorOptions(),
    units: (@Sendable (Int) -> WorldUnit)? = nil,
    _ body: @escaping @Sendable (AppStoreSimulator) throws -> T
) async throws -> T {
    let simulator = AppStoreSimulator(
        world: ServerAPIFixture.world, options: options,
        serverAPI: ServerAPISetup(chain: ServerAPIFixture.chain, key: ServerAPIFixture.key), units: units)
    return try await running(simulator) { simulator in try await TestThreads.run { try body(simulator) } }
}

extension AppStoreSimulator {
    /// One GET on a new connection, with `Authorization: Bearer token` when given.
    func get(_ path: String, token: String?) throws -> RawResponse {
        let client = try RawHTTPClient(port: port)
        try client.get(path, headers: token.map { "Authorization: Bearer \($0)\r\n" } ?? "")
        return try client.readResponse()
    }
}

extension RawResponse {
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    var errorCode: Int? { json["errorCode"] as? Int }
}
