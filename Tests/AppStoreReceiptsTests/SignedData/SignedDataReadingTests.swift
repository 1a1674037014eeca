import Foundation
import Testing

@testable import AppStoreReceipts

/// Readings of signed data that two parsers could disagree on, each refused with its own reason
/// (issue 25, deliverable 8): a member name given twice in the header or the payload (RFC 7515 §4),
/// `crit`, a `signedDate` that is not a number; and an app transaction checked at its own date.
/// Every JWS here is properly signed: the refusal is the reading's, not the signature's.
@Suite struct SignedDataReadingTests {
    typealias Base = SignedDataVerifierTests
    static let now = Base.now
    static let year = Base.year
    static let chain = Base.chain

    static func header(_ members: String) -> String {
        let x5c = Base.x5c([chain.leaf, chain.intermediate, chain.root])
        return Base.header("{\(members)\"x5c\":[\(x5c)]}")
    }

    static func verify(_ jws: String) -> SignedDataVerification { Base.verify(jws) }

    /// A failure's description: one line, short, and none of the data's text.
    static func expectOneLine(_ failure: SignedDataFailure?, without secrets: [String] = []) {
        let text = failure.map(String.init(describing:)) ?? ""
        #expect(!text.isEmpty && !text.contains("\n") && text.count < 100, "\(text)")
        for secret in secrets { #expect(!text.contains(secret), "\(text)") }
    }

    @Test(arguments: [
        #"{"transactionId":"2000000001","bundleId":"com.example","bundleId":"com.evil","signedDate":1790000000000}"#,
        #"{"transactionId":"2000000001","revocationDate":null,"signedDate":1790000000000,"revocationDate":1}"#,
        #"{"transactionId":"2000000001","signedDate":1790000000000,"sign\u0065dDate":1}"#,
    ])
    func aPayloadNamingAMemberTwiceIsRefused(_ payload: String) {
        let verification = Self.verify(Self.chain.sign(payload: Array(payload.utf8)))
        #expect(verification.failure == .duplicatePayloadKey)
        #expect(verification.payload == nil, "nothing of it is read")
        Self.expectOneLine(verification.failure, without: ["com.evil", "2000000001"])
    }

    @Test(arguments: [
        #""alg":"ES256","alg":"none","#,
        #""alg":"ES256","kid":"a","kid":"b","#,
        #""alg":"ES256","\u0061lg":"ES256","#,
    ])
    func aHeaderNamingAMemberTwiceIsRefused(_ members: String) {
        let jws = Base.signed(header: Self.header(members), key: Self.chain.leafKey)
        #expect(Self.verify(jws).failure == .duplicateHeaderKey)
        // x5c twice: the chain checked could be another than the one a second reader sees.
        let x5c = Base.x5c([Self.chain.leaf, Self.chain.intermediate, Self.chain.root])
        let twice = Base.header("{\"alg\":\"ES256\",\"x5c\":[\(x5c)],\"x5c\":[\(x5c)]}")
        #expect(Self.verify(Base.signed(header: twice, key: Self.chain.leafKey)).failure == .duplicateHeaderKey)
        Self.expectOneLine(.duplicateHeaderKey)
    }

    /// The header cache keeps only headers that read: a refused one is refused every time.
    @Test(arguments: [
        #""alg":"ES256","crit":["exp"],"exp":1,"#, #""alg":"ES256","crit":[],"#, #""crit":null,"alg":"ES256","#,
    ])
    func aHeaderWithCritIsRefused(_ members: String) {
        let verifier = Base.verifier()
        let jws = Base.signed(header: Self.header(members), key: Self.chain.leafKey)
        for _ in 0..<2 {
            #expect(verifier.verify(Array(jws.utf8), now: Self.now).failure == .criticalHeader)
        }
        Self.expectOneLine(.criticalHeader)
    }

    /// Apple's headers, `alg` and `x5c` in any order, still verify.
    @Test func anOrdinaryHeaderStillVerifies() {
        let jws = Base.signed(header: Self.header(#""typ":"JWT","alg":"ES256","#), key: Self.chain.leafKey)
        #expect(Self.verify(jws).failure == nil)
    }

    /// Never read as "now": an expired leaf would pass for data claiming to be signed today.
    @Test(arguments: [#""1790000000000""#, "null", "true", #""""#, "1e400", #"{"ms":1}"#])
    func aSignedDateThatIsNotANumberIsRefused(_ literal: String) {
        let payload = #"{"transactionId":"2000000001","bundleId":"com.example","signedDate":\#(literal)}"#
        let verification = Self.verify(Self.chain.sign(payload: Array(payload.utf8)))
        #expect(verification.failure == .signedDateNotANumber(field: "signedDate"))
        #expect(verification.checkedAt == nil, "checked at no instant, never the current time")
        Self.expectOneLine(verification.failure, without: ["1790000000000"])
        #expect(verification.failure?.description == "payload signedDate is not a number of milliseconds")
    }

    @Test func aNotificationsNestedDataWithAStringSignedDateFailsTheWhole() {
        let nested = Self.chain.sign(
            payload: Array(#"{"transactionId":"2000000001","signedDate":"1790000000000"}"#.utf8))
        let notification = Self.chain.sign(
            payload: Array(
                """
                {"notificationType":"DID_RENEW","signedDate":1790000000000,"data":{"environment":"Production",\
                "bundleId":"com.example","signedTransactionInfo":"\(nested)"}}
                """.utf8))
        let verification = Self.verify(notification)
        guard case .nested(let field, let inner) = verification.failure else {
            Issue.record("\(String(describing: verification.failure))")
            return
        }
        #expect(field == "signedTransactionInfo")
        #expect(inner.failure == .signedDateNotANumber(field: "signedDate"))
    }

    /// An app transaction is checked at its own date (`signedDate`, else `receiptCreationDate`): data
    /// signed while a since-expired leaf was valid verifies, and only an undated one is checked now.
    @Test func anAppTransactionIsCheckedAtItsSignedDate() throws {
        let rotated = try SigningChain.mint(
            notBefore: Self.now - 3 * Self.year, notAfter: Self.now + Self.year,
            leafValidity: (Self.now - 2 * Self.year)...(Self.now - Self.year))
        let verifier = Base.verifier(rotated)
        let whileValid = Int64((Self.now - 1.5 * Self.year).timeIntervalSince1970 * 1000)
        let afterExpiry = Int64((Self.now - 0.5 * Self.year).timeIntervalSince1970 * 1000)
        func verify(_ dates: String) -> SignedDataVerification {
            let payload = #"{"receiptType":"Production","bundleId":"com.example","appAppleId":1,\#(dates)}"#
            return verifier.verify(Array(rotated.sign(payload: Array(payload.utf8)).utf8), now: Self.now)
        }
        let created = verify(#""receiptCreationDate":\#(whileValid)"#)
        #expect(created.failure == nil)
        #expect(created.payload?.format == .appTransaction)
        #expect(created.checkedAt == Date(timeIntervalSince1970: Double(whileValid) / 1000))

        let signed = verify(#""receiptCreationDate":\#(afterExpiry),"signedDate":\#(whileValid)"#)
        #expect(signed.failure == nil)
        #expect(signed.checkedAt == Date(timeIntervalSince1970: Double(whileValid) / 1000))
        guard case .appTransaction(let app) = signed.payload else {
            Issue.record("not an app transaction")
            return
        }
        #expect(app.signedDate == Date(timeIntervalSince1970: Double(whileValid) / 1000))

        let late = verify(#""signedDate":\#(afterExpiry),"receiptCreationDate":\#(whileValid)"#)
        guard case .untrustedChain = late.failure else {
            Issue.record("an app transaction signed after its leaf expired verified")
            return
        }
        let undated = verify(#""applicationVersion":"1""#)
        #expect(undated.checkedAt == Self.now)
        #expect(undated.failure != nil)
        #expect(verify(#""receiptCreationDate":"x""#).failure == .signedDateNotANumber(field: "receiptCreationDate"))
    }

    /// verifyReceipt answers stay as readable as ever: a repeated name is Apple's to send there, and
    /// the first one counts. Only signed data asks the parser to refuse it.
    @Test func verifyReceiptAnswersStillAllowRepeatedNames() throws {
        let text = Array(#"{"status":0,"status":21007,"receipt":{"a":1,"a":2}}"#.utf8)
        guard case .object(let object) = try AppleJSONParser.parse(text) else {
            Issue.record("not an object")
            return
        }
        #expect(object["status"] == .number("0"))
        #expect(throws: AppleJSONSyntaxError.self) { try AppleJSONParser.parse(text, rejectingDuplicateKeys: true) }
        let nested = Array(#"{"receipt":{"a":1,"b":{"c":[{"d":1,"d":2}]}}}"#.utf8)
        do {
            _ = try AppleJSONParser.parse(nested, rejectingDuplicateKeys: true)
            Issue.record("a nested duplicate was accepted")
        } catch {
            #expect(error.reason == .duplicateKey)
        }
        #expect(throws: Never.self) { try AppleJSONParser.parse(nested) }
    }
}
