/// One user of the app's database: receipt rows, entitlement rows, and why they look the way they do.
public struct WorldUser: Sendable, Hashable {
    /// One `receipts` row.
    public struct ReceiptRow: Sendable, Hashable {
        /// The receipt's slot in the unit (`WorldUnit.receipts`).
        public var slot: Int
        /// `receipts.created_at`: when the device sent it.
        public var createdMs: Int64
    }

    /// One `entitlements` row.
    public struct EntitlementRow: Sendable, Hashable {
        public var entitlement: String
        public var active: Bool
        /// nil: does not expire.
        public var expiresMs: Int64?
        public var productID: String?
        public var originalTransactionID: String?
        /// `app_store`, or another source the job must never touch.
        public var source: String
        public var updatedMs: Int64
    }

    /// Position in the world, 0-based; `id` is derived from it.
    public var index: Int
    /// `user_id`: `user-` and 8 digits, so text order is index order.
    public var id: String
    public var scenario: WorldScenario
    /// A row in `sandbox_testers`.
    public var isSandboxTester: Bool
    public var receipts: [ReceiptRow]
    public var entitlements: [EntitlementRow]

    /// `user-00000042` for index 42.
    public static func id(forIndex index: Int) -> String {
        let digits = String(index)
        return "user-" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}
