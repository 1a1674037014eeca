extension PostgresConnection {
    /// Runs `body` inside `BEGIN … COMMIT`. If `body` throws, the transaction is rolled back and the
    /// error rethrown, so nothing it wrote survives.
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        let value: T
        do {
            value = try body()
        } catch {
            // A failed ROLLBACK means the session is gone, and the server discards the work anyway.
            _ = try? execute("ROLLBACK")
            throw error
        }
        try execute("COMMIT")
        return value
    }
}
