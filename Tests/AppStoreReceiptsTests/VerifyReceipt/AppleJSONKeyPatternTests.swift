import Foundation
import Testing

@testable import AppStoreReceipts

/// The parser's member tables cost work linear in the members whatever the keys: keys made to share
/// length and ends, many copies of one key, and random keys alike. Counted in table steps (probes
/// and key comparisons), not timed; the bench times it (`receipt-recon-bench --json-keys`).
@Suite struct AppleJSONKeyPatternTests {
    static let bytes = 256 * 1024

    static func members(_ json: [UInt8]) throws -> Int {
        guard case .object(let object) = try AppleJSONParser.parse(json) else { return 0 }
        return object.members.count
    }

    @Test(arguments: JSONKeyPatterns.Pattern.allCases, [false, true])
    func aLargeObjectCostsStepsLinearInItsMembers(pattern: JSONKeyPatterns.Pattern, rejecting: Bool) throws {
        let json = JSONKeyPatterns.object(pattern, bytes: Self.bytes)
        let (value, steps) = try AppleJSONParser.parseCountingSteps(json, rejectingDuplicateKeys: rejecting)
        guard case .object(let object) = value else {
            Issue.record("not an object")
            return
        }
        let members = object.members
        #expect(members.count > 5_000)
        // Quadratic probing made this about members² / 2 (over 30 million); linear is a few per member.
        #expect(steps <= 8 * members.count, "\(steps) steps for \(members.count) members")
        for (offset, member) in members.enumerated() where offset % 97 == 0 {
            #expect(object[member.key] == member.value, "\(member.key)")
        }
        #expect(object["transact999999ion_date"] == nil)
        #expect(object["zzzzzzzzzzzzzzzzzzzzzz"] == nil)
    }

    @Test func collidingKeysStillFindTheirFirstDuplicate() throws {
        var json = JSONKeyPatterns.object(.colliding, bytes: 64 * 1024)
        json.removeLast()
        let repeated = #","transact000007ion_date":"again"}"#
        json += Array(repeated.utf8)
        guard case .object(let object) = try AppleJSONParser.parse(json) else {
            Issue.record("not an object")
            return
        }
        #expect(object["transact000007ion_date"] == .number("7"))
        #expect(object.members.last?.value == .string("again"))
        do {
            _ = try AppleJSONParser.parse(json, rejectingDuplicateKeys: true)
            Issue.record("a repeated name was accepted in signed data")
        } catch {
            #expect(error.reason == .duplicateKey)
            #expect(error.offset == json.count - repeated.utf8.count + 2)
        }
    }

    @Test func manyCopiesOfOneKeyCostLinearStepsAndTheFirstCounts() throws {
        let copies = 20_000
        let json = Array(("{" + (0..<copies).map { "\"a\":\($0)" }.joined(separator: ",") + "}").utf8)
        let (value, steps) = try AppleJSONParser.parseCountingSteps(json)
        guard case .object(let object) = value else {
            Issue.record("not an object")
            return
        }
        #expect(object.members.count == copies)
        #expect(object["a"] == .number("0"))
        #expect(steps <= 4 * copies, "\(steps) steps for \(copies) copies")
        #expect(throws: AppleJSONSyntaxError.self) { try AppleJSONParser.parse(json, rejectingDuplicateKeys: true) }
    }

    @Test func aSignedPayloadOfCollidingKeysIsReadAsBefore() throws {
        var json = JSONKeyPatterns.object(.colliding, bytes: 32 * 1024)
        json.removeLast()
        json += Array(#","transactionId":"2000000001","bundleId":"com.example","signedDate":1790000000000}"#.utf8)
        let payload = try SignedPayload.decode(json, as: .transaction)
        guard case .transaction(let transaction) = payload else {
            Issue.record("not a transaction")
            return
        }
        #expect(transaction.transactionID == "2000000001")
        #expect(transaction.bundleID == "com.example")
    }
}
