import AppStoreReceipts

/// The client's part under `--backend server-api` (rules.md, "Server API backend"), played against
/// `ServerAPILookup`, the facts the simulator's Server API serves.
///
/// Per stored row, what the client learns before asking (`StoredRowReading`): data that is no receipt,
/// an app receipt whose PKCS#7 signature fails (tampered, Xcode), a bundle id outside
/// `APPLE_BUNDLE_IDS`, an id that is not decimal digits: decided without a request. Otherwise the row's
/// ids (a JWS's `transactionId`, read even when its signature fails; an app receipt's in-app
/// `transaction_id`s; an iOS 6 receipt's `transaction-id`) are looked up in the row's environment
/// first, then once in the other. Ids neither environment finds are found after all when a history
/// fetched for the same user lists them (a fresh database has no `recon_transactions` to consult); else
/// they are absent (`invalid`), unless Apple signed the row (an app receipt, a JWS whose signature
/// verifies): Apple's signature proves the purchase, a permanent `unverified` holding what the row names.
/// A row whose signature fails holds nothing when Apple gives no verdict (only Apple's word keeps access).
///
/// A found row is `valid` (or `misrouted`) with the account's history and renewal state at `asOf`:
/// the facts `AppleAnswerer` gives for a receipt of the account issued at `asOf`, so both backends read
/// one description of the world.
extension ExpectationDeriver {
    /// What the client reads from a stored row before asking Apple.
    enum StoredRowReading {
        /// Decided locally, without a request.
        case decided(Outcome)
        /// Look these ids up with `bid`, first in `hint` (else the database's environment). `products`:
        /// what the row names, which a permanent `unverified` holds. `account`: a row that names no id
        /// (an app receipt with no purchase) is `valid` in its account's environment with nothing in it.
        /// `signed`: whether Apple's signature verifies on the row (true), fails (false), or there is none
        /// to check (nil, an iOS 6 receipt).
        case ask(
            ids: [String], bundleID: String, hint: AppStoreEnvironment?, products: Set<String>, account: Int,
            signed: Bool?)
    }

    /// How one id's lookup ended, after at most one hop.
    enum IDLookup {
        case found(unit: WorldUnit, slot: Int, environment: AppStoreEnvironment)
        /// 4040010 / 4040005 in both environments.
        case notFound
        case permanent
        case transient
        case invalid
    }

    /// The outcomes of one user's rows (`slots`, in row order) under the Server API.
    static func serverAPIOutcomes(
        of slots: [Int], in unit: WorldUnit, answerer: AppleAnswerer, assumptions: RunAssumptions
    ) -> [Outcome] {
        let world = answerer.world
        let lookup = ServerAPILookup(world: world, units: { $0 == unit.index ? unit : world.unit($0) })
        let readings = slots.map { reading(of: $0, in: unit, assumptions: assumptions) }

        // Every id asked about, in row order; then the histories the found ones fetched.
        var lookups: [String: IDLookup] = [:]
        for case .ask(let ids, let bundleID, let hint, _, _, _) in readings {
            for id in ids where lookups[id] == nil {
                lookups[id] = look(up: id, bundleID: bundleID, hint: hint, lookup: lookup, assumptions: assumptions)
            }
        }
        var histories: [(unit: WorldUnit, slot: Int, environment: AppStoreEnvironment)] = []
        for case .found(let foundUnit, let slot, let environment) in lookups.values
        where !histories.contains(where: { $0.unit.index == foundUnit.index && $0.slot == slot }) {
            histories.append((foundUnit, slot, environment))
        }
        for (id, result) in lookups {
            guard case .notFound = result else { continue }
            let asOf = unit.asOfMs
            if let history = histories.first(where: { history in
                history.unit.accounts[history.slot].transactions(purchasedBy: asOf).contains {
                    $0.transactionID == id || $0.originalTransactionID == id
                }
            }) {
                lookups[id] = .found(unit: history.unit, slot: history.slot, environment: history.environment)
            }  // else unknown to Apple: both environments, and no history holds it (ruled per row below)
        }

        return readings.map { reading in
            switch reading {
            case .decided(let outcome):
                return outcome
            case .ask(let ids, _, _, let products, let account, let signed):
                // Absent, unless Apple's signature on the row proves the purchase.
                let results = ids.map { lookups[$0]! }.map { result -> IDLookup in
                    if case .notFound = result { return signed == true ? .permanent : .invalid }
                    return result
                }
                if results.contains(where: { if case .invalid = $0 { true } else { false } }) {
                    return .invalid(flag: "invalid_receipt")
                }
                if results.contains(where: { if case .transient = $0 { true } else { false } }) {
                    return .unverified(.transient)
                }
                if results.contains(where: { if case .permanent = $0 { true } else { false } }) {
                    return .unverified(.permanent(products: signed == false ? [] : products))
                }
                guard case .found(let foundUnit, let slot, let environment)? = results.first else {
                    // Nothing bought, so nothing to ask: the receipt (its signature verified) proves no purchase.
                    let owner = unit.accounts[account]
                    let empty = AppleAnswer(status: 0, environment: owner.environment)
                    return owner.environment == assumptions.environment ? .valid(empty) : .misrouted(empty)
                }
                let answer = answerer.answer(
                    .app(unit: foundUnit.index, account: slot, createdMs: foundUnit.asOfMs), unit: { _ in foundUnit },
                    endpoint: environment, password: answerer.sharedSecret,
                    excludeOldTransactions: assumptions.excludeOldTransactions, includeLatestReceipt: false)
                return environment == assumptions.environment ? .valid(answer) : .misrouted(answer)
            }
        }
    }

