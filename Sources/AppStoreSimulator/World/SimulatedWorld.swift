import AppStoreReceipts
import Foundation

/// The simulated App Store and the app's database around it, generated from `(users, seed, asOf,
/// environment, StoreKit 2 users or not)` alone: the same parameters give the same world, byte for byte,
/// in `simulator seed` and `simulator serve`, on any machine (a StoreKit 2 row's signature aside: it is
/// made with the chain of the seeding, and ECDSA signatures are randomized).
///
/// The world is never held whole. It is a sequence of `WorldUnit`s (one or two users each), each a pure
/// function of the parameters and its index, rebuilt on demand: seeding streams them, and the server
/// rebuilds the unit a receipt names (`WorldReceiptLocator`). A value type; `Sendable`, free to share.
///
/// Every scenario appears once at evenly spaced positions (so any world of at least ~120 users covers
/// every case, whatever the seed); the other users draw their scenario by `WorldScenario.weight`.
public struct SimulatedWorld: Sendable, Hashable {
    public struct Parameters: Sendable, Hashable {
        public var users: Int
        public var seed: UInt64
        /// The instant the world is seen at, in milliseconds since 1970.
        public var asOfMs: Int64
        /// The environment the app's database serves: `production` for a live app, `sandbox` for a
        /// staging backend whose users buy with sandbox accounts.
        public var environment: AppStoreEnvironment
        /// Whether the world includes StoreKit 2 users (rows holding signed transactions). Their rows
        /// can only be written with a signing chain, so only `simulator seed --pki-dir` sets it; the
        /// other users' scenarios and positions change with it, so `serve` must be given it too.
        public var includesStoreKit2Users: Bool
        /// An incremental world (`--changed-fraction`): StoreKit 2 users the job verified at `since`, some
        /// changed since; replaces the scenarios. `serve` must be given it too.
        public var incremental: IncrementalWorld?

        public init(
            users: Int, seed: UInt64, asOfMs: Int64, environment: AppStoreEnvironment = .production,
            includesStoreKit2Users: Bool = false, incremental: IncrementalWorld? = nil
        ) {
            precondition(users >= 1, "a world needs at least one user")
            self.users = users
            self.seed = seed
            self.asOfMs = asOfMs
            self.environment = environment
            self.includesStoreKit2Users = includesStoreKit2Users
            self.incremental = incremental
        }
    }

    public let parameters: Parameters
    /// Forced scenario positions are `k * spacing`.
    let spacing: Int
    /// The scenarios single users are drawn from, and their weights.
    let scenarios: [WorldScenario]
    private let weights: [Double]

    public init(_ parameters: Parameters) {
        self.parameters = parameters
        scenarios = WorldScenario.singleUserScenarios(storeKit2: parameters.includesStoreKit2Users)
        weights = scenarios.map(\.weight)
        let forced = scenarios.count + 1  // + the shared pair
        spacing = max(1, parameters.users / forced)
    }

    /// A world of `users` users seen at `asOf` (rounded to the millisecond).
    public init(
        users: Int, seed: UInt64, asOf: Date, environment: AppStoreEnvironment = .production,
        includesStoreKit2Users: Bool = false
    ) {
        self.init(
            Parameters(
                users: users, seed: seed, asOfMs: Self.milliseconds(asOf), environment: environment,
                includesStoreKit2Users: includesStoreKit2Users))
    }

    /// A world of about `receipts` receipt rows (for benchmarks): the user count that gives that many on average.
    public init(
        receipts: Int, seed: UInt64, asOf: Date, environment: AppStoreEnvironment = .production,
        includesStoreKit2Users: Bool = false
    ) {
        let users = max(1, Int((Double(receipts) / Self.averageReceiptsPerUser).rounded()))
        self.init(
            users: users, seed: seed, asOf: asOf, environment: environment,
            includesStoreKit2Users: includesStoreKit2Users)
    }

    /// Expected receipt rows per randomly drawn user.
    public static let averageReceiptsPerUser: Double = {
        let singles = WorldScenario.singleUserScenarios
        let total = singles.reduce(0) { $0 + $1.weight }
        let single = singles.reduce(0) { $0 + $1.weight * Double($1.receiptCount) } / total
        let shared = WorldScenario.sharedPairProbability
        return shared * 1 + (1 - shared) * single
    }()

    public var userCount: Int { parameters.users }
    public var unitCount: Int { (parameters.users + 1) / 2 }
    public var asOfMs: Int64 { parameters.asOfMs }
    public var asOf: Date { Date(timeIntervalSince1970: Double(parameters.asOfMs) / 1000) }
    public var environment: AppStoreEnvironment { parameters.environment }
    public var includesStoreKit2Users: Bool { parameters.includesStoreKit2Users }

    /// Unit `index` (users `2*index` and `2*index+1`), rebuilt from the parameters.
    public func unit(_ index: Int) -> WorldUnit {
        precondition(index >= 0 && index < unitCount, "no unit \(index) in a world of \(unitCount)")
        var builder = WorldUnitBuilder(
            seed: parameters.seed, asOf: parameters.asOfMs, home: parameters.environment,
            unitIndex: index)
        let first = index * 2
        let hasSecond = first + 1 < parameters.users
        if let incremental = parameters.incremental {
            for (slot, userIndex) in [first, first + 1].enumerated() where slot == 0 || hasSecond {
                var rng = SplitMix64.derive(parameters.seed, UInt64(index), UInt64(slot) + 1)
                builder.addIncrementalUser(
                    index: userIndex, plan: incremental.plan(seed: parameters.seed, userIndex: userIndex),
                    since: incremental.sinceMs, rng: &rng)
            }
        } else if isSharedUnit(index) {
            var rng = SplitMix64.derive(parameters.seed, UInt64(index), 3)
            builder.addSharedPair(firstIndex: first, rng: &rng)
        } else {
            for (slot, userIndex) in [first, first + 1].enumerated() where slot == 0 || hasSecond {
                var rng = SplitMix64.derive(parameters.seed, UInt64(index), UInt64(slot) + 1)
                let scenario = forcedScenario(userIndex) ?? drawScenario(&rng)
                builder.addUser(index: userIndex, scenario: scenario, rng: &rng)
            }
        }
        return builder.build()
    }

    /// Calls `body` with every unit in order; memory stays at one unit.
    public func forEachUnit(in range: Range<Int>? = nil, _ body: (WorldUnit) throws -> Void) rethrows {
        for index in range ?? 0..<unitCount {
            try body(unit(index))
        }
    }

    // MARK: Layout

    /// The scenario placed at `userIndex` so that every scenario occurs, or nil for a random draw.
    func forcedScenario(_ userIndex: Int) -> WorldScenario? {
        guard userIndex % spacing == 0 else { return nil }
        let position = userIndex / spacing
        return position < scenarios.count ? scenarios[position] : nil
    }

    /// Whether unit `index` is a shared pair: forced once, after the single scenarios, then by chance in
    /// units without a forced user.
    func isSharedUnit(_ index: Int) -> Bool {
        let first = index * 2
        guard first + 1 < parameters.users else { return false }
        let sharedPosition = scenarios.count * spacing
        if sharedPosition / 2 == index { return true }
        if forcedScenario(first) != nil || forcedScenario(first + 1) != nil { return false }
        var rng = SplitMix64.derive(parameters.seed, UInt64(index), 0)
        return rng.chance(WorldScenario.sharedPairProbability)
    }

    private func drawScenario(_ rng: inout SplitMix64) -> WorldScenario {
        scenarios[rng.weightedIndex(weights)]
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
