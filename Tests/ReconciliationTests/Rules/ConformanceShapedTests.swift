import AppStoreReceipts
import Foundation
import Reconciliation
import Testing

/// Whole answers shaped like the conformance corpus (`shared/conformance/responses`), decoded by
/// `VerifyReceiptResponse.decode` and taken through outcome, truth and corrections, as the job will.
@Suite("Conformance-shaped answers end to end")
struct ConformanceShapedTests {
    /// venice/receipt_expired_cancelled.json (abridged): an iOS 6 receipt, status 21006, the
    /// expired purchase in `latest_expired_receipt_info` as an object, renewal fields at the top.
    static let ios6Expired = #"""
        {
          "auto_renew_status": 0,
          "latest_expired_receipt_info": {
            "quantity": "1", "bvrs": "13", "expires_date_formatted": "2019-02-17 06:49:48 Etc/GMT",
            "is_in_intro_offer_period": "false", "purchase_date_ms": "1549781388000", "is_trial_period": "true",
            "item_id": "1450637621", "original_transaction_id": "140000527258824", "expires_date": "1550386188000",
            "app_item_id": "1387514950", "transaction_id": "140000527258824", "web_order_line_item_id": "140000151774411",
            "bid": "com.foo.bar", "product_id": "com.foo.product1", "purchase_date": "2019-02-10 06:49:48 Etc/GMT",
            "original_purchase_date": "2019-02-10 06:49:48 Etc/GMT", "original_purchase_date_ms": "1549781388000"
          },
          "status": 21006,
          "auto_renew_product_id": "com.foo.product1",
          "receipt": {
            "quantity": "1", "bvrs": "68", "expires_date_formatted": "2019-02-17 06:49:48 Etc/GMT",
            "is_in_intro_offer_period": "false", "purchase_date_ms": "1549781388000", "is_trial_period": "true",
            "item_id": "1450637621", "original_transaction_id": "140000527258824", "expires_date": "1550386188000",
            "app_item_id": "1387514950", "transaction_id": "140000527258824", "web_order_line_item_id": "140000151774411",
            "version_external_identifier": "827235835", "product_id": "com.foo.product1",
            "purchase_date": "2019-02-10 06:49:48 Etc/GMT", "original_purchase_date": "2019-02-10 06:49:48 Etc/GMT",
            "bid": "com.foo.bar", "original_purchase_date_ms": "1549781388000"
          },
          "expiration_intent": "1",
          "is_in_billing_retry_period": "0"
        }
        """#

    /// alexalok/Valid_Production_Family_Shared.json (abridged): two family-shared chains, one in
    /// `in_app`, one in `latest_receipt_info`.
    static let familyShared = #"""
        {
          "environment": "Production",
          "receipt": {
            "receipt_type": "Production", "adam_id": 123, "app_item_id": 123, "bundle_id": "com.myapp.app",
            "application_version": "3.0.7", "download_id": 1234, "version_external_identifier": 12345,
            "receipt_creation_date_ms": "1636808866000", "request_date_ms": "1637666883350",
            "original_purchase_date_ms": "1636808715000", "original_application_version": "3.0.7",
            "in_app": [{
              "quantity": "1", "product_id": "com.myapp.app.week2", "transaction_id": "540000823485156",
              "original_transaction_id": "540000823485156", "purchase_date_ms": "1636808865000",
              "original_purchase_date_ms": "1636808866000", "expires_date": "2021-11-16 13:07:45 Etc/GMT",
              "expires_date_ms": "1637068065000", "web_order_line_item_id": "540000354115557",
              "is_trial_period": "true", "is_in_intro_offer_period": "false", "in_app_ownership_type": "FAMILY_SHARED"
            }]
          },
          "latest_receipt_info": [{
            "quantity": "1", "product_id": "com.myapp.app.week2", "transaction_id": "1234",
            "original_transaction_id": "1234", "purchase_date_ms": "1636712415000",
            "original_purchase_date_ms": "1636712416000", "expires_date_ms": "1636971615000",
            "web_order_line_item_id": "12345", "is_trial_period": "true", "is_in_intro_offer_period": "false",
            "in_app_ownership_type": "FAMILY_SHARED", "subscription_group_identifier": "20514853"
          }],
          "latest_receipt": "[REDACTED]",
          "pending_renewal_info": [
            {"expiration_intent": "1", "auto_renew_product_id": "com.myapp.app.week2", "is_in_billing_retry_period": "0",
             "product_id": "com.myapp.app.week2", "original_transaction_id": "1234", "auto_renew_status": "0"},
            {"expiration_intent": "1", "auto_renew_product_id": "com.myapp.app.week2", "is_in_billing_retry_period": "0",
             "product_id": "com.myapp.app.week2", "original_transaction_id": "540000823485156", "auto_renew_status": "0"}
          ],
          "status": 0
        }
        """#

    static func reconcile(
        json: String, bundleIDs: Set<String>, catalog: ProductCatalog, rows: [EntitlementRow], asOf: Date
    ) throws -> (ReceiptClassification, (truth: UserTruth, corrections: [CorrectionRecord], flags: [PlannedFlag])) {
        let response = try VerifyReceiptResponse.decode(Data(json.utf8))
        let verification = ReceiptVerification(verdict: .valid, response: response, answeredBy: .production)
        let classification = try ReceiptOutcomeRule.classify(
            verification, local: .decodes,
            context: ReceiptOutcomeContext(servedEnvironment: .production, acceptedBundleIDs: bundleIDs))
        let receipt = UserReceipt(receiptID: 42, classification: classification, response: response)
        let user = UserDecision.decide(
            userID: "u-1", answers: [ReceiptAnswer(receipt: receipt, attempts: 1, bundleID: nil)],
            isSandboxTester: false,
            settings: UserDecision.Settings(catalog: catalog, sandboxPolicy: .revoke, asOf: asOf))
        let plan = UserDecision.plan(user, state: UserState(entitlements: rows))
        return (classification, (user.truth, plan.corrections, plan.flags))
    }

    @Test("21006 iOS 6 expired -> valid outcome, expired truth, the app's active row is revoked (expired)")
    func ios6ExpiredSubscription() throws {
        let catalog = ProductCatalog([Product(productID: "com.foo.product1", kind: .autoRenewable, entitlement: "pro")])
        let expiry = Date(timeIntervalSince1970: 1_550_386_188)  // 2019-02-17 06:49:48Z
        let (classification, result) = try Self.reconcile(
            json: Self.ios6Expired, bundleIDs: ["com.foo.bar"], catalog: catalog,
            rows: [EntitlementRow(entitlement: "pro", active: true, expiresAt: expiry)],
            asOf: Date(timeIntervalSince1970: 1_551_000_000))  // a week later
        #expect(classification.outcome == .valid)
        #expect(classification.appleStatus == 21006)
        let truth = try #require(result.truth["pro"])
        #expect(!truth.isActive)
        #expect(truth.expiresAt == expiry)
        #expect(result.corrections.map { "\($0.action) \($0.reason)" } == ["revoke expired"])
        #expect(result.flags.isEmpty)
    }

    @Test("family shared purchases grant; the later-expiring chain wins whichever list it came from")
    func familySharedGrants() throws {
        let catalog = ProductCatalog([
            Product(productID: "com.myapp.app.week2", kind: .autoRenewable, entitlement: "premium")
        ])
        let (classification, result) = try Self.reconcile(
            json: Self.familyShared, bundleIDs: ["com.myapp.app"], catalog: catalog, rows: [],
            asOf: Date(timeIntervalSince1970: 1_636_900_000))  // 2021-11-14, both chains running
        #expect(classification.outcome == .valid)
        let grant = try #require(result.corrections.first)
        #expect(result.corrections.count == 1)
        #expect(grant.action == .grant && grant.reason == .purchaseNotGranted)
        #expect(grant.afterExpiresAt == Date(timeIntervalSince1970: 1_637_068_065))  // 2021-11-16 13:07:45Z
        #expect(grant.originalTransactionID == "540000823485156")
    }

    @Test("the same answer under another app's bundle id -> invalid, bundle_mismatch, nothing granted")
    func familySharedUnderAnotherBundle() throws {
        let catalog = ProductCatalog([
            Product(productID: "com.myapp.app.week2", kind: .autoRenewable, entitlement: "premium")
        ])
        let (classification, result) = try Self.reconcile(
            json: Self.familyShared, bundleIDs: ["com.example.other"], catalog: catalog,
            rows: [EntitlementRow(entitlement: "premium", active: true, expiresAt: nil)],
            asOf: Date(timeIntervalSince1970: 1_636_900_000))
        #expect(classification.outcome == .invalid)
        #expect(result.flags.map(\.kind) == [.bundleMismatch])
        #expect(result.corrections.map { "\($0.action) \($0.reason)" } == ["revoke bundle_mismatch"])
    }
}
