import AppStoreReceipts
import AppStoreSimulator
import CivilTime
import Foundation
import Postgres
import ReconSchema
import Reconciliation

/// `receipt-recon demo`, step by step: a database (throwaway unless DATABASE_URL is set), the
/// simulator in-process, a seeded world that drifted from Apple, the nightly run, its check against
/// the simulator's expectation, the files finance and operations read, and one support case.
struct DemoRunner {
    let users: Int
    let outputDirectory: String
    let databaseURL: String?
    /// Run against the simulator's App Store Server API instead of its verifyReceipt.
    let serverAPI: Bool
    let console: Console

    func say(_ text: String) { console.print(text) }

    func run() throws -> ExitCode {
        let started = Date()
        // 1. A database.
        var cluster: ScratchCluster?
        defer { cluster?.stop() }
        let conninfo: String
        if let databaseURL {
            conninfo = databaseURL
            say("Using --database-url (its app tables must be empty: the demo seeds them).")
        } else {
            say("Starting a throwaway PostgreSQL cluster (removed when the demo ends)…")
            do {
                cluster = try ScratchCluster()
            } catch {
                throw CommandError(.unavailable, "demo: \(error)")
            }
            let admin = try PostgresConnection(conninfo: cluster!.conninfo)
            try admin.execute("CREATE DATABASE receipt_recon_demo")
            conninfo = try ConnectionString(cluster!.conninfo).replacingDatabase(with: "receipt_recon_demo").rendered
        }
        let connection = try PostgresConnection(conninfo: conninfo, applicationName: "receipt-recon demo")
        // Refused before migrating: a database with data of its own is left exactly as it was.
        if let table = try WorldSeeder.firstNonEmptyTable(on: connection) {
            throw CommandError(
                .dataError,
                "demo: table \(table) of --database-url is not empty: the demo seeds its own world; give it an "
                    + "empty database, or none for a throwaway cluster")
        }
        _ = try Migrator().apply(on: connection)

        // 2. A world that drifted, and Apple's side of it. Some users are on StoreKit 2: their rows hold
        // transactions signed by a throwaway chain (the simulator's stand-in for Apple's), which the
        // run below trusts in place of Apple Root CA - G3.
        let asOf = Date(timeIntervalSince1970: (Date().timeIntervalSince1970).rounded(.down))
        let world = SimulatedWorld(users: users, seed: 1, asOf: asOf, includesStoreKit2Users: true)
        let pkiDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "receipt-recon-demo-pki-\(getpid())")
        defer { try? FileManager.default.removeItem(at: pkiDirectory) }
        let signingChain = try SeedSigningChain.create(in: pkiDirectory, asOfMs: world.asOfMs)
        say("Seeding \(users) users whose entitlements drifted from the App Store…")
        let seeded: WorldSeeder.Summary
        do {
            seeded = try WorldSeeder.seed(
                world, into: connection,
                assumptions: RunAssumptions(
                    bundleIDs: [WorldCatalog.appBundleID], backend: serverAPI ? .serverAPI : .verifyReceipt),
                signingChain: signingChain)
        } catch let error as WorldSeeder.SeedError {
            throw CommandError(.dataError, "demo: \(error)")
        }
        say("  \(seeded.receipts) receipts, \(seeded.entitlements) entitlements, \(seeded.products) products")
        let signedRows = try WorldSeeder.signedReceiptCount(on: connection)
        say(
            "  \(signedRows) of the receipts are StoreKit 2 signed transactions: verified locally"
                + (serverAPI ? ", then looked up by transaction id" : ", never sent to verifyReceipt"))
        let apiKey = try ServerAPIKey.generate()
        let simulator = AppStoreSimulator(
            world: world, serverAPI: ServerAPISetup(chain: signingChain, key: apiKey))
        try simulator.start(port: 0)
        defer { simulator.stop() }
        say("App Store simulator listening on \(simulator.baseURL.absoluteString)")

