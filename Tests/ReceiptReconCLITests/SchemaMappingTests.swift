import Foundation
import ReconSchema
import Testing

/// The mapping file's rules, without a database: what it accepts, what it refuses and why, and the SQL
/// text it stands for.
@Suite struct SchemaMappingTests {
    static let example = """
        # the example app of docs/integration.md
        [job]
        schema = recon
        owner = recon_owner
        role = recon_job

        [products]
        table = public.products
        product_id = sku
        entitlement = unlocks
        kind = product_type
        duration = access_days
        duration_unit = days

        [kinds]
        subscription = auto_renewable
        lifetime = non_consumable

        [receipts]
        table = public.iap_receipts
        id = receipt_id
        id_type = uuid
        user_id = account_id
        user_id_type = bigint
        receipt_data = payload
        created_at = received_at

        [entitlements]
        table = public.account_features
        user_id = account_id
        user_id_type = bigint
        entitlement = feature
        active = enabled
        expires_at = until
        source = granted_by
        source_app_store = purchase
        """

    static func replacing(_ old: String, _ new: String) -> String {
        let result = example.replacingOccurrences(of: old, with: new)
        precondition(result != example, "no '\(old)' in the example")
        return result
    }

    @Test func theExampleReadsAsWritten() throws {
        let mapping = try SchemaMapping.parse(Self.example)
        #expect(mapping.products.table == .init(schema: "public", name: "products"))
        #expect(mapping.products.kinds.map(\.value) == ["subscription", "lifetime"])
        #expect(mapping.receipts.idType == .uuid)
        #expect(mapping.receipts.userIDType == .bigint)
        #expect(mapping.entitlements.source == "granted_by")
        #expect(mapping.entitlements.productID == nil)
        #expect(mapping.sandboxTesters == nil)
    }

