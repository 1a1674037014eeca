import AppStoreReceipts
import CivilTime
import Foundation
import Postgres
import Synchronization

/// Writes the app's side of a world into PostgreSQL: `products`, `receipts`, `entitlements` and
/// `sandbox_testers`, drifted from the App Store exactly as the world says; and derives, unit by unit,
/// the expectation of a correct run (`ExpectationDeriver`).
///
/// Streams: units are generated and written in batches with `COPY`, so memory stays at a few batches
/// of rows (plus the expectation's corrections and flags, a fraction of the users) whatever the world's
/// size. Everything happens in one transaction: a failed seed leaves nothing behind.
///
/// Threading: uses `connection` on the calling thread only; batches are generated on a thread of the
/// seeder's own (never Dispatch's global pool), at most two ahead of the COPYs.
public enum WorldSeeder {
    public struct Summary: Sendable {
        public var products = 0
        public var users = 0
        public var receipts = 0
        public var entitlements = 0
        public var sandboxTesters = 0
        public var expected: ExpectedOutcome
    }

    public enum SeedError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The app's tables already hold rows: the expectation assumes a database with this world only.
        case tableNotEmpty(String)
        /// The world has StoreKit 2 users, whose rows can only be written signed.
        case signingChainRequired

        public var description: String {
            switch self {
            case .tableNotEmpty(let table):
                "table \(table) is not empty: seed a fresh database (run 'receipt-recon migrate' on an empty one)"
            case .signingChainRequired:
                "a world with StoreKit 2 users is seeded with a signing chain (--pki-dir)"
            }
        }
    }

    /// Seeds `world` into the database of `connection` (already migrated, app tables empty).
    ///
    /// - Parameters:
    ///   - assumptions: the run the returned expectation is for.
    ///   - signingChain: signs the StoreKit 2 rows; required when the world includes StoreKit 2 users.
    ///   - batchUnits: units generated and copied per batch.
    ///   - progress: called after each batch with the users written so far.
    package static func seed(
        _ world: SimulatedWorld,
        into connection: PostgresConnection,
        assumptions: RunAssumptions = RunAssumptions(),
        signingChain: SigningChain? = nil,
        batchUnits: Int = 2_000,
        progress: ((Int) -> Void)? = nil
    ) throws -> Summary {
        if world.includesStoreKit2Users, signingChain == nil { throw SeedError.signingChainRequired }
        return try connection.transaction {
            if let table = try firstFilledTable(on: connection) { throw SeedError.tableNotEmpty(table) }

            var summary = Summary(
                expected: ExpectedOutcome(
                    asOfMs: world.asOfMs, world: world.parameters,
                    assumptions: assumptions, corrections: [], flags: [],
                    counts: ExpectedOutcome.Counts()))
            // An incremental world: the job's state after a correct run at `since` (`IncrementalJobState`).
            let runID = try world.parameters.incremental.map {
                try insertPreviousRun(asOf: date($0.sinceMs), on: connection)
            }
            summary.products = try connection.copy(
                into: "products", columns: ["product_id", "kind", "entitlement", "duration"],
                rows: WorldCatalog.productsTable.map(productRow))

            // Generation runs on a thread of its own, one or two batches ahead of the COPYs below.
            let pipeline = SeedPipeline<Batch>(capacity: 2)
            let outcome = Mutex<(expected: ExpectedOutcome?, nextReceiptID: Int64)>((nil, 1))
            let jobCounts = Mutex(IncrementalJobState())
            let producer = Thread {
                var accumulator = ExpectationDeriver.Accumulator(world: world, assumptions: assumptions)
                let answerer = AppleAnswerer(world: world)
                var nextReceiptID: Int64 = 1
                var start = 0
                while start < world.unitCount {
                    let range = start..<min(world.unitCount, start + batchUnits)
                    let batch = makeBatch(
                        world, range, &nextReceiptID, &accumulator, answerer, assumptions, signingChain,
                        previousRun: runID)
                    if let state = batch.jobState {
                        jobCounts.withLock { counts in
                            counts.changedUsers += state.changedUsers
                            counts.missedChanges += state.missedChanges
                            counts.notifiedUsers += state.notifiedUsers
                            counts.unmatchedNotifications += state.unmatchedNotifications
                        }
                    }
                    guard pipeline.put(batch) else { return }
                    start = range.upperBound
                }
                let expected = accumulator.outcome()
                outcome.withLock { $0 = (expected, nextReceiptID) }
                pipeline.finish()
            }
            producer.stackSize = 1 << 22
            producer.start()
            defer { pipeline.cancel() }

            while let batch = pipeline.take() {
                summary.users += batch.users
                summary.receipts += try connection.copy(
                    into: "receipts", columns: ["id", "user_id", "receipt_data", "created_at"], rows: batch.receipts)
                summary.entitlements += try connection.copy(
                    into: "entitlements",
                    columns: [
                        "user_id", "entitlement", "active", "expires_at", "product_id", "original_transaction_id",
                        "source", "updated_at",
                    ],
                    rows: batch.entitlements)
                summary.sandboxTesters += try connection.copy(
                    into: "sandbox_testers", columns: ["user_id", "note"], rows: batch.testers)
                if let state = batch.jobState {
                    try copyJobState(state, on: connection)
                }
                progress?(summary.users)
            }
            let (expected, nextReceiptID) = outcome.withLock { $0 }
            // Explicit ids were written: move the sequence past them, so the app's next receipt gets a new id.
            try moveReceiptSequence(toFollow: nextReceiptID, on: connection)
            summary.expected = expected!
            if let incremental = world.parameters.incremental, let runID {
                try insertCursor(
                    environment: world.environment, readThrough: date(incremental.sinceMs),
                    runID: runID, on: connection)
                let counts = jobCounts.withLock { $0 }
                summary.expected.incremental = ExpectedOutcome.Incremental(
                    changedUsers: counts.changedUsers, missedChanges: counts.missedChanges,
                    notifiedUsers: counts.notifiedUsers, unmatchedNotifications: counts.unmatchedNotifications)
            }
            return summary
        }
    }

    /// The rows of a range of units.
    struct Batch: Sendable {
        var receipts: [[any PostgresEncodable]] = []
        var entitlements: [[any PostgresEncodable]] = []
        var testers: [[any PostgresEncodable]] = []
        var users = 0
        /// An incremental world's job rows for the batch.
        var jobState: IncrementalJobState?
    }

    /// Generates the units of `range`, their rows, and their part of the expectation; in an incremental
    /// world, also the job's rows as the previous run (`previousRun`, its `recon_runs` id) left them.
    private static func makeBatch(
        _ world: SimulatedWorld,
        _ range: Range<Int>,
        _ nextReceiptID: inout Int64,
        _ accumulator: inout ExpectationDeriver.Accumulator,
        _ answerer: AppleAnswerer,
        _ assumptions: RunAssumptions,
        _ signingChain: SigningChain?,
        previousRun: Int64?
    ) -> Batch {
        var batch = Batch()
        let incremental = world.parameters.incremental
        if incremental != nil, previousRun != nil { batch.jobState = IncrementalJobState() }
        world.forEachUnit(in: range) { unit in
            let ids = ExpectationDeriver.receiptIDs(for: unit, startingAt: &nextReceiptID)
            accumulator.add(
                ExpectationDeriver.derive(unit: unit, receiptIDs: ids, answerer: answerer, assumptions: assumptions))
            if let incremental, let previousRun {
                batch.jobState?.add(unit, receiptIDs: ids, world: world, incremental: incremental, runID: previousRun)
            }
            var data: [Int: String] = [:]  // a receipt stored twice is encoded once
            for (position, user) in unit.users.enumerated() {
                for (row, receipt) in user.receipts.enumerated() {
                    let text = data[receipt.slot] ?? unit.receiptData(receipt.slot, signingChain: signingChain)
                    data[receipt.slot] = text
                    batch.receipts.append([ids[position][row], user.id, text, date(receipt.createdMs)])
                }
                for entitlement in user.entitlements {
                    batch.entitlements.append([
                        user.id, entitlement.entitlement, entitlement.active,
                        entitlement.expiresMs.map(date), entitlement.productID,
                        entitlement.originalTransactionID, entitlement.source,
                        date(entitlement.updatedMs),
                    ])
                }
                if user.isSandboxTester {
                    batch.testers.append([user.id, "TestFlight tester (\(user.scenario.rawValue))"])
                }
            }
            batch.users += unit.users.count
        }
        return batch
    }

    /// A `products` row. Durations are written in hours, not days: `interval '90 days'` added to a
    /// timestamptz moves by 89 days 23 hours across a DST change in a session time zone with one, and an
    /// absolute length leaves no such room for the job and this file to disagree.
    static func productRow(_ product: WorldProduct) -> [any PostgresEncodable] {
        let duration = product.durationDays.map { CalendarDuration.seconds(Int64($0) * 86_400) }
        return [product.id, product.kind.rawValue, product.entitlement, duration]
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
