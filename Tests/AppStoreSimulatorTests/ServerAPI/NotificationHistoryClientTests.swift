import AppStoreReceipts
import Foundation
import TestSupport
import Testing

@testable import AppStoreSimulator

/// The job's own exchange (`ServerAPIClient.notificationHistory`, `NotificationHistoryWalk`) against
/// the served history over HTTP: every page read with its token, every record believed (none rejected),
/// failed deliveries marked, and the same set the world holds.
@Suite struct NotificationHistoryClientTests {
    typealias Fixture = ServerAPIFixture

    /// Reads [start, end) in `environment` through a driver, as the run will.
    static func walk(
        _ simulator: AppStoreSimulator, environment: AppStoreEnvironment, from start: Date, to end: Date
    ) -> NotificationHistoryRead {
        let driver = ExchangeDriver(
            transport: CurlMultiTransport(maxConnectionsPerHost: 2, timeout: .seconds(30)), rate: 1000,
            maxInFlight: 2,
            tokens: ServerAPITokens(key: Fixture.key.key, keyID: Fixture.key.keyID, issuerID: Fixture.key.issuerID))
        let base = simulator.baseURL.absoluteString
        let client = ServerAPIClient(
            configuration: ServerAPIClient.Configuration(
                productionURL: URL(string: base + "/production")!, sandboxURL: URL(string: base + "/sandbox")!),
            verifier: SignedDataVerifier(anchors: [TrustAnchor(Fixture.chain.root)]))
        return driver.resultNow(
            of: client.notificationHistory(
                bundleID: WorldCatalog.appBundleID,
                // The simulator's notifications carry its apps' Apple IDs: Apple's checks hold.
                audience: NotificationAudience(
                    acceptedBundleIDs: [WorldCatalog.appBundleID], appAppleIDs: WorldCatalog.appAppleIDs,
                    environment: environment), from: start, to: end)
        ).result
    }

    @Test func theJobsWalkReadsAndBelievesEveryRecord() async throws {
        let world = Fixture.world
        let asOf = world.asOf
        let start = asOf.addingTimeInterval(-60 * 86_400)
        let expected = Fixture.productionNotifications(from: Int64(start.timeIntervalSince1970 * 1000))
        let (read, requests) = try await withServerAPISimulator { simulator in
            (
                Self.walk(simulator, environment: .production, from: start, to: asOf.addingTimeInterval(1)),
                simulator.stats.requestsByEndpoint["production/notification_history"] ?? 0
            )
        }
        guard case .complete(let batch) = read else {
            Issue.record("every page read: \(read)")
            return
        }
        #expect(batch.rejected.isEmpty, "forged none: \(batch.rejected.map(\.detail).prefix(3))")
        #expect(batch.pages == (expected.count + 19) / 20 && requests == batch.pages)
        #expect(
            batch.notifications.map { $0.uuid ?? "" }.sorted() == expected.map(\.uuid).sorted()
        )
        let failed = Set(expected.filter(\.deliveryFailed).map(\.uuid))
        #expect(!failed.isEmpty)
        #expect(
            Set(batch.notifications.filter(\.deliveryFailed).compactMap(\.uuid)) == failed)
        // The unknown type is kept, with its transaction; TEST names no purchase.
        #expect(
            batch.notifications.contains {
                $0.type?.rawValue == WorldNotification.unknownType && $0.transactionID != nil
            })
        #expect(
            batch.notifications.contains {
                $0.type?.rawValue == "TEST" && $0.originalTransactionID == nil
            })
        #expect(batch.notifications.allSatisfy { $0.originalTransactionID == nil || $0.productID != nil })
    }

    /// `--forged-notification-fraction`: that share of records is signed by another chain; the walk
    /// rejects exactly those and believes the rest.
    @Test func forgedRecordsAreNeverBelieved() async throws {
        let world = Fixture.world
        let asOf = world.asOf
        let start = asOf.addingTimeInterval(-30 * 86_400)
        let expected = Fixture.productionNotifications(from: Int64(start.timeIntervalSince1970 * 1000))
        let forged = NotificationHistoryAnswerer(
            world: world, units: { world.unit($0) }, signer: ServerAPISigner(chain: Fixture.chain), forgedFraction: 0.3)
        let forgedUUIDs = Set(expected.map(\.uuid).filter(forged.isForged))
        #expect(!forgedUUIDs.isEmpty && forgedUUIDs.count < expected.count)
        let read = try await withServerAPISimulator(options: SimulatorOptions(forgedNotificationFraction: 0.3)) {
            Self.walk($0, environment: .production, from: start, to: asOf.addingTimeInterval(1))
        }
        guard case .complete(let batch) = read else {
            Issue.record("every page read: \(read)")
            return
        }
        #expect(batch.rejected.count == forgedUUIDs.count)
        let believed = Set(batch.notifications.compactMap(\.uuid))
        #expect(believed == Set(expected.map(\.uuid)).subtracting(forgedUUIDs))
    }
}
