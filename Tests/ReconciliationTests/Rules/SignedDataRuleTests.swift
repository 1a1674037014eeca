import AppStoreReceipts
import Foundation
import Reconciliation
import Testing

/// CONTRACT §9 for rows holding Apple's signed data under the verifyReceipt backend: evidence as of
/// `signedDate`, which may keep or grant access, and take it away only for a refund it proves.
struct SignedDataRuleTests {
    /// A counted signed row, or a verifyReceipt receipt when `signed` is false.
    static func row(
        _ id: Int64, _ transactions: [Purchase], outcome: ReceiptOutcome = .valid, signed: Bool = true
    ) -> UserReceipt {
        var receipt = World.receipt(id, outcome, transactions)
        if signed { receipt.source = .signedRow }
        return receipt
    }

    static func plan(_ receipts: [UserReceipt], rows: [EntitlementRow]) -> [String] {
        let truth = UserTruth.compute(
            receipts: receipts, catalog: World.catalog, sandboxPolicy: .revoke, isSandboxTester: false,
            asOf: World.asOf)
        return CorrectionPlanner.plan(truth: truth, rows: rows, userHasUnverifiedReceipt: false).map(World.render)
    }

    @Test(arguments: [
        // (signed transaction, the app's row, what the run does)
        ("expired since signing, row still active", -40.0, -10.0, nil as Double?, 20.0 as Double?, [String]()),
        ("row runs past the signed expiry", -20, 10, nil, 40, []),
        ("in agreement", -5, 25, nil, 25, []),
        ("signed expiry later than the row", -5, 25, nil, 10, ["premium extend renewal -> until +25d"]),
        ("no row yet", -5, 25, nil, nil, ["premium grant purchase_not_granted -> until +25d"]),
        ("refund the JWS proves", -20, 10, -2, 10, ["premium revoke refund -> inactive"]),
    ])
    func signedEvidenceGrantsButTakesAwayOnlyForRefunds(
        _ situation: String, _ bought: Double, _ expires: Double, _ refunded: Double?, _ rowExpires: Double?,
        _ expected: [String]
    ) {
        let transaction = World.subscription("1", bought: bought, expires: expires, refunded: refunded)
        let rows = rowExpires.map { [World.row(expires: $0)] } ?? []
        #expect(Self.plan([Self.row(1, [transaction])], rows: rows) == expected, "\(situation)")
    }

    /// The same facts from verifyReceipt (Apple's answer of today) do revoke and shorten: the guard
    /// belongs to signed evidence only.
    @Test func verifyReceiptAnswersStillRevokeAndShorten() {
        let expired = World.subscription("1", bought: -40, expires: -10)
        #expect(
            Self.plan([Self.row(1, [expired], signed: false)], rows: [World.row(expires: 20)])
                == ["premium revoke expired -> inactive"])
        let shorter = World.subscription("1", bought: -20, expires: 10)
        #expect(
            Self.plan([Self.row(1, [shorter], signed: false)], rows: [World.row(expires: 40)])
                == ["premium shorten expired -> until +10d"])
    }

    /// A forged or misrouted signed row does not count: what it claims cannot protect the row, and
    /// the revoke names why (as for a forged or misrouted receipt).
    @Test func forgedAndMisroutedSignedRowsRevokeLikeReceipts() {
        let claimed = World.subscription("1", bought: -5, expires: 25)
        #expect(
            Self.plan([Self.row(1, [claimed], outcome: .invalid)], rows: [World.row(expires: 25)])
                == ["premium revoke invalid_receipt -> inactive"])
        #expect(
            Self.plan([Self.row(1, [claimed], outcome: .misrouted)], rows: [World.row(expires: 25)])
                == ["premium revoke wrong_environment -> inactive"])
    }

    /// Halfway through a StoreKit 2 migration: an old receipt Apple says expired, and a newer JWS for
    /// the same entitlement. The JWS keeps the customer.
    @Test func aSignedRowProtectsAnEntitlementAnOldReceiptWouldRevoke() {
        let old = World.subscription("1", chain: "1", bought: -90, expires: -60)
        let signedExpiredSince = World.subscription("2", chain: "2", bought: -40, expires: -10)
        #expect(
            Self.plan(
                [Self.row(1, [old], signed: false), Self.row(2, [signedExpiredSince])], rows: [World.row(expires: 20)]
            ).isEmpty)
    }

    @Test func classificationOfSignedRows() throws {
        let context = ReceiptOutcomeContext(servedEnvironment: .production, acceptedBundleIDs: ["com.app"])
        let evidence = SignedEvidence(
            format: .transaction, bundleID: "com.app", environment: .production,
            signedDate: Date(timeIntervalSince1970: 1_790_000_000))
        let valid = ReceiptOutcomeRule.classifySigned(SignedDataVerification(), evidence: evidence, context: context)
        #expect(valid.outcome == .valid && valid.outcomeFlag == nil && valid.environment == .production)
        #expect(valid.detail.contains("signed 2026-09-21T14:13:20Z"))
        #expect(valid.appleStatus == nil)

        var sandbox = evidence
        sandbox.environment = .sandbox
        let misrouted = ReceiptOutcomeRule.classifySigned(SignedDataVerification(), evidence: sandbox, context: context)
        #expect(misrouted.outcome == .misrouted && misrouted.outcomeFlag == .sandboxInProduction)

        var otherApp = evidence
        otherApp.bundleID = "com.other"
        let mismatch = ReceiptOutcomeRule.classifySigned(SignedDataVerification(), evidence: otherApp, context: context)
        #expect(mismatch.outcome == .invalid && mismatch.outcomeFlag == .bundleMismatch)

        var forged = SignedDataVerification()
        forged.failure = .badSignature("ES256 signature does not match the signed data")
        let invalid = ReceiptOutcomeRule.classifySigned(forged, evidence: evidence, context: context)
        #expect(invalid.outcome == .invalid && invalid.outcomeFlag == .invalidReceipt)
        #expect(
            invalid.detail
                == "signed_transaction rejected: signature rejected: ES256 signature does not match the signed data")
    }

    /// A signed transaction reaches the rules whole: the revocation with its reason, the upgrade, the
    /// offer, the evidence instant.
    @Test func signedTransactionsReadAsPurchases() {
        let signed = SignedTransaction(
            transactionID: "5", originalTransactionID: "4", productID: World.monthly,
            purchaseDate: World.day(-3), expiresDate: World.day(27), quantity: 1, signedDate: World.day(-2),
            revocationDate: World.day(-1), revocationReason: .init(rawValue: 1), isUpgraded: true,
            offerType: .introductory, offerIdentifier: "intro", offerDiscountType: .freeTrial)
        let read = Purchase(signed, source: .signedRow)
        #expect(read.transactionID == "5" && read.originalTransactionID == "4")
        #expect(read.revocation?.date == World.day(-1) && read.revocation?.reason == 1)
        #expect(read.expiresDate == World.day(27) && read.isUpgraded == true)
        #expect(read.offer.isTrial == true && read.offer.isIntroOffer == false)
        #expect(read.evidenceDate == World.day(-2) && read.source == .signedRow)
        // An upgrade is no refund: it refunds nothing.
        #expect(!read.isRefunded(asOf: World.asOf) && read.refundPercentage == nil)
    }
}
