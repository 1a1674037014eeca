import AppStoreReceipts

/// One or two users of the world, generated together from the world's seed and the unit's index.
///
/// Units are the world's grain: unit `i` holds users `2i` and `2i+1` and the Apple accounts behind their
/// receipts. A unit depends on nothing but `(seed, asOf, environment, users, i)`, so seeding can stream
/// units in batches and the server can rebuild the one unit a receipt points at, without holding the
/// world in memory. Accounts never span units, so every cross-user relation (a transaction restored on
/// two app accounts) lives inside one unit.
public struct WorldUnit: Sendable, Hashable {
    public let index: Int
    /// The world's instant, in milliseconds since 1970.
    public let asOfMs: Int64
    /// The world seed (it keys the receipts' checksums).
    let seed: UInt64
    public var accounts: [WorldAccount]
    /// Receipts by slot.
    public var receipts: [WorldReceipt]
    public var users: [WorldUser]
}