    /// Each refusal: the line it names (nil: the file as a whole) and words of its message.
    @Test(arguments: [
        (
            replacing("kind = product_type\n", "").replacingOccurrences(
                of: "[kinds]\nsubscription = auto_renewable\nlifetime = non_consumable\n", with: ""),
            nil as Int?, "there is no default kind"
        ),
        (replacing("kind = product_type\n", ""), nil, "names no 'kind = COLUMN'"),
        (replacing("table = public.products", "table = products"), 8, "write it with its schema (public.products)"),
        (replacing("lifetime = non_consumable", "lifetime = forever"), 17, "a kind is one of"),
        (replacing("[kinds]\nsubscription = auto_renewable\nlifetime = non_consumable\n", ""), 11, "no [kinds]"),
        (replacing("user_id_type = bigint\nreceipt_data", "user_id_type = int8\nreceipt_data"), 24, "bigint, integer"),
        (replacing("active = enabled", "activ = enabled"), 33, "has no key 'activ'"),
        (replacing("entitlement = feature", "entitlement = feature\nentitlement = name"), 33, "given twice"),
        (replacing("source_app_store = purchase", ""), 35, "source_app_store = VALUE"),
        (replacing("[receipts]", "[receipt]"), 19, "unknown section [receipt]"),
        (replacing("receipt_data = payload", "receipt_data = pay load"), 25, "is not a name"),
        (replacing("table = public.iap_receipts", "table = a.b.c"), 20, "schema.table"),
        (replacing("id = receipt_id\n", ""), nil, "[receipts] needs 'id"),
        ("[products]\ntable = p", nil, "needs 'product_id"),
        ("table = x", 1, "outside any section"),
    ])
    func refusals(text: String, line: Int?, words: String) {
        #expect(throws: MappingFileError.self) { try SchemaMapping.parse(text) }
        do {
            _ = try SchemaMapping.parse(text)
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.description.contains(words), "\(error)")
        }
    }

    @Test func productIDsAloneStateTheKinds() throws {
        let text = Self.replacing(
            "kind = product_type\n", ""
        ).replacingOccurrences(
            of: "[kinds]\nsubscription = auto_renewable\nlifetime = non_consumable",
            with: "[product_kinds]\ncom.example.monthly = auto_renewable")
        let sql = MappingSQL.text(try SchemaMapping.parse(text), parts: [.schema])
        // No column to translate: a product the file does not list reads as NULL, never a default.
        #expect(
            sql.contains(
                "(CASE p.\"sku\" WHEN 'com.example.monthly' THEN 'auto_renewable' ELSE NULL END)::text AS kind"))
    }

    @Test func namesAreQuotedAndFoldedAsPostgreSQLDoes() throws {
        let text = Self.replacing("table = public.account_features", "table = App.\"Account \"\"Features\"\"\"")
            .replacingOccurrences(of: "active = enabled", with: "active = \"Enabled\"")
        let mapping = try SchemaMapping.parse(text)
        #expect(mapping.entitlements.table == .init(schema: "app", name: "Account \"Features\""))
        let sql = MappingSQL.text(mapping, parts: [.schema])
        #expect(sql.contains("INSERT INTO \"app\".\"Account \"\"Features\"\"\" AS a"))
        #expect(sql.contains("\"Enabled\" = EXCLUDED.\"Enabled\""))
        // Literals too: the app's own words are data, quoted as such.
        let quote = try SchemaMapping.parse(Self.replacing("subscription = auto", "it's = auto"))
        #expect(MappingSQL.text(quote, parts: [.schema]).contains("WHEN 'it''s' THEN 'auto_renewable'"))
    }

    @Test func aUUIDKeyGetsAStableBigintFromAKeyTable() throws {
        let sql = MappingSQL.text(try SchemaMapping.parse(Self.example), parts: [.schema])
        #expect(sql.contains("CREATE TABLE IF NOT EXISTS \"recon\".\"receipt_keys\""))
        #expect(sql.contains("key uuid NOT NULL UNIQUE"))
        #expect(sql.contains("JOIN \"recon\".\"receipt_keys\" AS k ON k.key = r.\"receipt_id\""))
        #expect(sql.contains("ORDER BY \"received_at\", \"receipt_id\""))
        let bigint = MappingSQL.text(
            try SchemaMapping.parse(Self.replacing("id_type = uuid", "id_type = bigint")), parts: [.schema])
        #expect(!bigint.contains("receipt_keys"))
        #expect(bigint.contains("SELECT r.\"receipt_id\"::bigint AS id"))
    }

    @Test func userIDsConvertEachWay() throws {
        let sql = MappingSQL.text(try SchemaMapping.parse(Self.example), parts: [.schema])
        #expect(sql.contains("r.\"account_id\"::text AS user_id"))
        #expect(sql.contains("VALUES (NEW.user_id::bigint, NEW.entitlement, NEW.active, NEW.expires_at, "))
        #expect(sql.contains("CASE NEW.source WHEN 'app_store' THEN 'purchase' ELSE NEW.source END"))
        let text = MappingSQL.text(
            try SchemaMapping.parse(
                Self.example.replacingOccurrences(of: "user_id_type = bigint", with: "user_id_type = varchar")),
            parts: [.schema])
        #expect(text.contains("r.\"account_id\" AS user_id"))
        #expect(!text.contains("::bigint"))
    }

    @Test func withoutASourceColumnEveryRowIsTheAppStores() throws {
        let text = Self.replacing("source = granted_by\nsource_app_store = purchase", "")
        let sql = MappingSQL.text(try SchemaMapping.parse(text), parts: [.schema])
        #expect(!sql.contains("granted_by"))
        #expect(sql.contains("NEW.\"until\", NULL, NULL, 'app_store', now())"))
    }

    @Test func theGrantsAreJobPrivilegesInTheJobsSchema() throws {
        let sql = MappingSQL.text(try SchemaMapping.parse(Self.example), parts: [.grants])
        #expect(sql.contains("GRANT USAGE ON SCHEMA \"recon\" TO \"recon_job\";"))
        for (table, privileges) in JobPrivileges.tables {
            let line = sql.split(separator: "\n").first { $0.contains("\"recon\".\"\(table)\"") }
            #expect(line?.hasPrefix("GRANT \(privileges.joined(separator: ", ")) ON ") == true, "\(table)")
        }
        for sequence in JobPrivileges.sequences { #expect(sql.contains("\"recon\".\"\(sequence)\"")) }
        let admin = MappingSQL.text(try SchemaMapping.parse(Self.example), parts: [.admin])
        #expect(admin.contains("GRANT TRIGGER ON \"public\".\"iap_receipts\" TO \"recon_owner\";"))
        #expect(admin.contains("ON \"public\".\"iap_receipts\" ((\"account_id\"::text));"))
    }
}
