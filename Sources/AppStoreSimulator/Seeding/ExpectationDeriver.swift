import AppStoreReceipts

/// Derives what a correct run must do from Apple's answers and the rules alone: CONTRACT §5 as read by
/// docs/reconciliation-rules.md, written here a second time, independently of the job's code (the job
/// is built by someone else from the same rules; this is the cross-check).
///
/// For each receipt row it plays the client's part (local checks, the endpoint of the database's
/// environment first, one hop on 21007/21008, statuses to outcomes) against `AppleAnswerer`, the same
/// answers the simulator serves; then it computes each user's truth and compares it with the user's
/// `app_store` rows. The world is deterministic, so retried statuses give the same answer again: a
/// 21002 persists, a 21199 marked not retryable ends `unverified` at once. StoreKit 2 rows (a JWS) are
/// never sent to verifyReceipt: their outcome comes from what the world knows of them
/// (`ExpectationDeriver+SignedRows`), which under `--backend server-api` is Apple's state at `asOf`.
/// Receipt rows are derived the same way under both backends: CONTRACT §9 makes their expectations
/// identical, and the simulator's Server API answers each receipt scenario so that they are
/// (docs/simulator.md).
///
/// Pure and per unit (accounts never span units, so `shared_transaction` is decided inside one).
public enum ExpectationDeriver {
    /// One receipt row's fate in the run.
    public enum Outcome: Sendable, Hashable {
        case valid(AppleAnswer)
        case misrouted(AppleAnswer)
        /// A StoreKit 2 row whose signature verifies, signed in the database's environment: its
        /// transaction as it was at the row's `signedDate`.
        case validSigned(WorldTransaction.View)
        /// The same, signed in the other environment.
        case misroutedSigned(WorldTransaction.View)
        /// With the flag kind: `invalid_receipt` or `bundle_mismatch`.
        case invalid(flag: String)
        case unverified
    }

    /// What a unit contributes to the expectation.
    public struct UnitResult: Sendable {
        public var corrections: [ExpectedOutcome.Correction] = []
        public var flags: [ExpectedOutcome.Flag] = []
        /// Per user, in user order: receipts, unverified receipts, whether any revoke.
        public var users: [(receipts: Int, unverified: Int, revoked: Bool)] = []
    }

    /// The expectation for a whole world (streams units; for worlds that fit a test, and for the CLI).
    public static func derive(world: SimulatedWorld, assumptions: RunAssumptions = RunAssumptions()) -> ExpectedOutcome
    {
        var accumulator = Accumulator(world: world, assumptions: assumptions)
        var nextReceiptID: Int64 = 1
        let answerer = AppleAnswerer(world: world)
        world.forEachUnit { unit in
            let ids = receiptIDs(for: unit, startingAt: &nextReceiptID)
            accumulator.add(derive(unit: unit, receiptIDs: ids, answerer: answerer, assumptions: assumptions))
        }
        return accumulator.outcome()
    }

    /// `receipts.id` of every receipt row of `unit`, per user, numbered on from `next` (the seeder
    /// numbers rows the same way: units in order, users in order, rows in order).
    public static func receiptIDs(for unit: WorldUnit, startingAt next: inout Int64) -> [[Int64]] {
        unit.users.map { user in
            user.receipts.map { _ in
                defer { next += 1 }
                return next
            }
        }
    }