        // 3. The nightly run, as cron would start it.
        let backendKind: ServerAPISettings.Backend = serverAPI ? .serverAPI : .verifyReceipt
        let settings = Self.settings(asOf: asOf)
        let options = settings.runOptions(environment: .production, backend: backendKind)
        let signedData = SignedDataVerifier(anchors: [TrustAnchor(signingChain.root)])
        let context = ReceiptOutcomeContext(
            servedEnvironment: options.environment, acceptedBundleIDs: [WorldCatalog.appBundleID])
        let backend: any AppleBackend =
            serverAPI
            ? ServerAPIBackend(
                client: ServerAPIClient(
                    configuration: ServerAPIClient.Configuration(
                        productionURL: simulator.baseURL.appendingPathComponent("production"),
                        sandboxURL: simulator.baseURL.appendingPathComponent("sandbox"), userAgent: Self.userAgent),
                    verifier: signedData),
                context: context, signedData: signedData,
                receiptSignatures: ReceiptSignatureVerifier(roots: [signingChain.root]), asOf: asOf,
                defaultBundleID: WorldCatalog.appBundleID, appAppleIDs: WorldCatalog.appAppleIDs)
            : VerifyReceiptBackend(
                client: VerifyReceiptClient(
                    configuration: VerifyReceiptClient.Configuration(
                        productionURL: simulator.productionURL, sandboxURL: simulator.sandboxURL,
                        environment: .production, userAgent: Self.userAgent)),
                context: context, signedData: signedData)
        let driver = ExchangeDriver(
            transport: settings[AppleRequestSettings.httpClient].makeTransport(
                maxConnectionsPerHost: options.concurrency, timeout: settings.timeoutDuration),
            rate: settings[AppleRequestSettings.rate], maxInFlight: options.concurrency,
            tokens: serverAPI ? ServerAPITokens(key: apiKey.key, keyID: apiKey.keyID, issuerID: apiKey.issuerID) : nil)
        let request = Self.request(settings, backend: backendKind)
        say(
            "\nRunning the nightly job (receipt-recon run --older-than 0 --bundle-id \(WorldCatalog.appBundleID)"
                + (serverAPI ? " --backend server-api" : "") + ")…\n")
        let engine = ReconciliationEngine(
            options: options, request: request, databaseURL: conninfo, backend: backend, driver: driver,
            shutdown: ShutdownSignal(), log: EventLog(enabled: false))
        let outcome = try engine.runNightly()
        console.write(outcome.summary.text)

        // 4. The check only a simulator allows: did the job do exactly what a correct job must?
        let applied = Set(
            try RunRows.appliedCorrections(runID: outcome.summary.runID, on: connection).map {
                "\($0.userID) \($0.entitlement) \($0.action)"
            })
        let expected = Set(seeded.expected.corrections.map { "\($0.userID) \($0.entitlement) \($0.action)" })
        let verdict =
            applied == expected
            ? "match the simulator's expectation exactly (\(expected.count) corrections)"
            : "DIFFER from the simulator's expectation: \(expected.subtracting(applied).count) missing, "
                + "\(applied.subtracting(expected).count) unexpected"
        say("\nThe corrections \(verdict).")

        // 5. What finance and operations open: the three CSVs with manifests, the HTML report, the summary.
        let directory = URL(fileURLWithPath: outputDirectory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let summaryFile = directory.appendingPathComponent("run-summary.json")
        try OutputFile.write(outcome.summary.json + "\n", to: summaryFile.path)
        let tomorrow = Instant.format(Date().addingTimeInterval(86_400)).prefix(10)
        say("")
        for view in ["transactions", "corrections", "flags"] {
            let path = directory.appendingPathComponent("\(view).csv").path
            // The world's purchases go back years; the range covers all of them.
            try run(
                ExportCommand.self,
                [
                    view, "--from", "2000-01-01", "--to", String(tomorrow), "--output", path,
                    "--database-url", conninfo,
                ])
        }
        let reportFile = directory.appendingPathComponent("report.html").path
        try run(
            ReportCommand.self,
            ["--run", String(outcome.summary.runID), "--html", reportFile, "--database-url", conninfo])
        // 6. Support re-verifies one user: the demo breaks one entitlement as an app bug would.
        if let user = seeded.expected.corrections.first(where: { $0.action == "grant" || $0.action == "extend" }) {
            try WorldSeeder.switchOff(entitlement: user.entitlement, of: user.userID, on: connection)
            say("\nSupport case: user \(user.userID) reports '\(user.entitlement)' missing (the demo switched it off).")
            say("$ receipt-recon verify-user \(user.userID)\n")
            var userOptions = options
            userOptions.concurrency = 4
            var userRequest = request
            userRequest.record(AppleRequestSettings.concurrency, userOptions.concurrency)
            let support = ReconciliationEngine(
                options: userOptions, request: userRequest, databaseURL: conninfo, backend: backend, driver: driver,
                shutdown: ShutdownSignal(), log: EventLog(enabled: false))
            if let result = try support.verifyUser(user.userID) {
                console.write(
                    UserReport.render(
                        userID: user.userID, before: result.before, after: result.after,
                        corrections: result.corrections, unverdicted: result.unverdicted,
                        summary: result.outcome.summary))
            }
        }

        say("\nDone in \(String(format: "%.0f", Date().timeIntervalSince(started))) s. Open next:")
        say("  \(directory.appendingPathComponent("report.html").path)   the run at a glance (any browser)")
        say(
            "  \(directory.appendingPathComponent("corrections.csv").path)   every correction, for finance (and its .manifest.json)"
        )
        say("  \(summaryFile.path)   the run's figures as JSON")
        say("  docs/integration.md   to point it at your own database (tables, roles, a first dry run)")
        return applied == expected ? .success : .internalError
    }

    /// Runs another command exactly as the command line would, so the demo's files are the real thing.
    private func run(_ command: any Command.Type, _ arguments: [String]) throws {
        let parsed = try command.spec.parse(arguments)
        let code = try command.init(parsed, environment: [:]).run(console)
        guard code == .success else {
            throw CommandError(
                code, "demo: '\(command.spec.name) \(arguments.first ?? "")' ended with exit \(code.rawValue)")
        }
    }

    private static var userAgent: String { "receipt-recon/\(ReceiptRecon.version) demo" }
}
