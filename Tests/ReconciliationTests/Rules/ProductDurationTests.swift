import Foundation
import Reconciliation
import Testing

private func utc(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text) ?? Date.distantPast
}

/// `purchase_date + products.duration` as PostgreSQL computes it in UTC.
@Suite("Non-renewing access length (products.duration)")
struct ProductDurationTests {
    @Test(arguments: [
        (ProductDuration(days: 30), "2024-01-15T10:00:00.000Z", "2024-02-14T10:00:00.000Z"),
        (ProductDuration(months: 1), "2024-01-31T10:00:00.000Z", "2024-02-29T10:00:00.000Z"),
        (ProductDuration(months: 1), "2023-01-31T10:00:00.000Z", "2023-02-28T10:00:00.000Z"),
        (ProductDuration(months: 12), "2024-02-29T00:00:00.000Z", "2025-02-28T00:00:00.000Z"),
        (ProductDuration(months: 1, days: 1), "2024-01-31T00:00:00.000Z", "2024-03-01T00:00:00.000Z"),
        (ProductDuration(months: 13), "2024-12-15T23:59:59.999Z", "2026-01-15T23:59:59.999Z"),
        (ProductDuration(microseconds: 3_600_000_000), "2024-03-10T01:30:00.000Z", "2024-03-10T02:30:00.000Z"),
        (ProductDuration(days: 1), "2024-01-15T10:00:00.123Z", "2024-01-16T10:00:00.123Z"),
        (ProductDuration(days: 1), "1969-12-31T12:00:00.000Z", "1970-01-01T12:00:00.000Z"),
    ] as [(ProductDuration, String, String)])
    func end(_ duration: ProductDuration, _ start: String, _ end: String) {
        #expect(duration.end(from: utc(start)) == utc(end))
    }

    @Test("expiries compare at millisecond precision; nil never expires")
    func expiryOrder() {
        let date = utc("2024-01-15T10:00:00.123Z")
        #expect(Expiry(date) == Expiry(date.addingTimeInterval(0.000_9)))
        #expect(Expiry(date) < Expiry(date.addingTimeInterval(0.001)))
        #expect(Expiry(date) < Expiry(nil))
        #expect(Expiry(nil) == .never)
        #expect(Expiry(date).date == date)
    }
}
