/// Why an app receipt's signature was not accepted: one line naming the rule, never a byte of the
/// receipt (CONTRACT §2), carried to `ReceiptSignatureCheck.Result.failed`.
struct ReceiptSignatureFailure: Error, Sendable, Hashable, CustomStringConvertible {
    let reason: String

    init(_ reason: String) { self.reason = reason }

    var description: String { reason }
}
