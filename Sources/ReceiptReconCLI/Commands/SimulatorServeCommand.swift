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
            --environment as 'simulator seed'. Prints one line with the URLs once listening; stops on SIGINT/SIGTERM. \
            With a shared secret (APPLE_SHARED_SECRET or --shared-secret-file), receipts with subscriptions need \
            it as 'password' (else status 21004). Give the --pki-dir given to 'simulator seed' when it had one: \
            the world then includes its StoreKit 2 users (whose rows are never sent to verifyReceipt), and the \
            App Store Server API is served for the same world under /production/inApps/... and /sandbox/inApps/... \
            (Get Transaction History v2, Get All Subscription Statuses, Get Transaction Info), accepting only \
            tokens signed with DIR/api-key.p8 (kid DIR/api-key-id, iss DIR/api-issuer-id) and signing every \
            answer with DIR's chain; --rate-limit applies to each of its endpoints separately.
            """,
        options: simulatorWorldOptions + [
            OptionSpec("port", .value(placeholder: "P"), "TCP port on 127.0.0.1 (0 picks a free one)", default: "0"),
            OptionSpec("latency-ms", .value(placeholder: "L"), "fixed latency added to every answer", default: "0"),
            OptionSpec("jitter-ms", .value(placeholder: "J"), "random extra latency, uniform in [0, J]", default: "0"),
            OptionSpec(
                "rate-limit", .value(placeholder: "R"), "answer 429 with Retry-After above R requests/s",
                default: "none"),
            OptionSpec(
                "fault-rate", .value(placeholder: "F"),
                "probability of an injected fault per request (21005, 21009, 21199, 503, resets, stalls)", default: "0"),
            OptionSpec("fault-seed", .value(placeholder: "S"), "seed of fault and jitter draws", default: "--seed"),
            OptionSpec(
                "forged-notification-fraction", .value(placeholder: "F"),
                "the share of notification history records signed by a chain that is not Apple's (never to be believed)",
                default: "0"),
            OptionSpec(
                "stall-ms", .value(placeholder: "MS"), "how long a stall holds a request before closing it",
                default: "60000"),
            OptionSpec(
                "shared-secret-file", .value(placeholder: "PATH"),
                "require this shared secret as 'password' (overrides APPLE_SHARED_SECRET)"),
            OptionSpec(
                "pki-dir", .value(placeholder: "DIR"),
                "the world of 'simulator seed --pki-dir DIR': with its StoreKit 2 users"),
        ],
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
        guard arguments.positionals.isEmpty else {
            throw .usage("unexpected argument '\(arguments.positionals[0])'", command: "simulator serve")
        }
        world = try WorldParameters(arguments)
        port = try arguments.read.integer("port", in: 0...65535) ?? 0
        let latency = try arguments.read.integer("latency-ms", in: 0...600_000) ?? 0
        let jitter = try arguments.read.integer("jitter-ms", in: 0...600_000) ?? 0
        let stall = try arguments.read.integer("stall-ms", in: 1...3_600_000) ?? 60_000
        // The job's setting, read by its rule; only the help says what the simulator does with it.
        let secret = try SettingResolver(arguments, environment: environment).value(AppleSettings.sharedSecret)?
            .read().value
        options = SimulatorOptions(
            latency: .milliseconds(latency),
            jitter: .milliseconds(jitter),
            rateLimit: try arguments.read.positiveNumber("rate-limit"),
            faultRate: try arguments.read.ratio("fault-rate") ?? 0,
            faultSeed: try arguments.read.unsignedInteger("fault-seed") ?? world.seed,
            stallDuration: .milliseconds(stall),
            sharedSecret: secret,
            forgedNotificationFraction: try arguments.read.ratio("forged-notification-fraction") ?? 0)
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
            // The notification history's index takes a pass over every unit: built beside the serving.
            Thread.detachNewThread { simulator.prepareNotificationHistory() }
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
