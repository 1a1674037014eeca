import AppStoreReceipts
import Foundation
import TestSupport
import Testing

@testable import AppStoreSimulator

/// The project's verifyReceipt client against the running simulator, for every kind of world case and
/// through each transport: it gets the answer Apple would give, and classifies it as CONTRACT §5 says.
@Suite struct ClientAgainstSimulatorTests {
    static let cases = TestWorlds.firstOfEachScenario(TestWorlds.small)

    /// What the client must report for a receipt, derived from the receipt itself (not from the answer).
    enum Expected: Equatable {
        case valid(status: Int, environment: AppStoreEnvironment, hops: Int)
        case invalid(VerificationVerdict.InvalidReason)
        case persistentMalformed
        case unverifiedNotRetryable
    }

    static func expected(_ receipt: WorldReceipt, in unit: WorldUnit) -> Expected {
        switch receipt {
        case .app(let account, _):
            let owner = unit.accounts[account]
            switch owner.standing {
            case .deleted: return .invalid(.accountNotFound)
            case .internalError: return .unverifiedNotRetryable
            case .good:
                return .valid(status: 0, environment: owner.environment, hops: owner.environment == .production ? 0 : 1)
            }
        case .transaction(let account, let id):
            let owner = unit.accounts[account]
            let chain = owner.transactions.filter {
                $0.originalTransactionID == owner.transaction(withID: id)!.originalTransactionID
            }
            let expired = chain.map { $0.expiresMs ?? .max }.max()! <= unit.asOfMs
            return .valid(status: expired ? 21006 : 0, environment: owner.environment, hops: 0)
        case .tamperedApp, .craftedTransaction:
            return .invalid(.receiptNotAuthenticated)
        case .xcode, .garbage, .empty, .notBase64, .signedTransaction:
            return .persistentMalformed
        }
    }

