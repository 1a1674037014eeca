import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// The world's notification history and `POST /…/inApps/v1/notifications/history` over it: the same
/// seed gives the same notifications and UUIDs; pages of 20 in `(signedDate, uuid)` order with
/// `paginationToken` and `hasMore`; the filters; Apple's error codes; every record signed with the chain.
@Suite struct NotificationHistoryTests {
    typealias Fixture = ServerAPIFixture
    static let world = Fixture.world

    static func answerer(_ world: SimulatedWorld = world) -> NotificationHistoryAnswerer {
        NotificationHistoryAnswerer(
            world: world, units: { world.unit($0) }, signer: ServerAPISigner(chain: Fixture.chain))
    }

    static func body(
        from start: Int64, to end: Int64, type: String? = nil, transactionID: String? = nil, onlyFailures: Bool = false
    ) -> [UInt8] {
        var fields = ["\"startDate\":\(start)", "\"endDate\":\(end)"]
        if let type { fields.append("\"notificationType\":\"\(type)\"") }
        if let transactionID { fields.append("\"transactionId\":\"\(transactionID)\"") }
        if onlyFailures { fields.append("\"onlyFailures\":true") }
        return Array(("{" + fields.joined(separator: ",") + "}").utf8)
    }

    static var windowStart: Int64 { world.asOfMs - SimulatedWorld.historyWindowMs(.production) }

    /// Every notification of the world's production history, read page by page; each record's signed
    /// payload decoded (and verified) with the job's verifier.
    static func readAll(
        _ answerer: NotificationHistoryAnswerer, body: [UInt8], environment: AppStoreEnvironment = .production
    ) throws -> (pages: [[SignedNotification]], failed: [Bool]) {
        let verifier = Fixture.verifier(environment)
        var pages: [[SignedNotification]] = []
        var failed: [Bool] = []
        var token: String?
        repeat {
            let reply = answerer.answer(
                body: body, environment: environment, bundleID: WorldCatalog.appBundleID, paginationToken: token)
            #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])
            let records = try #require(json["notificationHistory"] as? [[String: Any]])
            var page: [SignedNotification] = []
            for record in records {
                let jws = try #require(record["signedPayload"] as? String)
                let verification = verifier.verify(Array(jws.utf8))
                #expect(verification.isValid, "\(String(describing: verification.failure))")
                guard case .notification(let notification)? = verification.payload else { continue }
                page.append(notification)
                let attempts = try #require(record["sendAttempts"] as? [[String: Any]])
                failed.append(attempts.allSatisfy { $0["sendAttemptResult"] as? String != "SUCCESS" })
            }
            pages.append(page)
            token = json["paginationToken"] as? String
            #expect((json["hasMore"] as? Bool == true) == (token != nil))
        } while token != nil && pages.count < 10_000
        return (pages, failed)
    }

    @Test func theSameSeedGivesTheSameNotificationsAndUUIDs() {
        let again = SimulatedWorld(Self.world.parameters)
        let other = SimulatedWorld(
            users: 300, seed: 12, asOf: testAsOf, includesStoreKit2Users: true)
        var uuids: Set<String> = []
        var total = 0
        for index in 0..<Self.world.unitCount {
            let first = Self.world.notifications(of: Self.world.unit(index))
            #expect(first == again.notifications(of: again.unit(index)))
            total += first.count
            uuids.formUnion(first.map(\.uuid))
        }
        #expect(uuids.count == total, "a UUID names one notification")
        let otherUUIDs = Set((0..<other.unitCount).flatMap { other.notifications(of: other.unit($0)).map(\.uuid) })
        #expect(uuids.isDisjoint(with: otherUUIDs), "another seed, other UUIDs")
        #expect(uuids.allSatisfy { $0.count == 36 && Array($0)[14] == "4" })
    }

    @Test func everyKindOfChangeIsInTheHistory() {
        var types: Set<String> = []
        var failed = 0
        var total = 0
        for index in 0..<Self.world.unitCount {
            for notification in Self.world.notifications(of: Self.world.unit(index)) {
                types.insert(notification.type + (notification.subtype.map { "/" + $0 } ?? ""))
                total += 1
                if notification.deliveryFailed { failed += 1 }
            }
        }
        for expected in [
            "SUBSCRIBED/INITIAL_BUY", "ONE_TIME_CHARGE", "DID_RENEW", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
            "DID_FAIL_TO_RENEW/GRACE_PERIOD", "DID_FAIL_TO_RENEW", "EXPIRED/VOLUNTARY", "REFUND", "REFUND_REVERSED",
            "REVOKE", "DID_CHANGE_RENEWAL_PREF/UPGRADE", "TEST", WorldNotification.unknownType,
        ] {
            #expect(types.contains(expected), "\(expected) in \(types.sorted())")
        }
        #expect(failed > 0 && Double(failed) < Double(total) * 0.1)
    }

