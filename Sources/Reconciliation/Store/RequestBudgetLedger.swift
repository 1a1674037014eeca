import AppStoreReceipts
import Foundation
import Postgres
import Synchronization

/// `--max-requests-per-hour` (and the sandbox's `--sandbox-max-requests-per-hour`) for the whole shard
/// set, counted in PostgreSQL (`recon_request_budget`): one row per endpoint and environment per clock
/// hour of PostgreSQL's clock, whose sum every shard's ledger leases
/// from a few tokens at a time under the row's lock, so the sum over all shards never passes the
/// limit. Tokens are handed out locally until the lease runs low; a lease left unused when its hour
/// ends is lost, not returned (at most about 1.5 leases per shard and endpoint an hour).
///
/// Environments: Apple limits the sandbox apart from production, at a tenth of its figures, so a
/// sandbox request (a sandbox database's, or a hop from production) draws on the sandbox's own rows
/// and ceiling, never on production's, and the other way round.
///
/// Reserve: new questions (`.ask`) lease against `limit − reserve` and everything else (continuations,
/// hops, retries) against `limit`, so the users in flight when asking stops can still be finished.
/// A window spent for a purpose: `.wait` until the next hour while that hour opens before `waitsUntil`
/// (the run's `--budget-hours`), else `.spent`.
///
/// Database failures: a dropped connection is replaced through `reconnect(with:)` (the run's
/// reconnector, which waits out a restart for `--db-reconnect-window`); a failure it cannot mend is
/// kept in `lastError` and every later request is answered `.spent`: the ledger never grants what it
/// could not count. The run reads `lastError` when told the budget is spent.
///
/// Threading: `take` from any thread; the driver calls it on the run's worker threads. It blocks its
/// caller for a round trip only when a lease is needed: the caller that takes a lease below half its
/// size refills it at once, so the others rarely find it empty. Never call it on a thread of
/// `DispatchQueue.global()` (DESIGN, "Concurrency on Linux"). Counts live under a `Mutex`, never held
/// during I/O; the connection under its own lock.
public final class RequestBudgetLedger: RequestBudget {
    /// The shard set's requests per production endpoint per clock hour (`--max-requests-per-hour`).
    public let limit: Int
    /// Requests of each hour kept for work already asked (continuations, hops, retries).
    public let reserve: Int
    /// The same two for each sandbox endpoint (`--sandbox-max-requests-per-hour`).
    public let sandboxLimit: Int
    public let sandboxReserve: Int
    /// Tokens leased per round trip.
    public let leaseSize: Int
    /// The last instant a new window may open and still be waited for; nil never waits.
    public let waitsUntil: Date?
    private let database: BudgetConnection
    private let pools = Mutex<[AppleLimitKey: EndpointPool]>([:])
    private let failure = Mutex<PostgresError?>(nil)
    private let waitNotice = Mutex<(@Sendable (AppleLimitKey, Int, Date) -> Void)?>(nil)

    /// - Parameters:
    ///   - limit: `--max-requests-per-hour`, ≥ 1.
    ///   - reserve: kept for work already asked; new questions stop at `limit − reserve`
    ///     (`reserve(limit:concurrency:shardCount:)`).
    ///   - sandboxLimit: `--sandbox-max-requests-per-hour`, ≥ 1; nil for a tenth of `limit`, as Apple's.
    ///   - sandboxReserve: the sandbox's reserve; nil for `reserve`, at most a fifth of `sandboxLimit`.
    ///   - leaseSize: tokens per round trip (`leaseSize(rate:)`).
    ///   - waitsUntil: the run's start plus `--budget-hours`; nil (0 hours) never waits for a window.
    ///   - connect: opens the ledger's own connection, when first needed.
    public init(
        limit: Int, reserve: Int, sandboxLimit: Int? = nil, sandboxReserve: Int? = nil, leaseSize: Int,
        waitsUntil: Date?, connect: @escaping @Sendable () throws -> PostgresConnection
    ) {
        let sandboxLimit = sandboxLimit ?? SandboxLimits.requestsPerHour(production: limit)
        precondition(limit >= 1 && sandboxLimit >= 1 && leaseSize >= 1, "limits and leaseSize must be at least 1")
        self.limit = limit
        self.reserve = min(max(0, reserve), limit - 1)
        self.sandboxLimit = sandboxLimit
        self.sandboxReserve = min(max(0, sandboxReserve ?? min(reserve, sandboxLimit / 5)), sandboxLimit - 1)
        self.leaseSize = leaseSize
        self.waitsUntil = waitsUntil
        database = BudgetConnection(connect: connect)
    }

