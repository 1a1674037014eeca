import Foundation
import Reconciliation
import Testing

/// docs/reconciliation-rules.md: expiries compare at millisecond precision.
@Suite struct ExpiryTests {
    @Test("expiries compare at millisecond precision; nil never expires")
    func expiryOrder() {
        let date = Date(timeIntervalSince1970: 1_705_312_800.123)  // 2024-01-15T10:00:00.123Z
        #expect(Expiry(date) == Expiry(date.addingTimeInterval(0.000_9)))
        #expect(Expiry(date) < Expiry(date.addingTimeInterval(0.001)))
        #expect(Expiry(date) < Expiry(nil))
        #expect(Expiry(nil) == .never)
        #expect(Expiry(date).date == date)
    }

    @Test("instants before 1970 truncate toward the past")
    func preEpoch() {
        #expect(Expiry(Date(timeIntervalSince1970: -0.000_5)) == .at(milliseconds: -1))
        #expect(Expiry(Date(timeIntervalSince1970: -0.001_5)) == .at(milliseconds: -2))
    }
}