    @Test func pagesOfTwentyInOrderWithATokenAcrossTheWindow() throws {
        let answerer = Self.answerer()
        let (pages, _) = try Self.readAll(answerer, body: Self.body(from: Self.windowStart, to: Self.world.asOfMs + 1))
        #expect(pages.count > 3)
        #expect(pages.dropLast().allSatisfy { $0.count == 20 } && pages.last!.count <= 20)
        let all = pages.flatMap { $0 }
        let keys = all.map { ($0.signedDate ?? .distantPast, $0.notificationUUID ?? "") }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }, "strictly in (signedDate, uuid) order")
        #expect(all.count == Fixture.productionNotifications(from: Self.windowStart).count)
        // Nested data verified too, and the forced ones are there.
        #expect(all.contains { $0.notificationType?.rawValue == "TEST" && $0.data?.signedTransactionInfo == nil })
        #expect(all.contains { $0.notificationType?.rawValue == WorldNotification.unknownType })
        let orphanID = try #require(
            Self.world.unit(0).orphanAccount(environment: .production).transactions.first?.transactionID)
        #expect(ServerAPILookup(world: Self.world, units: { Self.world.unit($0) }).locate(orphanID) == nil)
    }

    @Test func filtersNarrowTheHistory() throws {
        let answerer = Self.answerer()
        let end = Self.world.asOfMs + 1
        let refunds = try Self.readAll(answerer, body: Self.body(from: Self.windowStart, to: end, type: "REFUND"))
        #expect(!refunds.pages.flatMap { $0 }.isEmpty)
        #expect(refunds.pages.flatMap { $0 }.allSatisfy { $0.notificationType?.rawValue == "REFUND" })

        let failures = try Self.readAll(answerer, body: Self.body(from: Self.windowStart, to: end, onlyFailures: true))
        #expect(!failures.failed.isEmpty && failures.failed.allSatisfy { $0 })

        // One customer's purchase: its chain's notifications only.
        let (_, account, id) = try Fixture.account(.subscriptionActive)
        let original = try #require(account.transaction(withID: id)?.originalTransactionID)
        let chain = try Self.readAll(answerer, body: Self.body(from: Self.windowStart, to: end, transactionID: id))
        let verifier = Fixture.verifier(.production)
        let listed = chain.pages.flatMap { $0 }
        #expect(!listed.isEmpty)
        for notification in listed {
            let jws = try #require(notification.data?.signedTransactionInfo)
            guard case .transaction(let transaction)? = verifier.verify(Array(jws.utf8)).payload else {
                Issue.record("no transaction")
                continue
            }
            #expect(transaction.originalTransactionID == original)
        }

        // A narrow span holds only what was signed in it.
        let day = SubscriptionClock.millisecondsPerDay
        let lastDay = try Self.readAll(answerer, body: Self.body(from: end - day, to: end)).pages.flatMap { $0 }
        #expect(lastDay.allSatisfy { ($0.signedDate?.timeIntervalSince1970 ?? 0) * 1000 >= Double(end - day) })
    }

    @Test func applesErrorCodes() throws {
        let answerer = Self.answerer()
        let end = Self.world.asOfMs
        func code(_ body: [UInt8], token: String? = nil, environment: AppStoreEnvironment = .production) -> Int? {
            answerer.answer(
                body: body, environment: environment, bundleID: WorldCatalog.appBundleID, paginationToken: token
            ).errorCode
        }
        let (_, _, id) = try Fixture.account(.subscriptionActive)
        #expect(code(Self.body(from: end - 1000, to: end, type: "DID_RENEW", transactionID: id)) == 4_000_019)
        #expect(code(Self.body(from: end - 1000, to: end), token: "not-a-token") == 4_000_014)
        // A token for one body is refused with another.
        let first = answerer.answer(
            body: Self.body(from: Self.windowStart, to: end), environment: .production,
            bundleID: WorldCatalog.appBundleID, paginationToken: nil)
        let json = (try? JSONSerialization.jsonObject(with: Data(first.body))) as? [String: Any]
        let token = json?["paginationToken"] as? String
        #expect(token != nil)
        #expect(code(Self.body(from: Self.windowStart, to: end), token: token) == nil)
        #expect(code(Self.body(from: Self.windowStart + 1, to: end), token: token) == 4_000_014)
        // Outside Apple's window: 180 days in production, 30 in the sandbox.
        let day = SubscriptionClock.millisecondsPerDay
        #expect(code(Self.body(from: end - 181 * day, to: end)) == 4_000_012)
        #expect(code(Self.body(from: end - 31 * day, to: end), environment: .sandbox) == 4_000_012)
        #expect(code(Self.body(from: end - 29 * day, to: end), environment: .sandbox) == nil)
        #expect(code(Self.body(from: end, to: end - 1)) == 4_000_013)
        #expect(code(Array("{\"endDate\":1}".utf8)) == 4_000_015)
        #expect(code(Array("{\"startDate\":\(end)}".utf8)) == 4_000_016)
        #expect(
            answerer.answer(
                body: Self.body(from: end - 1000, to: end), environment: .production, bundleID: "com.other",
                paginationToken: nil
            ).status == 401)
    }
}
