import AppStoreReceipts

/// What the App Store Server API says about one id, before any signing: the account it leads to, or the
/// error Apple answers. One description of the world's facts, read by the served answers
/// (`ServerAPIAnswerer`) and by the expectation (`ExpectationDeriver+ServerAPI`), as `AppleAnswerer` is
/// for verifyReceipt.
///
/// Checks in the order Apple's server can make them: the token's app (the API key belongs to the app's
/// team: any other `bid` is 401, so a request a client should not have made shows), the id's format
/// (4000006), the id itself (4040010 unknown or not yet purchased), the account (4040001 deleted, in
/// either environment), the environment and app it belongs to (4040010), Apple's own trouble (500
/// 5000000), and the ids Apple loses now and then (4040010 for an id it knows).
struct ServerAPILookup: Sendable {
    let world: SimulatedWorld
    let units: @Sendable (Int) -> WorldUnit

    /// The apps whose `bid` the simulator's API key may name.
    static let keyBundleIDs: Set<String> = [WorldCatalog.appBundleID]

    enum Resolution: Sendable {
        /// The id is an id of account `slot` of `unit`; `transaction` is nil for an `appTransactionId`.
        case found(unit: WorldUnit, slot: Int, transaction: WorldTransaction?)
        /// Apple's error answer.
        case refused(ServerAPIReply)
    }

    func resolve(_ id: String, environment: AppStoreEnvironment, bundleID: String) -> Resolution {
        guard Self.keyBundleIDs.contains(bundleID) else { return .refused(.unauthorized) }
        guard Self.isWellFormed(id) else { return .refused(.error(400, 4_000_006, "Invalid transaction id.")) }
        guard let (unit, slot, transaction) = locate(id) else { return .refused(.notFound) }
        let owner = unit.accounts[slot]
        if case .deleted(let at) = owner.standing, at <= world.asOfMs { return .refused(.accountNotFound) }
        guard owner.environment == environment, owner.bundleID == bundleID else { return .refused(.notFound) }
        if case .internalError = owner.standing { return .refused(.internalError) }
        if owner.idsTheServerAPILoses.contains(id) { return .refused(.notFound) }
        return .found(unit: unit, slot: slot, transaction: transaction)
    }

    /// An id Apple accepts the format of: one to nineteen decimal digits, within a signed 64-bit integer
    /// (Apple's ids are 64-bit numbers). Anything else is 4000006, whether or not a client checked it.
    static func isWellFormed(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 19, id.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return false }
        return Int64(id) != nil
    }

    /// The unit and account slot of an id, with its transaction (nil for an `appTransactionId`); nil when
    /// the world has no such id, or Apple had not issued it by `asOf`.
    func locate(_ id: String) -> (WorldUnit, Int, WorldTransaction?)? {
        guard let value = UInt64(id) else { return nil }
        if let place = WorldReceiptLocator.place(ofTransactionID: id), place.unit < world.unitCount {
            let unit = units(place.unit)
            guard place.account < unit.accounts.count,
                let transaction = unit.accounts[place.account].transaction(withID: id),
                transaction.purchaseMs <= world.asOfMs
            else { return nil }
            return (unit, place.account, transaction)
        }
        let base = WorldUnit.appTransactionIDBase
        guard value >= base, value - base < UInt64(world.unitCount) * 10 else { return nil }
        let unit = units(Int((value - base) / 10))
        let slot = Int((value - base) % 10)
        return slot < unit.accounts.count ? (unit, slot, nil) : nil
    }
}
