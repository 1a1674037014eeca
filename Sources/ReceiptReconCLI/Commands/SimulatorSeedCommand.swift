import AppStoreReceipts
import AppStoreSimulator
import CommandLineOptions
import Foundation
import Postgres
import ReconSchema
import Reconciliation

/// `receipt-recon simulator seed`: write a drifted app database and the expected corrections.
struct SimulatorSeedCommand: Command {
    static let spec = CommandSpec(
        name: "simulator seed",
        usage:
            "simulator seed --database-url URL --users N --seed S --as-of T --expected FILE [--pki-dir DIR [--new-pki]] "
            + "[--schema NAME]",
        summary: "Seed products, receipts and entitlements that drifted from the simulated App Store in known ways.",
        discussion: """
            Migrates the database if needed, then fills the app's empty tables (products, receipts, entitlements, \
            sandbox_testers) in one transaction. FILE receives, as JSON, the corrections and flags a correct \
            'receipt-recon run --older-than 0 --as-of T' must produce against 'simulator serve' with the same \
            --users/--receipts, --seed, --as-of and --environment. The file states the run it is for: by default \
            a run with --bundle-id com.example.recon (APPLE_BUNDLE_IDS), --sandbox-policy revoke and --backend \
            verify-receipt; with --backend server-api, StoreKit 2 rows are judged by Apple's state at T (receipt \
            rows expect the same under both backends, deleted Apple accounts aside: 21010 is invalid, 4040001 a \
            permanent unverified), and the file also states the run's refunded amount per currency. \
            With --pki-dir DIR, seeding signs with a throwaway chain with Apple's OIDs kept in DIR \
            (apple-root.der, apple-intermediate.der, apple-leaf.der, apple-leaf-key.p8, and the RSA receipt leaf \
            apple-receipt-leaf.der, apple-receipt-leaf-key.p8 that signs app receipts) beside an App Store \
            Server API key (api-key.p8, api-key-id, api-issuer-id) for --backend server-api and 'simulator \
            serve', and adds StoreKit 2 users whose rows hold JWS signed by it; the run must then trust \
            DIR/apple-root.der (--apple-root-certificate), and 'simulator serve' be given the same --pki-dir. \
            A DIR that already holds all nine files is reused as it is, so databases seeded into one DIR \
            stay valid together; an empty or missing DIR gets a new set; --new-pki mints a new set over \
            what is there (databases seeded with the old one then fail to verify). A DIR holding only some \
            of the files (one seeded before the receipt leaf existed among them) is refused. For staging and tests only: never point a production run at that root. \
            With --changed-fraction F (needs --pki-dir and --backend server-api; give serve the same options), \
            the world is incremental: one StoreKit 2 user per row, verified by a correct previous run at \
            --changed-since before --as-of (its recon_runs, recon_receipt_state, recon_user_state, \
            recon_transactions and recon_notification_cursor rows are seeded too), F of them changed at Apple \
            since, the app having missed the notifications of --missed-fraction of those; FILE then expects \
            'run --backend server-api' without --older-than to correct exactly the missed users. \
            With --schema NAME, only the four contract-shaped application tables are created, in schema NAME \
            (created if missing), and seeded there: a staging copy of the world to fill one's own tables from, \
            and rehearse one's own mapping against (docs/simulator.md, "Rehearsing your own mapping"). \
            A database whose products is a view (one mapped onto an app's own tables) is refused without \
            --schema: seeding writes the contract's tables, never an app's.
            """,
        options: SettingsTable.options(SimulatorSettings.world + SimulatorSeedSettings.all)
            + Configuration.databaseOptions,
        environment: ["DATABASE_URL"],
        exits: [
            .success: "seeded; the expected file written when --expected was given",
            .usage: DatabaseCommandExit.usage,
            .dataError:
                "the app's tables are not empty (seed a fresh database), or the expected file or the signing chain "
                + "cannot be written",
            .unavailable: DatabaseCommandExit.unavailable,
            .internalError: DatabaseCommandExit.internalError,
            .noPermission: DatabaseCommandExit.noPermission,
            .configuration:
                DatabaseCommandExit.configuration + "; a --pki-dir holding only some of its files, or files it "
                + "cannot read",
        ]
    )

