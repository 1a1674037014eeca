/// One stored receipt row.
public struct StoredReceipt: Sendable, Hashable {
    public let id: Int64
    public let data: String
}
