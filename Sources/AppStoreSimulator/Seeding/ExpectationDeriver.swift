import AppStoreReceipts

/// Derives what a correct run must do from Apple's answers and the rules alone: CONTRACT §5 and §9 as
/// read by rules.md (issue 25) and docs/reconciliation-rules.md, written here a second time,
/// independently of the job's code (the job is built by someone else from the same rules; this is the
/// cross-check).
///
/// For each receipt row it plays the client's part against the same answers the simulator serves:
/// under `--backend verify-receipt`, local checks, the endpoint of the database's environment first,
/// one hop on 21007/21008, statuses to outcomes (`AppleAnswerer`); under `--backend server-api`, the
/// row's ids looked up in the environment of its hint, one hop, and the codes of rules.md
/// (`ExpectationDeriver+ServerAPI`, over `ServerAPILookup`). Then it computes each user's truth and
/// compares it with the user's `app_store` rows. The world is deterministic, so retried statuses give
/// the same answer again: a 21002 persists, a 21199 marked not retryable ends `unverified` at once.
/// StoreKit 2 rows (a JWS) are never sent to verifyReceipt: under that backend their outcome comes
/// from what the world knows of them (`ExpectationDeriver+SignedRows`).
///
/// Pure and per unit (accounts never span units, so `shared_transaction` and the histories a user's
/// rows share are decided inside one).
public enum ExpectationDeriver {
    /// One receipt row's fate in the run.
    public enum Outcome: Sendable, Hashable {
        /// Apple's answer for the row in the database's environment (under the Server API: the history of
        /// the account its ids lead to, with the account's renewal state, as of `asOf`).
        case valid(AppleAnswer)
        case misrouted(AppleAnswer)
        /// A StoreKit 2 row judged locally (verify-receipt backend) whose signature verifies, signed in
        /// the database's environment: its transaction as it was at the row's `signedDate`.
        case validSigned(SignedEvidence)
        /// The same, signed in the other environment.
        case misroutedSigned(SignedEvidence)
        /// With the flag kind: `invalid_receipt` or `bundle_mismatch`.
        case invalid(flag: String)
        case unverified(Unverified)
    }

    /// Whether asking again could change an `unverified` row (rules.md, "What a permanent unverified row
    /// does").
    public enum Unverified: Sendable, Hashable {
        /// Apple failed (5xx, 5000000, retryable codes, 21199): holds back every revoke and shorten of
        /// the user.
        case transient
        /// Asking again cannot change it (an account Apple no longer finds, a `bid` Apple refuses): holds
        /// back revokes and shortens of the entitlements of `products`, the products the row names, and
        /// nothing else.
        case permanent(products: Set<String>)
    }

    /// A signed row's transaction and the instant its evidence speaks for.
    public struct SignedEvidence: Sendable, Hashable {
        /// The transaction as it was at `signedMs`.
        public var view: WorldTransaction.View
        /// The JWS's `signedDate`.
        public var signedMs: Int64
    }

    /// What a unit contributes to the expectation.
    public struct UnitResult: Sendable {
        public var corrections: [ExpectedOutcome.Correction] = []
        public var flags: [ExpectedOutcome.Flag] = []
        /// The unverified rows, with their kind.
        public var unverified: [ExpectedOutcome.UnverifiedRow] = []
        /// Server API backend: the refunds the run records, by transaction id (rules.md, "Money").
        public var refunds: [String: ExpectedOutcome.Refund] = [:]
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

    /// The outcome of every row of `user`, in row order.
    static func outcomes(
        of user: WorldUser, in unit: WorldUnit, answerer: AppleAnswerer, assumptions: RunAssumptions
    ) -> [Outcome] {
        if assumptions.backend == .serverAPI {
            return serverAPIOutcomes(
                of: user.receipts.map(\.slot), in: unit, answerer: answerer, assumptions: assumptions)
        }
        return user.receipts.map { outcome(of: $0.slot, in: unit, answerer: answerer, assumptions: assumptions) }
    }