    /// The expectation for one unit.
    public static func derive(
        unit: WorldUnit,
        receiptIDs: [[Int64]],
        answerer: AppleAnswerer,
        assumptions: RunAssumptions
    ) -> UnitResult {
        let asOf = unit.asOfMs
        // Outcomes per user per row.
        let outcomes = unit.users.map { user in
            user.receipts.map { outcome(of: $0.slot, in: unit, answerer: answerer, assumptions: assumptions) }
        }
        // Original transaction ids on each user's answered receipts, for shared_transaction.
        let originalIDs: [Set<String>] = outcomes.map { rows in
            var ids = Set<String>()
            for outcome in rows {
                ids.formUnion(transactions(of: outcome)?.map(\.transaction.originalTransactionID) ?? [])
            }
            return ids
        }

        var result = UnitResult()
        for (position, user) in unit.users.enumerated() {
            let rows = outcomes[position]
            var unverified = 0

            // Flags, one per receipt row.
            for (row, outcome) in rows.enumerated() {
                let receiptID = receiptIDs[position][row]
                func flag(_ kind: String) {
                    result.flags.append(ExpectedOutcome.Flag(userID: user.id, kind: kind, receiptID: receiptID))
                }
                switch outcome {
                case .invalid(let kind):
                    flag(kind)
                case .unverified:
                    unverified += 1
                    flag("unverified")
                case .valid, .misrouted, .validSigned, .misroutedSigned:
                    if outcome.isMisrouted {
                        flag(assumptions.environment == .production ? "sandbox_in_production" : "production_in_sandbox")
                    }
                    let transactions = transactions(of: outcome) ?? []
                    if transactions.contains(where: { $0.cancellationMs != nil && !$0.isUpgraded }) { flag("refunded") }
                    if transactions.contains(where: { WorldCatalog.tableProduct($0.transaction.productID) == nil }) {
                        flag("unknown_product")
                    }
                    let mine = Set(transactions.map(\.transaction.originalTransactionID))
                    let others = originalIDs.enumerated().filter { $0.offset != position }
                    if others.contains(where: { !$0.element.isDisjoint(with: mine) }) { flag("shared_transaction") }
                }
            }

            // Guard 2: no receipts at all, no correction; an active app_store row is flagged.
            let storeRows = user.entitlements.filter { $0.source == "app_store" }
            guard !user.receipts.isEmpty else {
                if storeRows.contains(where: \.active) {
                    result.flags.append(
                        ExpectedOutcome.Flag(userID: user.id, kind: "entitlement_without_receipt", receiptID: nil))
                }
                result.users.append((0, 0, false))
                continue
            }

            // Which receipts and signed rows count.
            var counting: [AppleAnswer] = []
            var signed: [WorldTransaction.View] = []
            let misroutedCount = assumptions.sandboxPolicy == .flag || user.isSandboxTester
            for outcome in rows {
                switch outcome {
                case .valid(let answer): counting.append(answer)
                case .misrouted(let answer) where misroutedCount: counting.append(answer)
                case .validSigned(let view): signed.append(view)
                case .misroutedSigned(let view) where misroutedCount: signed.append(view)
                default: break
                }
            }
            let truth = self.truth(counting, signed: signed, asOf: asOf)
            // A signed row is evidence as of its signedDate: what it carries is never revoked or shortened
            // (a renewal since may exist), unless it proves a refund itself.
            let held = heldBySignedRows(signed)

            // Corrections against app_store rows.
            var revoked = false
            let entitlements = Set(truth.keys).union(storeRows.map(\.entitlement)).sorted()
            for entitlement in entitlements {
                let apple = truth[entitlement]
                let row = storeRows.first { $0.entitlement == entitlement }
                var action: String?
                if apple != nil, row?.active != true {
                    action = "grant"
                } else if let row, row.active, apple == nil {
                    action = unverified > 0 || held.contains(entitlement) ? nil : "revoke"
                } else if let apple, let row, row.active {
                    switch compare(apple.expiresMs, row.expiresMs) {
                    case .later: action = "extend"
                    case .earlier: action = unverified > 0 || held.contains(entitlement) ? nil : "shorten"
                    case .same: action = nil
                    }
                }
                if let action {
                    if action == "revoke" { revoked = true }
                    result.corrections.append(
                        ExpectedOutcome.Correction(userID: user.id, entitlement: entitlement, action: action))
                }
            }
            result.users.append((user.receipts.count, unverified, revoked))
        }
        return result
    }

    // MARK: The client's part

