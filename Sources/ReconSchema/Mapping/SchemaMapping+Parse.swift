/// A mapping file that cannot be used: where, what, and what to write instead.
public struct MappingFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based; nil for what the file lacks as a whole.
    public let line: Int?
    public let message: String

    public init(line: Int?, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}

extension SchemaMapping {
    /// The keys each section takes; `true`: required.
    static let sectionKeys: [String: [(key: String, required: Bool)]] = [
        "job": [("schema", false), ("owner", false), ("role", false)],
        "products": [
            ("table", true), ("product_id", true), ("entitlement", true), ("kind", false), ("duration", false),
            ("duration_unit", false),
        ],
        "receipts": [
            ("table", true), ("id", true), ("id_type", false), ("user_id", true), ("user_id_type", false),
            ("receipt_data", true), ("created_at", false),
        ],
        "entitlements": [
            ("table", true), ("user_id", true), ("user_id_type", false), ("entitlement", true), ("active", true),
            ("expires_at", false), ("product_id", false), ("original_transaction_id", false), ("updated_at", false),
            ("source", false), ("source_app_store", false),
        ],
        "sandbox_testers": [("table", true), ("user_id", true), ("user_id_type", false), ("note", false)],
    ]
    /// Sections whose keys are the app's values or product ids, each mapped to a kind.
    static let kindSections = ["kinds", "product_kinds"]

    /// Reads a mapping file (docs/mapping.md): `[section]` headers, `key = value` lines, and whole-line
    /// comments starting with `#`. Strict: an unknown section or key, a repeated key, a missing required
    /// key and a kind none of the four are errors, so a typo never becomes a silent default.
    public static func parse(_ text: String) throws(MappingFileError) -> SchemaMapping {
        var sections: [String: [(key: String, value: String, line: Int)]] = [:]
        var current: String?
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = offset + 1
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else {
                    throw MappingFileError(line: lineNumber, "a section header ends with ']'")
                }
                let name = String(line.dropFirst().dropLast()).trimmingWhitespace()
                guard sectionKeys[name] != nil || kindSections.contains(name) else {
                    let known =
                        (["job", "products", "kinds", "product_kinds", "receipts", "entitlements", "sandbox_testers"])
                    throw MappingFileError(
                        line: lineNumber, "unknown section [\(name)]; sections: \(known.joined(separator: ", "))")
                }
                guard sections[name] == nil else {
                    throw MappingFileError(line: lineNumber, "section [\(name)] given twice")
                }
                sections[name] = []
                current = name
                continue
            }
            guard let section = current else {
                throw MappingFileError(
                    line: lineNumber, "'\(line)' is outside any section: start with a [section] header")
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw MappingFileError(line: lineNumber, "expected 'key = value' in [\(section)], found '\(line)'")
            }
            let key = String(line[..<equals]).trimmingWhitespace()
            let value = String(line[line.index(after: equals)...]).trimmingWhitespace()
            guard !key.isEmpty, !value.isEmpty else {
                throw MappingFileError(line: lineNumber, "expected 'key = value' in [\(section)], found '\(line)'")
            }
            if let allowed = sectionKeys[section], !allowed.contains(where: { $0.key == key }) {
                throw MappingFileError(
                    line: lineNumber,
                    "[\(section)] has no key '\(key)'; its keys: \(allowed.map(\.key).joined(separator: ", "))")
            }
            if let earlier = sections[section]!.first(where: { $0.key == key }) {
                throw MappingFileError(
                    line: lineNumber, "[\(section)] \(key) is given twice (first on line \(earlier.line))")
            }
            sections[section]!.append((key, value, lineNumber))
        }
        return try SectionReader(sections: sections).mapping()
    }
}

/// Turns the parsed sections into a `SchemaMapping`, checking each value.
private struct SectionReader {
    let sections: [String: [(key: String, value: String, line: Int)]]

    func entry(_ section: String, _ key: String) -> (value: String, line: Int)? {
        sections[section]?.first { $0.key == key }.map { ($0.value, $0.line) }
    }

    func require(_ section: String) throws(MappingFileError) {
        guard sections[section] != nil else {
            throw MappingFileError(line: nil, "the mapping has no [\(section)] section")
        }
        for (key, required) in SchemaMapping.sectionKeys[section]! where required && entry(section, key) == nil {
            throw MappingFileError(line: nil, "[\(section)] needs '\(key) = …'")
        }
    }

