import AppStoreReceipts
import AppStoreSimulator
import CommandLineOptions
import Foundation
import Reconciliation

/// `receipt-recon simulator serve`: a local verifyReceipt over the same world as `simulator seed`.
struct SimulatorServeCommand: Command {
    static let spec = CommandSpec(
        name: "simulator serve",
        usage:
            "simulator serve --port P --users N --seed S --as-of T [--latency-ms L] [--jitter-ms J] [--rate-limit R] [--fault-rate F]",
        summary:
            "Serve POST /production/verifyReceipt, POST /sandbox/verifyReceipt, GET /stats and, with --pki-dir, the App Store Server API on loopback.",
        discussion: """
            Answers as Apple would at T for the world of the same --users/--receipts, --seed, --as-of and \
            --environment as 'simulator seed'. Prints one line with the URLs once listening and ready (with \
            --pki-dir: its notification history indexed); stops on SIGINT/SIGTERM. \
            With a shared secret (APPLE_SHARED_SECRET or --shared-secret-file), receipts with subscriptions need \
            it as 'password' (else status 21004). Give the --pki-dir given to 'simulator seed' when it had one: \
            the world then includes its StoreKit 2 users (whose rows are never sent to verifyReceipt), and the \
            App Store Server API is served for the same world under /production/inApps/... and /sandbox/inApps/... \
            (Get Transaction History v2, Get All Subscription Statuses, Get Transaction Info), accepting only \
            tokens signed with DIR/api-key.p8 (kid DIR/api-key-id, iss DIR/api-issuer-id) and signing every \
            answer with DIR's chain; --rate-limit applies to each of its endpoints separately.
            """,
        options: SettingsTable.options(SimulatorSettings.world + SimulatorServeSettings.all),
        environment: ["APPLE_SHARED_SECRET"],
        exits: [
            .success: "served until SIGINT or SIGTERM stopped it",
            .usage: "usage error (bad flag, bad value, bad date)",
            .unavailable: "cannot listen on 127.0.0.1:P (the port is taken, or not allowed)",
            .internalError: "internal error",
            .configuration:
                "configuration error: no signing chain in --pki-dir, its files cannot be read, or the shared "
                + "secret cannot be read",
        ]
    )

    let world: WorldParameters
    let port: Int
    let options: SimulatorOptions

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        try arguments.refusePositionals()
        world = try WorldParameters(arguments, pkiDirectory: SimulatorServeSettings.pkiDirectory)
        let settings = SettingResolver(arguments, environment: environment)
        port = try settings.value(SimulatorServeSettings.port)
        let latency = try settings.value(SimulatorServeSettings.latency)
        let jitter = try settings.value(SimulatorServeSettings.jitter)
        let stall = try settings.value(SimulatorServeSettings.stall)
        let secret = try settings.value(SimulatorServeSettings.sharedSecretFile)?.read().value
        options = SimulatorOptions(
            latency: .milliseconds(latency),
            jitter: .milliseconds(jitter),
            rateLimit: try settings.value(SimulatorServeSettings.rateLimit),
            faultRate: try settings.value(SimulatorServeSettings.faultRate),
            faultSeed: try settings.value(SimulatorServeSettings.faultSeed) ?? world.seed,
            stallDuration: .milliseconds(stall),
            sharedSecret: secret,
            forgedNotificationFraction: try settings.value(SimulatorServeSettings.forgedNotificationFraction))
    }

    func run(_ console: Console) throws -> ExitCode {
        if let directory = self.world.pkiDirectory,
            !FileManager.default.fileExists(
                atPath: (directory as NSString).appendingPathComponent(SigningChain.rootFile))
        {
            throw CommandError(
                .configuration, "no signing chain in '\(directory)': give the --pki-dir 'simulator seed' wrote")
        }
        let world = world.world()
        var serverAPI: ServerAPISetup?
        if let directory = self.world.pkiDirectory {
            let url = URL(fileURLWithPath: directory, isDirectory: true)
            if ServerAPIKey.exists(in: url) {
                do {
                    serverAPI = try ServerAPISetup.read(from: url)
                } catch {
                    throw CommandError(
                        .configuration, "cannot read the signing chain and API key in '\(directory)': \(error)")
                }
            } else {
                console.error(
                    "simulator: no \(ServerAPIKey.keyFile) in '\(directory)' (seeded before the Server API existed): "
                        + "the App Store Server API routes answer 401; re-seed to get one")
            }
        }
        let simulator = AppStoreSimulator(world: world, options: options, serverAPI: serverAPI)
        do {
            try simulator.start(port: UInt16(port))
        } catch {
            throw CommandError(.unavailable, "cannot listen on 127.0.0.1:\(port): \(error)")
        }
        simulator.stopOnSignals()
        if serverAPI != nil {
            // The notification history's index takes a pass over every unit: built before the line that
            // says the simulator listens, so that a client started on that line (the bench's job) is not
            // kept waiting past its timeout by its first history page. A request that comes earlier waits
            // for the index.
            simulator.prepareNotificationHistory()
        }
        console.error(
            "simulator: \(world.userCount) users, seed \(world.parameters.seed), as of "
                + "\(ExpectedOutcome.iso8601(world.asOfMs)), \(world.environment) database"
                + (world.includesStoreKit2Users ? " with StoreKit 2 users" : "")
                + (options.sharedSecret == nil ? "" : ", shared secret required"))
        console.print(
            "listening on \(simulator.baseURL.absoluteString) (production: \(simulator.productionURL.absoluteString), "
                + "sandbox: \(simulator.sandboxURL.absoluteString), stats: \(simulator.statsURL.absoluteString)"
                + (serverAPI == nil
                    ? ")"
                    : "; App Store Server API: \(simulator.baseURL.absoluteString)/production, "
                        + "\(simulator.baseURL.absoluteString)/sandbox)"))
        simulator.waitUntilStopped()
        let stats = simulator.stats
        let verifyReceipt = (stats.requestsByEndpoint["production"] ?? 0) + (stats.requestsByEndpoint["sandbox"] ?? 0)
        let serverAPIRequests = stats.requests - verifyReceipt
        console.error(
            "simulator: stopped after \(verifyReceipt) verifyReceipt requests "
                + (serverAPIRequests > 0 ? "and \(serverAPIRequests) Server API requests " : "")
                + "(\(stats.rateLimited) rate-limited, \(stats.faultsByKind.values.reduce(0, +)) faults injected)")
        return .success
    }
}
