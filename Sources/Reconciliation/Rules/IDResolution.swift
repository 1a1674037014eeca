import AppStoreReceipts

/// What one transaction id a row names resolved to under the App Store Server API (CONTRACT §9, "What
/// proves a purchase absent"); `code` is the `errorCode` Apple answered with, kept for the evidence.
enum IDResolution: Hashable, Sendable {
    /// A history holds it: that history's position among those fetched for the user.
    case found(Int)
    /// 4040010 / 4040005 in both environments: absent only if no history of the user holds it and
    /// nothing vouches for it (`ServerAPIAnswerRule.settled`).
    case notFound(String, code: Int?)
    /// Apple refuses the id's format (4000006 / 4000008), or the id is proven absent.
    case invalid(String, code: Int?)
    case unverified(UnverifiedKind, String, code: Int? = nil)
}
