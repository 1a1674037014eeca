import Postgres

extension WorldSeeder {
    /// The application tables a seed fills, in the order it checks them.
    package static let seededTables = ["products", "receipts", "entitlements", "sandbox_testers"]

    /// The first of the seeded tables that exists and holds a row; nil for a database that may be seeded.
    package static func firstNonEmptyTable(on connection: PostgresConnection) throws -> String? {
        for table in seededTables {
            let exists: Bool =
                try connection.query("SELECT to_regclass(\(table)) IS NOT NULL AS present").first?.decode(
                    "present") ?? false
            guard exists else { continue }
            let rows: Bool =
                try connection.query("SELECT EXISTS (SELECT 1 FROM \(unescaped: table)) AS present")
                .first?.decode("present") ?? false
            if rows { return table }
        }
        return nil
    }

    /// How many seeded receipts are StoreKit 2 signed transactions (a JWS, whose header is `eyJ…`).
    package static func signedReceiptCount(on connection: PostgresConnection) throws -> Int {
        try connection.query("SELECT count(*)::int AS n FROM receipts WHERE receipt_data LIKE 'eyJ%'").first?.decode(
            "n") ?? 0
    }

    /// Switches one App Store entitlement off, as an app bug would: the drift a support case starts from.
    package static func switchOff(entitlement: String, of userID: String, on connection: PostgresConnection) throws {
        try connection.execute(
            """
            UPDATE entitlements SET active = false, updated_at = now()
            WHERE user_id = \(userID) AND entitlement = \(entitlement) AND source = 'app_store'
            """)
    }
}