    /// The outcome of one receipt row (docs/reconciliation-rules.md, "Receipt outcomes").
    public static func outcome(
        of slot: Int,
        in unit: WorldUnit,
        answerer: AppleAnswerer,
        assumptions: RunAssumptions
    ) -> Outcome {
        // Decided locally, never sent: data that is provably not a receipt, and Xcode receipts.
        let receipt = unit.receipts[slot]
        if case .signedTransaction(let account, let id, let signedMs, let tampered) = receipt {
            if assumptions.backend == .serverAPI {
                return serverAPISignedOutcome(
                    unit: unit, account: account, tampered: tampered, answerer: answerer, assumptions: assumptions)
            }
            return signedOutcome(
                unit.accounts[account], transactionID: id, signedMs: signedMs, tampered: tampered,
                assumptions: assumptions)
        }
        var decodesLocally = true
        switch receipt {
        case .empty, .notBase64, .xcode, .garbage:
            do {
                let local = try LocalReceiptDecoder.decode(base64: unit.receiptData(slot))
                if local.isXcodeTestReceipt { return .invalid(flag: "invalid_receipt") }
            } catch {
                if error.isEmptyOrNotBase64 { return .invalid(flag: "invalid_receipt") }
                decodesLocally = false
            }
        case .app, .tamperedApp, .transaction, .signedTransaction:
            break  // real-format receipts decode (held by the tests); signed rows are decided above
        }

        let identity = unit.identity(ofSlot: slot)
        var endpoint = assumptions.environment
        var answer = answerer.answer(
            identity, unit: { _ in unit }, endpoint: endpoint, password: answerer.sharedSecret,
            excludeOldTransactions: assumptions.excludeOldTransactions, includeLatestReceipt: false)
        // Routing: at most one hop.
        if (answer.status == 21007 && endpoint == .production) || (answer.status == 21008 && endpoint == .sandbox) {
            endpoint = endpoint.other
            answer = answerer.answer(
                identity, unit: { _ in unit }, endpoint: endpoint, password: answerer.sharedSecret,
                excludeOldTransactions: assumptions.excludeOldTransactions, includeLatestReceipt: false)
        }
        switch answer.status {
        case 0, 21006:
            if let accepted = assumptions.bundleIDs, !accepted.contains(answer.bundleID ?? "") {
                return .invalid(flag: "bundle_mismatch")
            }
            let otherEnvironment =
                endpoint != assumptions.environment
                || (answer.environment.map { $0 != assumptions.environment } ?? false)
            return otherEnvironment ? .misrouted(answer) : .valid(answer)
        case 21003, 21010:
            return .invalid(flag: "invalid_receipt")
        case 21002:
            // It persists in a deterministic world; then local decoding decides.
            return decodesLocally ? .unverified : .invalid(flag: "invalid_receipt")
        default:
            // 21199 marked not retryable; anything else unknown or a second redirect.
            return .unverified
        }
    }

    /// The transactions a believed row shows: an answer's, or a signed row's one.
    private static func transactions(of outcome: Outcome) -> [WorldTransaction.View]? {
        switch outcome {
        case .valid(let answer), .misrouted(let answer): answer.transactions
        case .validSigned(let view), .misroutedSigned(let view): [view]
        case .invalid, .unverified: nil
        }
    }

    // MARK: Accumulating units

    /// Collects unit results in user order and computes the breaker peaks.
    struct Accumulator {
        let world: SimulatedWorld
        let assumptions: RunAssumptions
        var corrections: [ExpectedOutcome.Correction] = []
        var flags: [ExpectedOutcome.Flag] = []
        var counts = ExpectedOutcome.Counts()

        init(world: SimulatedWorld, assumptions: RunAssumptions) {
            self.world = world
            self.assumptions = assumptions
        }

        mutating func add(_ result: UnitResult) {
            corrections += result.corrections
            flags += result.flags
            for user in result.users {
                counts.users += 1
                guard user.receipts > 0 else { continue }
                counts.usersWithReceipts += 1
                counts.receipts += user.receipts
                counts.unverifiedReceipts += user.unverified
                if user.revoked { counts.usersWithRevoke += 1 }
                if counts.receipts >= 100 {
                    counts.peakUnverifiedRatio = max(
                        counts.peakUnverifiedRatio,
                        Double(counts.unverifiedReceipts) / Double(counts.receipts))
                    counts.peakRevokeRatio = max(
                        counts.peakRevokeRatio,
                        Double(counts.usersWithRevoke) / Double(counts.usersWithReceipts))
                }
            }
        }

        func outcome() -> ExpectedOutcome {
            ExpectedOutcome(
                asOfMs: world.asOfMs, world: world.parameters, assumptions: assumptions,
                corrections: corrections.sorted(), flags: flags.sorted(), counts: counts)
        }
    }
}
