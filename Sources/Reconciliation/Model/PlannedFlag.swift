/// One `recon_flags` row to write.
public struct PlannedFlag: Hashable, Sendable, CustomStringConvertible {
    public var kind: FlagKind
    /// The receipt flagged; nil for a per-user flag (`entitlement_without_receipt`).
    public var receiptID: Int64?
    /// One line for `recon_flags.detail`; never receipt data.
    public var detail: String
    /// `recon_flags.evidence`: the Apple fact behind the flag (`FlagRule`); nil only for a flag built by hand.
    public var evidence: Evidence?

    public init(kind: FlagKind, receiptID: Int64? = nil, detail: String, evidence: Evidence? = nil) {
        self.kind = kind
        self.receiptID = receiptID
        self.detail = detail
        self.evidence = evidence
    }

    public var description: String {
        "\(kind) \(receiptID.map { "receipt \($0)" } ?? "user"): \(detail)"
    }

    /// Receipt flags by receipt id, then kind in `FlagKind.allCases` order; per-user flags last.
    static func ordered(_ lhs: PlannedFlag, _ rhs: PlannedFlag) -> Bool {
        switch (lhs.receiptID, rhs.receiptID) {
        case (let l?, let r?) where l != r: return l < r
        case (nil, _?): return false
        case (_?, nil): return true
        default: return lhs.kind.order < rhs.kind.order
        }
    }
}

extension FlagKind {
    var order: Int { Self.allCases.firstIndex(of: self) ?? Self.allCases.count }
}
