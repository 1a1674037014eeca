import AppStoreReceipts
import Foundation
import Synchronization
import TestSupport
import Testing

/// Apple limits the sandbox apart from production, at a tenth of its figures: the arithmetic of the
/// job's sandbox defaults, and the driver's buckets per environment on a virtual clock.
@Suite struct SandboxLimitsTests {
    @Test(arguments: [(20.0, 2.0), (50.0, 5.0), (5.0, 0.5), (6.667, 0.6667), (1000.0, 100.0)])
    func theSandboxRateIsATenthOfProductions(production: Double, sandbox: Double) {
        #expect(abs(SandboxLimits.rate(production: production) - sandbox) < 1e-9)
    }

    @Test(arguments: [(90_000, 9000), (180_000, 18_000), (50, 5), (95, 9), (10, 1), (9, 1), (1, 1)])
    func theSandboxBudgetIsATenthOfProductionsAndNeverNone(production: Int, sandbox: Int) {
        #expect(SandboxLimits.requestsPerHour(production: production) == sandbox)
    }

    @Test func everyLimitHasANameThatNamesItBack() {
        #expect(AppleLimitKey.all.count == 10, "five endpoints in two environments")
        #expect(Set(AppleLimitKey.all.map(\.description)).count == 10)
        for key in AppleLimitKey.all { #expect(AppleLimitKey(description: key.description) == key) }
        #expect(AppleLimitKey(.serverAPI(.transactionHistory), .production).description == "transaction_history")
        #expect(AppleLimitKey(.serverAPI(.transactionHistory), .sandbox).description == "sandbox/transaction_history")
        #expect(AppleLimitKey(.verifyReceipt, .sandbox).description == "sandbox/verify_receipt")
        #expect(AppleLimitKey(description: "sandbox/nothing") == nil)
    }

    static func verifyReceipt(_ environment: AppStoreEnvironment) -> VerifyReceiptClient {
        VerifyReceiptClient(
            configuration: VerifyReceiptClient.Configuration(
                productionURL: URL(string: "http://apple.invalid/production")!,
                sandboxURL: URL(string: "http://apple.invalid/sandbox")!, environment: environment))
    }

    static let valid = #"{"status":0,"environment":"Sandbox","receipt":{"bundle_id":"com.example.app","in_app":[]}}"#

    /// A sandbox database's requests keep to the sandbox's pace, and production's requests are not
    /// held behind them: each environment has its own bucket.
    @Test func sandboxRequestsArePacedApartFromProductions() {
        let rig = ExchangeDriverTests.Rig(rate: 100, sandboxRate: 5, burst: 1, maxInFlight: 64) { request, _ in
            request.url.path.hasSuffix("production")
                ? .status(200, ExchangeDriverTests.valid) : .status(200, Self.valid)
        }
        let sandbox = (0..<15).map { _ in rig.start(Self.verifyReceipt(.sandbox).verification(of: "cmVjZWlwdA==")) }
        let production = (0..<15).map { _ in
            rig.start(Self.verifyReceipt(.production).verification(of: "cmVjZWlwdA=="))
        }
        rig.clock.advance(by: .seconds(5))
        #expect((sandbox + production).allSatisfy { $0.value?.verdict == .valid })
        let sent = rig.transport.sent
        let sandboxStarts = sent.filter { $0.request.url.lastPathComponent == "sandbox" }.map(\.started)
        let productionStarts = sent.filter { $0.request.url.lastPathComponent == "production" }.map(\.started)
        #expect(sandboxStarts.count == 15 && productionStarts.count == 15)
        #expect(ThrottleTests.busiestSecond(sandboxStarts) <= 6, "5 a second and a burst of 1")
        #expect(sandboxStarts.max()! - sandboxStarts.min()! >= .milliseconds(2600), "15 requests at 5/s take ~3 s")
        #expect(productionStarts.max()! - productionStarts.min()! <= .milliseconds(200), "100/s: not held back")
        #expect(rig.driver.rate(AppleLimitKey(.verifyReceipt, .sandbox)) == 5)
        #expect(rig.driver.rate(AppleLimitKey(.serverAPI(.transactionHistory), .sandbox)) == 5)
        #expect(rig.driver.rate(AppleLimitKey(.serverAPI(.transactionHistory), .production)) == 100)
    }

    /// Every request asks the budget under its own environment's limit.
    @Test func theBudgetIsAskedUnderTheRequestsEnvironment() {
        let budget = RequestBudgetDriverTests.ScriptedBudget()
        let rig = RequestBudgetDriverTests.Rig(budget: budget) { request, _ in
            request.url.path.hasSuffix("production") ? .status(200, #"{"status":21007}"#) : .status(200, Self.valid)
        }
        _ = rig.start(Self.verifyReceipt(.production).verification(of: "cmVjZWlwdA=="))
        rig.clock.advance(by: .seconds(1))
        #expect(budget.limits == [AppleLimitKey(.verifyReceipt, .production), AppleLimitKey(.verifyReceipt, .sandbox)])
    }
}