    /// The expectation for one unit.
    public static func derive(
        unit: WorldUnit,
        receiptIDs: [[Int64]],
        answerer: AppleAnswerer,
        assumptions: RunAssumptions
    ) -> UnitResult {
        let asOf = unit.asOfMs
        let rowOutcomes = unit.users.map {
            outcomes(of: $0, in: unit, answerer: answerer, assumptions: assumptions)
        }
        // Original transaction ids on each user's answered receipts, for shared_transaction.
        let originalIDs: [Set<String>] = rowOutcomes.map { rows in
            var ids = Set<String>()
            for outcome in rows {
                ids.formUnion(transactions(of: outcome)?.map(\.transaction.originalTransactionID) ?? [])
            }
            return ids
        }

        var result = UnitResult()
        for (position, user) in unit.users.enumerated() {
            let rows = rowOutcomes[position]
            var transient = 0
            var unverified = 0
            var heldByPermanent = Set<String>()
            let answered = answeredViews(rows)

            // Flags, one per receipt row and kind.
            for (row, outcome) in rows.enumerated() {
                let receiptID = receiptIDs[position][row]
                func flag(_ kind: String) {
                    result.flags.append(ExpectedOutcome.Flag(userID: user.id, kind: kind, receiptID: receiptID))
                }
                switch outcome {
                case .invalid(let kind):
                    flag(kind)
                case .unverified(let kind):
                    unverified += 1
                    flag("unverified")
                    switch kind {
                    case .transient:
                        transient += 1
                    case .permanent(let products):
                        heldByPermanent.formUnion(products.compactMap { WorldCatalog.tableProduct($0)?.entitlement })
                    }
                    result.unverified.append(
                        ExpectedOutcome.UnverifiedRow(
                            userID: user.id, receiptID: receiptID, permanent: kind != .transient))
                case .valid, .misrouted, .validSigned, .misroutedSigned:
                    if outcome.isMisrouted {
                        flag(assumptions.environment == .production ? "sandbox_in_production" : "production_in_sandbox")
                    }
                    let transactions = transactions(of: outcome) ?? []
                    let shown = freshest(transactions, of: outcome, answered: answered)
                    if shown.contains(where: \.isRefund) { flag("refunded") }
                    if shown.contains(where: \.isFamilyRevocation) { flag("family_revoked") }
                    if transactions.contains(where: { WorldCatalog.tableProduct($0.transaction.productID) == nil }) {
                        flag("unknown_product")
                    }
                    let mine = Set(transactions.map(\.transaction.originalTransactionID))
                    let others = originalIDs.enumerated().filter { $0.offset != position }
                    if others.contains(where: { !$0.element.isDisjoint(with: mine) }) { flag("shared_transaction") }
                }
                if assumptions.backend == .serverAPI {
                    result.refunds.merge(refunds(of: outcome, assumptions)) { a, _ in a }
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
            var signed: [SignedEvidence] = []
            let misroutedCount = assumptions.sandboxPolicy == .flag || user.isSandboxTester
            for outcome in rows {
                switch outcome {
                case .valid(let answer): counting.append(answer)
                case .misrouted(let answer) where misroutedCount: counting.append(answer)
                case .validSigned(let evidence): signed.append(evidence)
                case .misroutedSigned(let evidence) where misroutedCount: signed.append(evidence)
                default: break
                }
            }
            let entitlements = Set(truth(counting, signed: signed.map(\.view), asOf: asOf).keys)
                .union(storeRows.map(\.entitlement)).sorted()
            // A signed row is evidence as of its signedDate: it grants or extends an entitlement only when
            // it is newer than the app's row for it (or there is none); and what it carries is never
            // revoked or shortened (a renewal since may exist), unless it proves a revocation itself.
            let truth = self.truth(
                counting, signed: signed, asOf: asOf, entitlements: entitlements,
                updated: Dictionary(storeRows.map { ($0.entitlement, $0.updatedMs) }) { first, _ in first })
            let held = heldBySignedRows(signed.map(\.view)).union(heldByPermanent)
            let holdsEverything = transient > 0

            // Corrections against app_store rows.
            var revoked = false
            for entitlement in entitlements {
                let apple = truth[entitlement]
                let row = storeRows.first { $0.entitlement == entitlement }
                let mayTakeAway = !holdsEverything && !held.contains(entitlement)
                var action: String?
                if apple != nil, row?.active != true {
                    action = "grant"
                } else if let row, row.active, apple == nil {
                    action = mayTakeAway ? "revoke" : nil
                } else if let apple, let row, row.active {
                    switch compare(apple.expiresMs, row.expiresMs) {
                    case .later: action = "extend"
                    case .earlier: action = mayTakeAway ? "shorten" : nil
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

    /// The refunds a row's answer makes the run record (rules.md, "Money"): refunds proper
    /// (`REFUND_FULL` / `REFUND_PRORATED`, never an upgrade or a family copy) of an answer from the
    /// database's environment, each at price × percentage ÷ 100.
    static func refunds(of outcome: Outcome, _ assumptions: RunAssumptions) -> [String: ExpectedOutcome.Refund] {
        guard case .valid(let answer) = outcome, answer.environment == assumptions.environment else { return [:] }
        var refunds: [String: ExpectedOutcome.Refund] = [:]
        for view in answer.transactions where view.isRefund {
            refunds[view.transaction.transactionID] = ExpectedOutcome.Refund(
                currency: "USD", priceMilliunits: WorldUnit.priceMilliunits(of: view.transaction),
                percentageMilliunits: view.revocationPercentage ?? 100_000)
        }
        return refunds
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
        if assumptions.backend == .serverAPI {
            // Alone: without the user's other rows, whose histories might hold an id this one cannot find.
            return serverAPIOutcomes(of: [slot], in: unit, answerer: answerer, assumptions: assumptions)[0]
        }
        let receipt = unit.receipts[slot]
        if case .signedTransaction(let account, let id, let signedMs, let tampered) = receipt {
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
        case .app, .tamperedApp, .transaction, .craftedTransaction, .signedTransaction:
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
            return decodesLocally ? .unverified(.transient) : .invalid(flag: "invalid_receipt")
        default:
            // 21199 marked not retryable (an Apple-side fault: asking later may succeed); anything else
            // unknown or a second redirect.
            return .unverified(.transient)
        }
    }

    /// The transactions a believed row shows: an answer's, or a signed row's one.
    private static func transactions(of outcome: Outcome) -> [WorldTransaction.View]? {
        switch outcome {
        case .valid(let answer), .misrouted(let answer): answer.transactions
        case .validSigned(let evidence), .misroutedSigned(let evidence): [evidence.view]
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
        var unverified: [ExpectedOutcome.UnverifiedRow] = []
        var refunds: [String: ExpectedOutcome.Refund] = [:]
        var counts = ExpectedOutcome.Counts()

        init(world: SimulatedWorld, assumptions: RunAssumptions) {
            self.world = world
            self.assumptions = assumptions
        }

        mutating func add(_ result: UnitResult) {
            corrections += result.corrections
            flags += result.flags
            unverified += result.unverified
            refunds.merge(result.refunds) { first, _ in first }
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
                corrections: corrections.sorted(), flags: flags.sorted(), counts: counts,
                unverified: unverified.sorted(),
                refundedAmount: assumptions.backend == .serverAPI
                    ? ExpectedOutcome.RefundedAmount.figures(refunds) : nil)
        }
    }
}
