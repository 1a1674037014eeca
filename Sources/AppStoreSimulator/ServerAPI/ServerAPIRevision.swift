import AppStoreReceipts
import Foundation

/// The `revision` of a transaction history page: opaque to clients, it encodes the position of the next
/// page and a fingerprint of the query it belongs to, so it is only valid for the same customer with the
/// same query parameters (Apple: "the same query parameters"; otherwise 4000005 InvalidRequestRevision).
struct ServerAPIRevision: Sendable, Hashable {
    /// How many transactions earlier pages delivered.
    var offset: Int
    var fingerprint: UInt64

    /// The fingerprint of a walk: the customer (unit and account, so any of their ids may be used), the
    /// environment and every query parameter except `revision`, in any order.
    static func fingerprint(unit: Int, account: Int, environment: String, query: String?) -> UInt64 {
        let parameters = (query ?? "").split(separator: "&").filter { !$0.hasPrefix("revision=") }.sorted()
        return SplitMix64.mix(FNV1a.hash("\(unit)/\(account)/\(environment)?\(parameters.joined(separator: "&"))".utf8))
    }

    /// The text handed to the client.
    var text: String {
        WorldUnit.base64URL(Array("rrsm1.\(offset).\(String(fingerprint, radix: 36))".utf8))
    }

    /// Reads a revision `text` made; nil for anything else.
    init?(text: String) {
        guard let bytes = WorldUnit.bytes(base64URL: text) else { return nil }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: ".")
        guard parts.count == 3, parts[0] == "rrsm1", let offset = Int(parts[1]), offset >= 0,
            let fingerprint = UInt64(parts[2], radix: 36)
        else { return nil }
        self.init(offset: offset, fingerprint: fingerprint)
    }

    init(offset: Int, fingerprint: UInt64) {
        self.offset = offset
        self.fingerprint = fingerprint
    }
}