    /// Replaces a dropped connection with `reconnect(error)` from now on (the engine passes its run's
    /// reconnector); until then a drop stops the ledger granting.
    func reconnect(with reconnect: @escaping @Sendable (PostgresError) throws -> PostgresConnection) {
        database.reconnect(with: reconnect)
    }

    /// Tells `notice` once per endpoint and spent hour that requests now wait for the next hour, the
    /// hour's limit and until when: a run waiting up to an hour must say why in its log rather than look
    /// stuck.
    func onWait(_ notice: @escaping @Sendable (_ key: AppleLimitKey, _ limit: Int, _ resumesAt: Date) -> Void) {
        waitNotice.withLock { $0 = notice }
    }

    /// The lease for `--rate R`: about two seconds of requests, 10 to 200.
    public static func leaseSize(rate: Double) -> Int {
        Int(min(200, max(10, (rate * 2).rounded(.up))))
    }

    /// The reserve for the in-flight work of every shard: each may be finishing up to three requests
    /// per slot of `--concurrency`; at least 2 % of the limit, and at most a fifth of it, so that even a
    /// small budget lets new users be asked.
    public static func reserve(limit: Int, concurrency: Int, shardCount: Int) -> Int {
        min(max(limit / 50, 3 * concurrency * shardCount), limit / 5)
    }

    /// The ceiling of `environment`'s endpoints: `limit` or `sandboxLimit`.
    public func limit(for environment: AppStoreEnvironment) -> Int {
        environment == .sandbox ? sandboxLimit : limit
    }

    /// Where new questions to `environment` stop.
    func askLimit(for environment: AppStoreEnvironment) -> Int {
        environment == .sandbox ? sandboxLimit - sandboxReserve : limit - reserve
    }

    public func take(_ key: AppleLimitKey, purpose: RequestPurpose) -> BudgetAnswer {
        let asks = purpose == .ask
        // A pass answers, or finds no token on hand and leases; the caller that leases takes its own
        // token from its lease, so only a pool another thread refilled meanwhile sends it round again.
        for _ in 0..<32 {
            if lastError != nil { return spent(key) }
            let now = Date()
            var step = pools.withLock { $0[key, default: EndpointPool()].take(asks: asks, now: now, lease: leaseSize) }
            if step == .lease {
                guard let leased = leaseAndTake(key, asks: asks) else { continue }
                step = leased
            }
            switch step {
            case .granted(let refill):
                if refill { prefetch(key, asks: asks) }
                return .granted
            case .windowSpent(let endsAt):
                return windowSpent(key, endsAt: endsAt, now: now)
            case .lease:
                continue
            }
        }
        return lastError == nil ? .wait(seconds: 0.1) : spent(key)
    }

    /// The database failure that stopped the ledger granting anything, once there was one.
    public var lastError: PostgresError? { failure.withLock { $0 } }

    /// What the ledger counted this run, for the run's summary.
    public var figures: RequestBudgetFigures {
        let endpoints = pools.withLock { pools in
            Dictionary(
                uniqueKeysWithValues: pools.map { key, pool in
                    (
                        key.description,
                        RequestBudgetFigures.Endpoint(
                            granted: pool.granted, leased: pool.leased, windows: pool.windows.count,
                            spentAt: pool.spentAt)
                    )
                })
        }
        var figures = RequestBudgetFigures(limit: limit, reserve: reserve, endpoints: endpoints)
        figures.sandboxLimit = sandboxLimit
        figures.sandboxReserve = sandboxReserve
        return figures
    }

