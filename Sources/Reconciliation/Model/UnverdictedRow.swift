/// A row `verify-user` shows support: one that ended `unverified`, and whether asking again may help.
public struct UnverdictedRow: Sendable {
    public var receiptID: Int64
    public var kind: UnverifiedKind
    public var detail: String
}
