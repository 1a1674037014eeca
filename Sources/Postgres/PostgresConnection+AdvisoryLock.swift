/// A 64-bit key in PostgreSQL's advisory lock space.
public struct AdvisoryLockKey: Sendable, Hashable, CustomStringConvertible {
    public let value: Int64

    public init(_ value: Int64) { self.value = value }

    /// A key derived from a name (FNV-1a, 64 bit): stable across processes, machines and releases,
    /// unlike Swift's `hashValue`.
    public init(name: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        value = Int64(bitPattern: hash)
    }

    public var description: String { String(value) }
}

extension PostgresConnection {
    /// Takes a session-level advisory lock if nobody else holds it; never waits.
    /// The lock lasts until `advisoryUnlock` or until this connection closes (also when the process dies).
    public func tryAdvisoryLock(_ key: AdvisoryLockKey) throws -> Bool {
        try query("SELECT pg_try_advisory_lock(\(key.value)) AS locked").first!.decode("locked")
    }

    /// Waits for a session-level advisory lock.
    public func advisoryLock(_ key: AdvisoryLockKey) throws {
        try execute("SELECT pg_advisory_lock(\(key.value))")
    }

    /// Releases a session-level advisory lock; false if this session did not hold it.
    @discardableResult
    public func advisoryUnlock(_ key: AdvisoryLockKey) throws -> Bool {
        try query("SELECT pg_advisory_unlock(\(key.value)) AS released").first!.decode("released")
    }

    /// Waits for a transaction-level advisory lock, released by COMMIT or ROLLBACK.
    /// Call it inside `transaction { }`; outside one it would end with its own implicit transaction.
    public func advisoryTransactionLock(_ key: AdvisoryLockKey) throws {
        try execute("SELECT pg_advisory_xact_lock(\(key.value))")
    }

    /// Takes a transaction-level advisory lock if free; never waits.
    public func tryAdvisoryTransactionLock(_ key: AdvisoryLockKey) throws -> Bool {
        try query("SELECT pg_try_advisory_xact_lock(\(key.value)) AS locked").first!.decode("locked")
    }
}