    private func windowSpent(_ key: AppleLimitKey, endsAt: Date, now: Date) -> BudgetAnswer {
        guard let waitsUntil, endsAt <= waitsUntil else { return spent(key) }
        // A little past the hour by our estimate of PostgreSQL's clock, so the next lease is in it.
        let seconds = max(0, endsAt.timeIntervalSince(now)) + Self.pastTheHour
        let news = pools.withLock { pools -> Bool in
            guard pools[key, default: EndpointPool()].waitToldUntil != endsAt else { return false }
            pools[key, default: EndpointPool()].waitToldUntil = endsAt
            return true
        }
        if news, let notice = waitNotice.withLock({ $0 }) {
            notice(key, limit(for: key.environment), now.addingTimeInterval(seconds))
        }
        return .wait(seconds: seconds)
    }

    private func spent(_ key: AppleLimitKey) -> BudgetAnswer {
        let now = Date()
        pools.withLock { pools in
            if pools[key, default: EndpointPool()].spentAt == nil { pools[key]?.spentAt = now }
        }
        return .spent
    }

    static let pastTheHour = 0.25

    /// With no token on hand: leases, and takes the caller's token from the lease. Nil when another
    /// thread refilled the pool while this one waited for the connection, or the lease failed.
    private func leaseAndTake(_ key: AppleLimitKey, asks: Bool) -> EndpointPool.Step? {
        database.serially {
            guard pools.withLock({ $0[key, default: EndpointPool()].needsLease(asks: asks, now: Date()) }),
                let (lease, endsAt) = leaseFromTable(key, asks: asks)
            else { return nil }
            return pools.withLock { pools in
                pools[key, default: EndpointPool()].add(
                    lease, endsAt: endsAt, askLimit: askLimit(for: key.environment),
                    limit: limit(for: key.environment))
                return pools[key]!.take(asks: asks, now: Date(), lease: leaseSize, refills: false)
            }
        }
    }

    /// Refills a pool running low, for the caller that noticed (it holds its token already).
    private func prefetch(_ key: AppleLimitKey, asks: Bool) {
        database.serially {
            if let (lease, endsAt) = leaseFromTable(key, asks: asks) {
                pools.withLock {
                    $0[key, default: EndpointPool()].add(
                        lease, endsAt: endsAt, askLimit: askLimit(for: key.environment),
                        limit: limit(for: key.environment))
                }
            }
            pools.withLock { $0[key]?.refilling = false }
        }
    }

    /// One lease from the table, inside `database.serially`, with when its window ends by this
    /// process's clock; nil after a failure, which is kept in `lastError`.
    private func leaseFromTable(_ key: AppleLimitKey, asks: Bool) -> (BudgetLease, endsAt: Date)? {
        do {
            let sent = Date()
            let lease = try database.use {
                try BudgetLease.lease(
                    leaseSize, of: key.endpoint.description, in: key.environment.rawValue,
                    cap: asks ? askLimit(for: key.environment) : limit(for: key.environment), on: $0)
            }
            let received = Date()
            // PostgreSQL's clock was read about mid-round-trip: the window ends that far from there here.
            let midway = sent.addingTimeInterval(received.timeIntervalSince(sent) / 2)
            return (lease, midway.addingTimeInterval(lease.window.timeIntervalSince(lease.databaseNow) + 3600))
        } catch {
            let failed = error as? PostgresError ?? PostgresError(kind: .client, message: String(describing: error))
            failure.withLock { $0 = $0 ?? failed }
            return nil
        }
    }
}

/// What a ledger counted in one run.
public struct RequestBudgetFigures: Sendable, Equatable {
    public var limit: Int
    public var reserve: Int
    /// The sandbox's ceiling and reserve (`--sandbox-max-requests-per-hour`).
    public var sandboxLimit: Int?
    public var sandboxReserve: Int?
    /// By `AppleLimitKey` name: production's by endpoint (`AppleTraffic.requestsByEndpoint`'s names),
    /// the sandbox's as `sandbox/` and the endpoint.
    public var endpoints: [String: Endpoint]

    public struct Endpoint: Sendable, Equatable {
        /// Requests this run was granted (one per request sent).
        public var granted: Int
        /// Tokens this run took from the shard set's windows; what it did not use is lost.
        public var leased: Int
        /// Clock hours it took tokens in.
        public var windows: Int
        /// When the ledger first answered `.spent`; nil while it never did.
        public var spentAt: Date?
    }
}
