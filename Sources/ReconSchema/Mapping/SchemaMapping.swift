/// An app's own tables mapped onto the contract's `products`, `receipts`, `entitlements` and
/// `sandbox_testers` (CONTRACT §4), as an operator writes it in a mapping file (docs/mapping.md).
/// `SchemaMapping.parse` reads the file; `MappingSQL` turns the result into the views, the sync
/// triggers and the GRANTs. Names are held as PostgreSQL sees them (unquoted names folded to lower
/// case), and quoted wherever SQL is written.
public struct SchemaMapping: Sendable, Equatable {
    /// The job's schema and its two roles.
    public var schema = "recon"
    public var owner = "recon_owner"
    public var jobRole = "recon_job"

    public var products: Products
    public var receipts: Receipts
    public var entitlements: Entitlements
    /// nil: the app has no such accounts (the view is empty).
    public var sandboxTesters: SandboxTesters?

    /// A table, optionally schema-qualified.
    public struct TableName: Sendable, Equatable {
        public var schema: String?
        public var name: String

        public init(schema: String?, name: String) {
            self.schema = schema
            self.name = name
        }
    }

    /// How the app's user ids are typed; the contract's are text.
    public enum UserIDType: String, Sendable, Equatable, CaseIterable {
        case text, bigint, integer, uuid
    }

    /// How the app's receipt keys are typed. The contract's `receipts.id` is a bigint: an integer key
    /// is used as it is; a uuid or text key gets a stable bigint from a key table in the job's schema.
    public enum ReceiptKeyType: String, Sendable, Equatable, CaseIterable {
        case bigint, integer, uuid, text
        public var needsKeyTable: Bool { self == .uuid || self == .text }
    }

    /// The unit of the app's access-length column for `non_renewing` products.
    public enum DurationUnit: String, Sendable, Equatable, CaseIterable {
        case interval, days, hours, months
    }

    /// The contract's four product kinds.
    public static let kinds = ["auto_renewable", "non_consumable", "non_renewing", "consumable"]

    public struct Products: Sendable, Equatable {
        public var table: TableName
        public var productID: String
        public var entitlement: String
        /// A column whose values `kinds` translates; nil when every product is listed in `productKinds`.
        public var kindColumn: String?
        /// The app's value → the contract's kind, in file order.
        public var kinds: [(value: String, kind: String)]
        /// Product id → kind, over `kinds`, in file order.
        public var productKinds: [(productID: String, kind: String)]
        public var duration: String?
        public var durationUnit: DurationUnit

        public static func == (a: Products, b: Products) -> Bool {
            a.table == b.table && a.productID == b.productID && a.entitlement == b.entitlement
                && a.kindColumn == b.kindColumn && a.kinds.elementsEqual(b.kinds, by: { $0 == $1 })
                && a.productKinds.elementsEqual(b.productKinds, by: { $0 == $1 }) && a.duration == b.duration
                && a.durationUnit == b.durationUnit
        }
    }

    public struct Receipts: Sendable, Equatable {
        public var table: TableName
        public var id: String
        public var idType: ReceiptKeyType
        public var userID: String
        public var userIDType: UserIDType
        public var receiptData: String
        public var createdAt: String?
    }

    public struct Entitlements: Sendable, Equatable {
        public var table: TableName
        public var userID: String
        public var userIDType: UserIDType
        public var entitlement: String
        public var active: String
        public var expiresAt: String?
        public var productID: String?
        public var originalTransactionID: String?
        public var updatedAt: String?
        /// The column saying who granted a row; nil: every row is the App Store's, the job's to change.
        public var source: String?
        /// The app's word, in `source`, for a row the App Store granted (the contract's `app_store`).
        public var sourceAppStore: String
    }

    public struct SandboxTesters: Sendable, Equatable {
        public var table: TableName
        public var userID: String
        public var userIDType: UserIDType
        public var note: String?
    }
}