    let world: WorldParameters
    let expectedFile: String?
    let assumptions: RunAssumptions
    let configuration: Configuration
    /// `--new-pki`: mint afresh even when `--pki-dir` holds a chain and key.
    let newPKI: Bool
    /// `--schema NAME`: seed contract-shaped tables of their own there, without the job's tables.
    let stagingSchema: String?

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        try arguments.refusePositionals()
        world = try WorldParameters(arguments, pkiDirectory: SimulatorSeedSettings.pkiDirectory)
        let settings = SettingResolver(arguments, environment: environment)
        expectedFile = try settings.value(SimulatorSeedSettings.expected)
        let bundles = try settings.value(SimulatorSeedSettings.bundleIDs)
        let noBundleCheck = try settings.value(SimulatorSeedSettings.noBundleCheck)
        if noBundleCheck, !bundles.isEmpty {
            throw .usage("give --bundle-id or --no-bundle-check, not both", command: "simulator seed")
        }
        let policy = try settings.value(SimulatorSeedSettings.sandboxPolicy)
        let backend = try settings.value(SimulatorSeedSettings.backend)
        if world.incremental != nil, backend != "server-api" {
            throw .usage(
                "--changed-fraction seeds for --backend server-api (its rows are JWS the run asks Apple about)",
                command: "simulator seed")
        }
        if backend == "server-api", world.pkiDirectory == nil {
            throw .usage(
                "--backend server-api needs --pki-dir: the API key is written there", command: "simulator seed")
        }
        // The simulator's API key is the app's: a run whose default bid (the first bundle id) is another
        // app's stops at its first request (exit 78), which no expected file describes.
        if backend == "server-api",
            noBundleCheck || (bundles.first ?? WorldCatalog.appBundleID) != WorldCatalog.appBundleID
        {
            throw .usage(
                "--backend server-api expects a run whose first --bundle-id is \(WorldCatalog.appBundleID) "
                    + "(the JWT's default bid; the simulator's API key is that app's)",
                command: "simulator seed")
        }
        newPKI = try settings.value(SimulatorSeedSettings.newPKI)
        stagingSchema = try settings.value(SimulatorSeedSettings.schema)
        if stagingSchema != nil, world.incremental != nil {
            throw .usage(
                "--schema seeds the application tables only; --changed-fraction also seeds the job's tables",
                command: "simulator seed")
        }
        if let name = stagingSchema, name.isEmpty {
            throw .usage("--schema needs a schema name", command: "simulator seed")
        }
        if newPKI, world.pkiDirectory == nil {
            throw .usage("--new-pki needs --pki-dir", command: "simulator seed")
        }
        assumptions = RunAssumptions(
            environment: world.environment,
            bundleIDs: noBundleCheck
                ? nil : (bundles.isEmpty ? [WorldCatalog.appBundleID] : bundles),
            sandboxPolicy: RunAssumptions.SandboxPolicy(rawValue: policy)!,
            appleRootCertificate: world.pkiDirectory.map {
                ($0 as NSString).appendingPathComponent(SigningChain.rootFile)
            },
            backend: RunAssumptions.Backend(rawValue: backend)!)
        configuration = try Configuration.load(arguments, environment: environment, needsApple: false)
    }

    func run(_ console: Console) throws -> ExitCode {
        let world = world.world()
        if let expectedFile { try checkWritable(expectedFile) }
        let signing = try self.world.pkiDirectory.map { try preparedSigningChain(in: $0, asOfMs: world.asOfMs) }
        let signingChain = signing?.chain
        let connection = try PostgresConnection(
            conninfo: configuration.databaseURL, statementTimeout: nil,
            applicationName: "receipt-recon simulator seed")
        if let stagingSchema {
            try StagingSchema.prepare(stagingSchema, on: connection)
        } else {
            try StagingSchema.refuseMappedTables(on: connection)
            _ = try Migrator().apply(on: connection)
        }
        let started = ContinuousClock.now
        let summary: WorldSeeder.Summary
        do {
            summary = try WorldSeeder.seed(
                world, into: connection, assumptions: assumptions, signingChain: signingChain
            ) { users in
                if console.stderrIsTerminal { console.error("seeded \(users) of \(world.userCount) users") }
            }
        } catch let error as WorldSeeder.SeedError {
            throw CommandError(.dataError, error.description)
        }
        if let expectedFile {
            try write(summary.expected.jsonData(), to: expectedFile)
        }
        let elapsed =
            Double((ContinuousClock.now - started).components.attoseconds) * 1e-18
            + Double((ContinuousClock.now - started).components.seconds)
        let expected = summary.expected
        if let directory = self.world.pkiDirectory, let signing {
            console.print(
                (signing.reused
                    ? "reused the signing chain and API key in " : "minted a new signing chain and API key into ")
                    + "'\(directory)'")
        }
        console.print(
            "seeded \(summary.users) users, \(summary.receipts) receipts, \(summary.entitlements) entitlements, "
                + "\(summary.products) products, \(summary.sandboxTesters) sandbox testers "
                + "(world: seed \(world.parameters.seed), as of \(ExpectedOutcome.iso8601(world.asOfMs)), \(world.environment)) "
                + "in \(String(format: "%.1f", elapsed)) s")
        console.print(
            "expected: \(expected.corrections.count) corrections, \(expected.flags.count) flags for '\(expected.runCommand)'"
                + (expectedFile.map { " -> \($0)" } ?? " (no --expected file written)"))
        if let incremental = expected.incremental {
            console.print(
                "incremental: \(incremental.changedUsers) users changed since the previous run, "
                    + "\(incremental.missedChanges) of them missed by the app, \(incremental.notifiedUsers) users notified, "
                    + "\(incremental.unmatchedNotifications) notifications for purchases no row holds")
        }
        return .success
    }

    private func write(_ data: Data, to path: String) throws {
        do {
            try OutputFile.write(data, to: path)
        } catch {
            throw CommandError(.dataError, "cannot write the expected file '\(path)': \(error.reason)")
        }
    }

    /// The chain StoreKit 2 rows are signed with: the one in `directory`, or a new one written there
    /// before seeding, so a seeded database never goes without its root.
    private func preparedSigningChain(in directory: String, asOfMs: Int64) throws -> (chain: SigningChain, reused: Bool)
    {
        do {
            return try SeedSigningChain.prepare(
                in: URL(fileURLWithPath: directory, isDirectory: true), asOfMs: asOfMs, fresh: newPKI)
        } catch let error as SeedSigningChain.PKIError {
            throw CommandError(.configuration, error.description)
        } catch {
            throw CommandError(.dataError, "cannot write a signing chain into '\(directory)': \(error)")
        }
    }

    /// Fails before seeding when the expected file cannot be written, so a seeded database never goes
    /// without its file.
    private func checkWritable(_ path: String) throws {
        do {
            try OutputFile.checkWritable(path)
        } catch {
            throw CommandError(.dataError, "cannot write the expected file '\(path)': \(error.reason)")
        }
    }
}
