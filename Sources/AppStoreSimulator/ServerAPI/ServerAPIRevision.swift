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
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        for byte in "\(unit)/\(account)/\(environment)?\(parameters.joined(separator: "&"))".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return SplitMix64.mix(hash)
    }

    /// The text handed to the client.
    var text: String {
        WorldUnit.base64URL(Array("rrsm1.\(offset).\(String(fingerprint, radix: 36))".utf8))
    }

    /// Reads a revision `text` made; nil for anything else.
    init?(text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: ".")
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
