import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// `export notifications_unmatched` (CONTRACT §9): notified purchases no stored row holds, filtered on
/// `received_at`, in the contract's nine columns, in a stable order across keyset pages.
@Suite struct NotificationsUnmatchedExportTests {
    static let header =
        "notification_uuid,notification_type,subtype,signed_at,environment,transaction_id,original_transaction_id,"
        + "product_id,run_id\r\n"

    static func export(_ connection: PostgresConnection, from: Date, to: Date, pageSize: Int) throws -> String {
        var text = ""
        try ReconciliationExport(view: .notificationsUnmatched, from: from, to: to, pageSize: pageSize).stream(
            from: connection
        ) { text += $0 }
        return text
    }

    @Test func theViewListsUnmatchedPurchasesInReceivedOrder() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID = try NotificationStoreTests.run(connection)
            let day = Date(timeIntervalSince1970: 1_800_000_000)
            /// (uuid, received hours after `day`, original transaction or nil, holder or nil, subtype)
            let rows: [(String, Double, String?, String?, String?)] = [
                ("u-3", 1, "o3", nil, "VOLUNTARY"), ("u-1", 1, "o1", nil, nil), ("u-2", 0.5, "o2", nil, nil),
                ("u-matched", 2, "o4", "someone", nil), ("u-test", 3, nil, nil, nil),
                ("u-later", 30, "o5", nil, nil), ("u-before", -1, "o6", nil, nil),
            ]
            for (uuid, hours, original, holder, subtype) in rows {
                try connection.execute(
                    """
                    INSERT INTO recon_notifications (notification_uuid, notification_type, subtype, signed_at, environment,
                        bundle_id, delivery_failed, transaction_id, original_transaction_id, product_id, user_id, run_id,
                        received_at)
                    VALUES (\(uuid), \(original == nil ? "TEST" : "EXPIRED"), \(subtype), \(day), 'production',
                            'com.example.app', true, \(original.map { "\($0)-9" }), \(original),
                            \(original == nil ? nil : "=monthly"), \(holder), \(runID),
                            \(day.addingTimeInterval(hours * 3_600)))
                    """)
            }
            let to = day.addingTimeInterval(86_400)
            let csv = try Self.export(connection, from: day, to: to, pageSize: 1)
            #expect(
                csv == Self.header
                    + "u-2,EXPIRED,,2027-01-15T08:00:00Z,production,o2-9,o2,'=monthly,\(runID)\r\n"
                    + "u-1,EXPIRED,,2027-01-15T08:00:00Z,production,o1-9,o1,'=monthly,\(runID)\r\n"
                    + "u-3,EXPIRED,VOLUNTARY,2027-01-15T08:00:00Z,production,o3-9,o3,'=monthly,\(runID)\r\n")
            #expect(try Self.export(connection, from: day, to: to, pageSize: 5_000) == csv, "the same bytes again")
            #expect(
                try Self.export(connection, from: to, to: to.addingTimeInterval(86_400), pageSize: 2).hasSuffix(
                    "u-later,EXPIRED,,2027-01-15T08:00:00Z,production,o5-9,o5,'=monthly,\(runID)\r\n"))
            #expect(ReconciliationExport.View(rawValue: "notifications_unmatched") == .notificationsUnmatched)
        }
    }
}
