import Reconciliation
import Testing

/// The two checks of a mapping a run makes before it starts: every `products` kind one of the four, and
/// no night over an empty `receipts` while `app_store` entitlements are active.
@Suite struct MappingCheckRuleTests {
    typealias Row = ProductKindCheck.Row

    @Test func kindsOtherThanTheFourAndNullAreRefusedInOrder() {
        let rows = [
            Row(productID: "a", kind: "auto_renewable"), Row(productID: "b", kind: "monthly"),
            Row(productID: "c", kind: nil), Row(productID: "d", kind: "consumable"),
            Row(productID: "e", kind: "non_consumable"), Row(productID: "f", kind: "non_renewing"),
            Row(productID: "g", kind: "Auto_Renewable"), Row(productID: "h", kind: ""),
        ]
        #expect(ProductKindCheck.refused(rows).map(\.productID) == ["b", "c", "g", "h"])
        #expect(ProductKindCheck.refused(rows.filter { ["a", "d", "e", "f"].contains($0.productID) }).isEmpty)
    }

    @Test func theRefusalNamesTheProductsTheirValuesAndTheFourKinds() throws {
        let refused = [Row(productID: "com.x.monthly", kind: "monthly"), Row(productID: "com.x.family", kind: nil)]
        let line = try #require(ProductKindCheck.refusal(refused, guide: "GUIDE"))
        #expect(line.contains("2 products"))
        #expect(line.contains("com.x.monthly (kind 'monthly'), com.x.family (kind NULL)"))
        #expect(line.contains("consumable, non_consumable, auto_renewable, non_renewing"))
        #expect(line.contains("GUIDE"))
        #expect(ProductKindCheck.refusal([], guide: "GUIDE") == nil)
        #expect(ProductKindCheck.problem([]) == nil)
    }

    @Test func aLongListIsCut() throws {
        let refused = (1...25).map { Row(productID: "p\($0)", kind: "plan") }
        let line = try #require(ProductKindCheck.problem(refused))
        #expect(line.contains("25 products"))
        #expect(line.contains("p10 (kind 'plan') and 15 more"))
        #expect(!line.contains("p11 "))
    }

    @Test func onlyAnEmptyReceiptsBesideActiveAppStoreRowsIsRefused() throws {
        func check(_ empty: Bool, _ active: Int) -> String? {
            EmptyNightCheck(receiptsEmpty: empty, activeAppStoreEntitlements: active, receiptsRelation: "s.receipts")
                .refusal(guide: "GUIDE")
        }
        #expect(check(false, 0) == nil)
        #expect(check(false, 10) == nil, "receipts to verify: a night like any other")
        #expect(check(true, 0) == nil, "a new app: nothing bought yet")
        let line = try #require(check(true, 1))
        #expect(line.contains("receipts (s.receipts) is empty, but entitlements holds 1 active app_store row:"))
        #expect(line.contains("GUIDE"))
        #expect(try #require(check(true, 46)).contains("46 active app_store rows"))
        let night = EmptyNightCheck(receiptsEmpty: true, activeAppStoreEntitlements: 2, receiptsRelation: "r")
        #expect(night.problem?.hasPrefix("empty, while entitlements holds 2 active app_store rows") == true)
        #expect(
            EmptyNightCheck(receiptsEmpty: true, activeAppStoreEntitlements: 0, receiptsRelation: "r").problem == nil)
    }
}
