import CommandLineOptions
import Foundation
import ReconSchema
import Reconciliation

/// `receipt-recon mapping FILE`: print the SQL that maps an app's own tables onto the contract's, from a
/// mapping file (docs/mapping.md). Reads no database: the operator reads the SQL, then runs each part as
/// the role it names.
struct MappingCommand: Command {
    static let spec = CommandSpec(
        name: "mapping",
        usage: "mapping FILE [--part admin|schema|grants]...",
        summary:
            "Print the views, sync triggers and GRANTs that map your own tables onto the job's, from a mapping file.",
        discussion: """
            FILE says which of your tables and columns are the contract's products, receipts, entitlements and \
            sandbox_testers, the kind of each product (no default: a kind the file does not state reads as NULL, \
            which migrate --check and run refuse naming the product), how user ids and receipt keys convert \
            (bigint, integer, uuid or text; a uuid receipt key gets a stable bigint id), and the job's schema and \
            roles (docs/mapping.md). The SQL comes in three parts, printed in order unless --part picks: \
            'admin' (an administrator, once: the schema, the owner's privileges on your tables, both roles' \
            search path, an index), 'schema' (the owner, before 'receipt-recon migrate', in one transaction: \
            views, the entitlements table and its sync triggers), 'grants' (the owner, after migrate: the \
            nightly role's privileges). Nothing is executed: pipe each part to psql as its role. \
            'receipt-recon migrate --check --mapping FILE' then says whether the database holds what FILE maps.
            """,
        options: SettingsTable.options(MappingSettings.all),
        environment: [],
        exitCodes: [.success, .usage, .configuration]
    )

    let path: String
    let parts: [MappingSQL.Part]

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        path = try arguments.onePositional("FILE", missing: ", the mapping file (docs/mapping.md)")
        let chosen = Set(try SettingResolver(arguments, environment: [:]).value(MappingSettings.parts))
        parts = MappingSQL.Part.allCases.filter { chosen.isEmpty || chosen.contains($0) }
    }

    func run(_ console: Console) throws -> ExitCode {
        let mapping = try Self.load(path)
        console.write(MappingSQL.text(mapping, parts: parts))
        return .success
    }

    /// The mapping in `path`, or a 78 naming the file, the line and what to write.
    static func load(_ path: String) throws(CommandError) -> SchemaMapping {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else {
            throw .configuration(
                "cannot read the mapping file '\(path)': check that it exists, is readable and is UTF-8")
        }
        do {
            return try SchemaMapping.parse(text)
        } catch {
            throw .configuration("mapping file '\(path)', \(error.description) (docs/mapping.md)")
        }
    }
}