    func column(_ section: String, _ key: String) throws(MappingFileError) -> String? {
        guard let (value, line) = entry(section, key) else { return nil }
        return try identifiers(value, line: line, max: 1).last!
    }

    func requiredColumn(_ section: String, _ key: String) throws(MappingFileError) -> String {
        // `require` has checked it is there.
        try column(section, key)!
    }

    func table(_ section: String) throws(MappingFileError) -> SchemaMapping.TableName {
        let (value, line) = entry(section, "table")!
        let parts = try identifiers(value, line: line, max: 2)
        // The SQL runs as the owner, whose search path is the job's schema (the admin part sets it): an
        // unqualified name would be looked up there, not where the app's table is.
        guard parts.count == 2 else {
            throw MappingFileError(
                line: line,
                "[\(section)] table = \(value): write it with its schema (public.\(value)); the printed SQL "
                    + "runs with the job's schema first on the search path")
        }
        return SchemaMapping.TableName(schema: parts.count == 2 ? parts[0] : nil, name: parts.last!)
    }

    func choice<T: RawRepresentable & CaseIterable>(_ section: String, _ key: String, default value: T)
        throws(MappingFileError) -> T where T.RawValue == String
    {
        guard let (text, line) = entry(section, key) else { return value }
        guard let chosen = T(rawValue: text.lowercased()) else {
            throw MappingFileError(
                line: line,
                "[\(section)] \(key) = \(text): give one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return chosen
    }

    func userIDType(_ section: String) throws(MappingFileError) -> SchemaMapping.UserIDType {
        // varchar is text to the job.
        if let (text, _) = entry(section, "user_id_type"), text.lowercased() == "varchar" { return .text }
        return try choice(section, "user_id_type", default: .text)
    }

    func kinds(_ section: String) throws(MappingFileError) -> [(String, String)] {
        try (sections[section] ?? []).map { (key, value, line) throws(MappingFileError) in
            guard SchemaMapping.kinds.contains(value) else {
                throw MappingFileError(
                    line: line,
                    "[\(section)] \(key) = \(value): a kind is one of \(SchemaMapping.kinds.joined(separator: ", "))")
            }
            return (key, value)
        }
    }

    func name(_ key: String, default value: String) throws(MappingFileError) -> String {
        guard let (text, line) = entry("job", key) else { return value }
        return try identifiers(text, line: line, max: 1)[0]
    }

    func mapping() throws(MappingFileError) -> SchemaMapping {
        for section in ["products", "receipts", "entitlements"] { try require(section) }
        if sections["sandbox_testers"] != nil { try require("sandbox_testers") }

        let kindColumn = try column("products", "kind")
        let valueKinds = try kinds("kinds")
        let productKinds = try kinds("product_kinds")
        if kindColumn != nil, valueKinds.isEmpty {
            throw MappingFileError(
                line: entry("products", "kind")!.line,
                "[products] kind names a column, but no [kinds] section says which of its values is which kind")
        }
        if kindColumn == nil, !valueKinds.isEmpty {
            throw MappingFileError(
                line: nil, "[kinds] translates a column's values, but [products] names no 'kind = COLUMN'")
        }
        if kindColumn == nil, productKinds.isEmpty {
            throw MappingFileError(
                line: nil,
                "the mapping says no product's kind: give [products] kind = COLUMN with a [kinds] section "
                    + "(each of the column's values = one of \(SchemaMapping.kinds.joined(separator: ", "))), "
                    + "or list every product id under [product_kinds]; there is no default kind")
        }
        let durationUnit: SchemaMapping.DurationUnit = try choice("products", "duration_unit", default: .interval)
        let products = SchemaMapping.Products(
            table: try table("products"), productID: try requiredColumn("products", "product_id"),
            entitlement: try requiredColumn("products", "entitlement"), kindColumn: kindColumn,
            kinds: valueKinds, productKinds: productKinds, duration: try column("products", "duration"),
            durationUnit: durationUnit)
        if products.duration == nil, let (_, line) = entry("products", "duration_unit") {
            throw MappingFileError(line: line, "[products] duration_unit without 'duration = COLUMN'")
        }

        let receipts = SchemaMapping.Receipts(
            table: try table("receipts"), id: try requiredColumn("receipts", "id"),
            idType: try choice("receipts", "id_type", default: .bigint),
            userID: try requiredColumn("receipts", "user_id"), userIDType: try userIDType("receipts"),
            receiptData: try requiredColumn("receipts", "receipt_data"), createdAt: try column("receipts", "created_at")
        )

        let source = try column("entitlements", "source")
        let appStoreWord = entry("entitlements", "source_app_store")
        if source != nil, appStoreWord == nil {
            throw MappingFileError(
                line: entry("entitlements", "source")!.line,
                "[entitlements] source names a column: say which of its values marks an App Store grant, the "
                    + "rows the job may change, with 'source_app_store = VALUE'")
        }
        if source == nil, let (_, line) = appStoreWord {
            throw MappingFileError(line: line, "[entitlements] source_app_store without 'source = COLUMN'")
        }
        let entitlements = SchemaMapping.Entitlements(
            table: try table("entitlements"), userID: try requiredColumn("entitlements", "user_id"),
            userIDType: try userIDType("entitlements"), entitlement: try requiredColumn("entitlements", "entitlement"),
            active: try requiredColumn("entitlements", "active"), expiresAt: try column("entitlements", "expires_at"),
            productID: try column("entitlements", "product_id"),
            originalTransactionID: try column("entitlements", "original_transaction_id"),
            updatedAt: try column("entitlements", "updated_at"), source: source,
            sourceAppStore: appStoreWord?.value ?? "app_store")

        let testers = try sections["sandbox_testers"].map { _ throws(MappingFileError) in
            SchemaMapping.SandboxTesters(
                table: try table("sandbox_testers"), userID: try requiredColumn("sandbox_testers", "user_id"),
                userIDType: try userIDType("sandbox_testers"), note: try column("sandbox_testers", "note"))
        }
        var mapping = SchemaMapping(
            products: products, receipts: receipts, entitlements: entitlements, sandboxTesters: testers)
        mapping.schema = try name("schema", default: mapping.schema)
        mapping.owner = try name("owner", default: mapping.owner)
        mapping.jobRole = try name("role", default: mapping.jobRole)
        return mapping
    }

    /// `a`, `"Quoted Name"`, `schema.table`: unquoted parts fold to lower case as PostgreSQL folds them.
    func identifiers(_ text: String, line: Int, max: Int) throws(MappingFileError) -> [String] {
        var parts: [String] = []
        var rest = Substring(text)
        while true {
            if rest.first == "\"" {
                var name = ""
                var index = rest.index(after: rest.startIndex)
                var closed = false
                while index < rest.endIndex {
                    if rest[index] == "\"" {
                        let next = rest.index(after: index)
                        if next < rest.endIndex, rest[next] == "\"" {
                            name.append("\"")
                            index = rest.index(after: next)
                            continue
                        }
                        closed = true
                        index = next
                        break
                    }
                    name.append(rest[index])
                    index = rest.index(after: index)
                }
                guard closed, !name.isEmpty else {
                    throw MappingFileError(line: line, "unclosed or empty quoted name in '\(text)'")
                }
                parts.append(name)
                rest = rest[index...]
            } else {
                let end = rest.firstIndex(of: ".") ?? rest.endIndex
                let word = rest[..<end]
                guard let first = word.first, first == "_" || first.isLetter,
                    word.allSatisfy({ $0 == "_" || $0 == "$" || $0.isLetter || $0.isNumber })
                else {
                    throw MappingFileError(
                        line: line,
                        "'\(text)' is not a name: write a column or table name (schema.table), "
                            + "in double quotes when it has capitals, spaces or other characters")
                }
                parts.append(word.lowercased())
                rest = rest[end...]
            }
            if rest.isEmpty { break }
            guard rest.first == ".", parts.count < max else {
                throw MappingFileError(
                    line: line,
                    max == 1 ? "'\(text)' is not one column name" : "'\(text)' is not a table name (schema.table)")
            }
            rest = rest.dropFirst()
        }
        return parts
    }
}

extension StringProtocol {
    fileprivate func trimmingWhitespace() -> String {
        let characters = self.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(characters.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
