import Foundation

/// Options common to `simulator seed` and `simulator serve`: the same N, S and T give the same world.
private let worldOptions: [OptionSpec] = [
    OptionSpec("users", .value(placeholder: "N"), "users in the world", default: "2000"),
    OptionSpec("seed", .value(placeholder: "S"), "random seed; the same seed gives the same world", default: "1"),
    OptionSpec("as-of", .value(placeholder: "T"), "the instant the world is seen at (ISO 8601)", default: "now"),
]

/// World parameters shared by both simulator subcommands.
struct WorldParameters {
    let users: Int
    let seed: UInt64
    let asOf: Date?

    init(_ arguments: ParsedArguments) throws(CommandError) {
        users = try arguments.read.integer("users", in: 1...10_000_000) ?? 2000
        seed = try arguments.read.unsignedInteger("seed") ?? 1
        asOf = try arguments.read.instant("as-of")
    }
}

/// `receipt-recon simulator seed`: write a drifted app database and the expected corrections.
struct SimulatorSeedCommand: Command {
    static let spec = CommandSpec(
        name: "simulator seed",
        usage: "simulator seed --database-url URL --users N --seed S --as-of T --expected FILE",
        summary: "Seed products, receipts and entitlements that drifted from the simulated App Store in known ways.",
        discussion: "Writes FILE with the corrections and flags a correct 'run --older-than 0 --as-of T' must produce.",
        options: worldOptions + [
            OptionSpec("expected", .value(placeholder: "FILE"), "where to write the expected corrections and flags (JSON)"),
        ] + Configuration.databaseOptions,
        environment: ["DATABASE_URL"],
        exitCodes: [.success, .usage, .unavailable, .internalError]
    )

    let world: WorldParameters
    let expectedFile: String?
    let configuration: Configuration

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        guard arguments.positionals.isEmpty else {
            throw .usage("unexpected argument '\(arguments.positionals[0])'", command: "simulator seed")
        }
        world = try WorldParameters(arguments)
        expectedFile = arguments.value("expected")
        configuration = try Configuration.load(arguments, environment: environment, needsApple: false)
    }

    func run(_ console: Console) throws -> ExitCode {
        notImplemented(console)
    }
}

/// `receipt-recon simulator serve`: a local verifyReceipt over the same world.
struct SimulatorServeCommand: Command {
    static let spec = CommandSpec(
        name: "simulator serve",
        usage: "simulator serve --port P --users N --seed S --as-of T [--latency-ms L] [--jitter-ms J] [--rate-limit R] [--fault-rate F]",
        summary: "Serve POST /production/verifyReceipt, POST /sandbox/verifyReceipt and GET /stats on loopback.",
        discussion: "Answers as Apple would for the world of the same --users, --seed and --as-of. Stops on SIGINT/SIGTERM.",
        options: worldOptions + [
            OptionSpec("port", .value(placeholder: "P"), "TCP port on 127.0.0.1 (0 picks a free one)", default: "0"),
            OptionSpec("latency-ms", .value(placeholder: "L"), "fixed latency added to every answer", default: "0"),
            OptionSpec("jitter-ms", .value(placeholder: "J"), "random extra latency, uniform in [0, J]", default: "0"),
            OptionSpec("rate-limit", .value(placeholder: "R"), "answer 429 with Retry-After above R requests/s", default: "none"),
            OptionSpec("fault-rate", .value(placeholder: "F"), "probability of an injected fault per request", default: "0"),
        ],
        environment: [],
        exitCodes: [.success, .usage, .internalError]
    )

    let world: WorldParameters
    let port: Int
    let latencyMilliseconds: Int
    let jitterMilliseconds: Int
    let rateLimit: Double?
    let faultRate: Double

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandError) {
        guard arguments.positionals.isEmpty else {
            throw .usage("unexpected argument '\(arguments.positionals[0])'", command: "simulator serve")
        }
        world = try WorldParameters(arguments)
        port = try arguments.read.integer("port", in: 0...65535) ?? 0
        latencyMilliseconds = try arguments.read.integer("latency-ms", in: 0...600_000) ?? 0
        jitterMilliseconds = try arguments.read.integer("jitter-ms", in: 0...600_000) ?? 0
        rateLimit = try arguments.read.positiveNumber("rate-limit")
        faultRate = try arguments.read.ratio("fault-rate") ?? 0
    }

    func run(_ console: Console) throws -> ExitCode {
        notImplemented(console)
    }
}
