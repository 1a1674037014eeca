import Testing

@testable import AppStoreReceipts

/// A verdict is reused only for the very same signed data: a changed payload under a copied signature
/// finds nothing, so it is verified (and rejected) like any other.
struct VerifiedAnswerMemoTests {
    @Test func onlyIdenticalDataSharesAVerdict() {
        let memo = VerifiedAnswerMemo(capacity: 2)
        let payload = SignedPayload.transaction(SignedTransaction(transactionID: "7"))
        memo.remember(payload, of: "eyJh.eyJw.SIG1")
        #expect(memo.payload(of: "eyJh.eyJw.SIG1") == payload)
        #expect(memo.payload(of: "eyJh.eyJX.SIG1") == nil)  // same signature, other payload
        #expect(memo.payload(of: "eyJh.eyJw.SIG2") == nil)
        memo.remember(payload, of: "eyJh.eyJw.SIG2")
        memo.remember(payload, of: "eyJh.eyJw.SIG3")
        #expect(memo.payload(of: "eyJh.eyJw.SIG1") == nil)  // the oldest left when the memo was full
        #expect(memo.payload(of: "eyJh.eyJw.SIG3") == payload)
    }
}