    /// What the client reads from `slot` before any request.
    static func reading(of slot: Int, in unit: WorldUnit, assumptions: RunAssumptions) -> StoredRowReading {
        func ask(
            _ account: Int, ids: [String], products: [String], hint: AppStoreEnvironment?, signed: Bool? = nil
        ) -> StoredRowReading {
            let owner = unit.accounts[account]
            if let accepted = assumptions.bundleIDs, !accepted.contains(owner.bundleID) {
                return .decided(.invalid(flag: "bundle_mismatch"))
            }
            if ids.contains(where: { $0.isEmpty || !$0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }) {
                return .decided(.invalid(flag: "invalid_receipt"))
            }
            return .ask(
                ids: ids, bundleID: owner.bundleID, hint: hint, products: Set(products), account: account,
                signed: signed)
        }
        switch unit.receipts[slot] {
        case .empty, .notBase64, .garbage:
            return .decided(.invalid(flag: "invalid_receipt"))  // no receipt by any reading
        case .tamperedApp, .xcode:
            return .decided(.invalid(flag: "invalid_receipt"))  // its PKCS#7 signature is not Apple's
        case .app(let account, let created):
            let purchases = unit.accounts[account].transactions(purchasedBy: created)
            return ask(
                account, ids: purchases.map(\.transactionID), products: purchases.map(\.productID),
                hint: unit.accounts[account].environment, signed: true)
        case .transaction(let account, let id):
            let owner = unit.accounts[account]
            return ask(
                account, ids: [id], products: [owner.transaction(withID: id)!.productID],
                hint: owner.environment == .sandbox ? .sandbox : nil)
        case .craftedTransaction(let account, _):
            return ask(
                account, ids: [unit.craftedTransactionID(account: account)], products: [WorldCatalog.premiumYearly.id],
                hint: unit.accounts[account].environment == .sandbox ? .sandbox : nil)
        case .signedTransaction(let account, let id, _, let tampered):
            // Its payload's transactionId, whether or not the signature verifies: Apple's answer decides.
            let owner = unit.accounts[account]
            return ask(
                account, ids: [id], products: [owner.transaction(withID: id)!.productID], hint: owner.environment,
                signed: !tampered)
        }
    }

    /// One id's lookup: the row's environment first, one hop on "not here" (4040010, 4040005) and on
    /// an account, app or app transaction Apple cannot find (4040001, 4040003, 4040019).
    static func look(
        up id: String, bundleID: String, hint: AppStoreEnvironment?, lookup: ServerAPILookup,
        assumptions: RunAssumptions
    ) -> IDLookup {
        // A row's own bundle id is the bid when it is an accepted one; else the default (the first).
        let defaultBid = assumptions.bundleIDs?.first ?? WorldCatalog.appBundleID
        let bid = assumptions.bundleIDs.map { $0.contains(bundleID) ? bundleID : defaultBid } ?? bundleID
        let first = hint ?? assumptions.environment
        var missing = false
        for environment in [first, first.other] {
            switch lookup.resolve(id, environment: environment, bundleID: bid) {
            case .found(let unit, let slot, _):
                return .found(unit: unit, slot: slot, environment: environment)
            case .refused(let reply):
                switch (reply.status, reply.errorCode) {
                case (401, _):
                    // The default bid refused stops the run (exit 78): `simulator seed` never expects that.
                    return bid == defaultBid ? .transient : .permanent
                case (_, 4_000_006?), (_, 4_000_008?):
                    return .invalid
                case (_, 4_040_010?), (_, 4_040_005?):
                    continue
                case (_, 4_040_001?), (_, 4_040_003?), (_, 4_040_019?):
                    missing = true
                    continue
                default:
                    return .transient  // 429, 5xx, 5000000, 4040002/4/6, anything unknown
                }
            }
        }
        return missing ? .permanent : .notFound
    }
}