    @Test(arguments: WorldScenario.receiptScenarios, HTTPTransportKind.allCases)
    func theClientGetsTheAnswerAppleWouldGive(scenario: WorldScenario, transport: HTTPTransportKind) async throws {
        let (unit, user) = try #require(Self.cases[scenario])
        try await withSimulator(TestWorlds.small) { simulator in
            let client = simulator.client(transport: transport)
            for row in user.receipts {
                let data = unit.receiptData(row.slot)
                let report = try await TestThreads.run { client.verify(receiptData: data) }
                let expected = Self.expected(unit.receipts[row.slot], in: unit)
                switch expected {
                case .valid(let status, let environment, let hops):
                    #expect(report.verdict == .valid, "\(scenario): \(report.detail)")
                    #expect(report.appleStatus == status)
                    #expect(report.environment == environment)
                    #expect(report.hops == hops)
                    let receipt = try #require(report.response?.receipt)
                    let owner = unit.accounts[unit.receipts[row.slot].account!]
                    #expect(receipt.bundleID == owner.bundleID)
                case .invalid(let reason):
                    #expect(report.verdict == .invalid(reason), "\(scenario): \(report.detail)")
                case .persistentMalformed:
                    #expect(report.verdict == .persistentMalformedReceiptData, "\(scenario): \(report.detail)")
                case .unverifiedNotRetryable:
                    #expect(
                        report.verdict == .unverified(.appleInternalErrorNotRetryable(.internalError(21199))),
                        "\(scenario): \(report.detail)")
                    #expect(report.requests == 1, "not retried")
                }
            }
        }
    }

    /// What the answers carry is what the world holds at asOf: renewals after the receipt, refunds,
    /// upgrades, grace periods.
    @Test(arguments: HTTPTransportKind.allCases)
    func answersShowTheWorldAsItIsAtAsOf(transport: HTTPTransportKind) async throws {
        try await withSimulator(TestWorlds.small) { simulator in
            let client = simulator.client(transport: transport)
            func response(_ scenario: WorldScenario) async throws -> VerifyReceiptResponse {
                let (unit, user) = try #require(Self.cases[scenario])
                let data = unit.receiptData(user.receipts[0].slot)
                return try #require(try await TestThreads.run { client.verify(receiptData: data) }.response)
            }
            let asOf = TestWorlds.small.asOf

            // A renewal the app never heard of: newer than anything in the receipt.
            let missed = try await response(.missedRenewal)
            let inReceipt = missed.receipt!.inApp.compactMap(\.expiresDate).max()!
            let latest = missed.latestReceiptInfo.compactMap(\.expiresDate).max()!
            #expect(inReceipt <= asOf && latest > asOf)

            let refunded = try await response(.refundedSubscription)
            #expect(refunded.allTransactions.contains { $0.cancellationDate != nil && $0.cancellationReason != nil })

            let upgraded = try await response(.upgradedToYearly)
            #expect(upgraded.allTransactions.contains { $0.isUpgraded == true && $0.cancellationDate != nil })
            #expect(upgraded.latestReceiptInfo.last?.productID == WorldCatalog.premiumYearly.id)

            let grace = try await response(.gracePeriod)
            let renewal = try #require(grace.pendingRenewalInfo.first)
            #expect(renewal.isInBillingRetryPeriod == true)
            #expect(try #require(renewal.gracePeriodExpiresDate) > asOf)
            #expect(renewal.expirationIntent == 2)

            let family = try await response(.familyShared)
            #expect(family.allTransactions.allSatisfy { $0.isFamilyShared })

            let reversed = try await response(.refundReversed)
            #expect(reversed.allTransactions.allSatisfy { $0.cancellationDate == nil })

            let off = try await response(.subscriptionAutoRenewOff)
            #expect(off.pendingRenewalInfo.first?.autoRenewStatus == 0)

            let downgrade = try await response(.subscriptionDowngradePending)
            #expect(downgrade.pendingRenewalInfo.first?.autoRenewProductID == WorldCatalog.premiumMonthly.id)

            let expiredIOS6 = try await response(.ios6Expired)
            #expect(expiredIOS6.rawStatus == 21006)
            #expect(expiredIOS6.latestExpiredReceiptInfo.count == 1)
            #expect(expiredIOS6.receipt?.format == .transactionReceipt)
        }
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func sandboxReceiptsAre21007InProductionAndProductionReceipts21008InTheSandbox(transport: HTTPTransportKind)
        async throws
    {
        let (sandboxUnit, sandboxUser) = try #require(Self.cases[.otherEnvironmentReceipt])
        let (productionUnit, productionUser) = try #require(Self.cases[.proActive])
        let simulator = AppStoreSimulator(world: TestWorlds.small)
        let sandboxBody = try AppStoreSimulator.requestBody(sandboxUnit.receiptData(sandboxUser.receipts[0].slot))
        let productionBody = try AppStoreSimulator.requestBody(
            productionUnit.receiptData(productionUser.receipts[0].slot))
        #expect(
            simulator.answer(body: sandboxBody, endpoint: .production).jsonBytes == Array(#"{"status":21007}"#.utf8))
        #expect(
            simulator.answer(body: productionBody, endpoint: .sandbox).jsonBytes == Array(#"{"status":21008}"#.utf8))
        let sandbox = try VerifyReceiptResponse.decode(
            Data(simulator.answer(body: sandboxBody, endpoint: .sandbox).jsonBytes))
        #expect(sandbox.environment == .sandbox)
        #expect(sandbox.receipt?.receiptType == "ProductionSandbox")
        #expect(sandbox.receipt?.appItemID == "0")

        // The client started on the sandbox (a staging database) hops to production for a production receipt.
        try await withSimulator(TestWorlds.small) { simulator in
            let data = productionUnit.receiptData(productionUser.receipts[0].slot)
            let report = try await TestThreads.run {
                simulator.client(transport: transport, environment: .sandbox).verify(receiptData: data)
            }
            #expect(report.verdict == .valid)
            #expect(report.hops == 1)
            #expect(report.environment == .production)
        }
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func aConfiguredSharedSecretIsRequiredForSubscriptionReceiptsOnly(transport: HTTPTransportKind) async throws {
        let (subscriptionUnit, subscriptionUser) = try #require(Self.cases[.subscriptionActive])
        let (proUnit, proUser) = try #require(Self.cases[.proActive])
        let subscription = subscriptionUnit.receiptData(subscriptionUser.receipts[0].slot)
        let pro = proUnit.receiptData(proUser.receipts[0].slot)
        try await withSimulator(TestWorlds.small, options: SimulatorOptions(sharedSecret: "0123abcd")) { simulator in
            func verify(_ data: String, secret: String?) async throws -> VerifiedReceipt {
                try await TestThreads.run {
                    simulator.client(transport: transport, sharedSecret: secret).verify(receiptData: data)
                }
            }
            let wrong = try await verify(subscription, secret: "ffff")
            #expect(wrong.verdict == .configurationError(.sharedSecretMismatch))
            let missing = try await verify(subscription, secret: nil)
            #expect(missing.appleStatus == 21004)
            let right = try await verify(subscription, secret: "0123abcd")
            #expect(right.verdict == .valid)
            let noSubscription = try await verify(pro, secret: "ffff")
            #expect(noSubscription.verdict == .valid)
            #expect(simulator.stats.answersByStatus["21004"] == 2)
        }
    }
}
