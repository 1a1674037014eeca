import AppStoreReceipts

/// What the simulator writes into an app receipt's opaque value (attribute 4), so that a receipt sent
/// to it leads straight back to the unit that issued it.
///
/// Apple's opaque value is 16 bytes of its own; ours are `RRSM`, a version, the kind, the unit index,
/// a slot, and a check tied to the world seed (a receipt of another seed is unknown, hence 21003).
/// Nothing else is trusted: the server rebuilds the receipt the tag names and compares bytes.
struct WorldReceiptTag: Sendable, Hashable {
    enum Kind: UInt8, Sendable {
        /// A receipt of `WorldUnit.receipts`; `slot` is its slot.
        case stored = 0
        /// A `latest_receipt` the simulator handed out; `slot` is the account.
        case latest = 1
    }

    static let magic: [UInt8] = Array("RRSM".utf8)

    var kind: Kind
    var unit: Int
    var slot: Int

    func bytes(seed: UInt64) -> [UInt8] {
        var bytes = Self.magic + [1, kind.rawValue]
        let unit32 = UInt32(truncatingIfNeeded: unit)
        bytes += [
            UInt8(unit32 >> 24), UInt8(truncatingIfNeeded: unit32 >> 16), UInt8(truncatingIfNeeded: unit32 >> 8),
            UInt8(truncatingIfNeeded: unit32),
        ]
        bytes += [UInt8(truncatingIfNeeded: slot), 0]
        let check = UInt32(truncatingIfNeeded: SplitMix64.mix(seed ^ UInt64(unit) &* 0x2545_F491_4F6C_DD1D))
        bytes += [
            UInt8(check >> 24), UInt8(truncatingIfNeeded: check >> 16), UInt8(truncatingIfNeeded: check >> 8),
            UInt8(truncatingIfNeeded: check),
        ]
        return bytes
    }

    /// Reads a tag written for `seed`; nil for anything else.
    init?(bytes: [UInt8], seed: UInt64) {
        guard bytes.count == 16, Array(bytes[0..<4]) == Self.magic, bytes[4] == 1, let kind = Kind(rawValue: bytes[5])
        else {
            return nil
        }
        let unit = Int(bytes[6]) << 24 | Int(bytes[7]) << 16 | Int(bytes[8]) << 8 | Int(bytes[9])
        self.init(kind: kind, unit: unit, slot: Int(bytes[10]))
        guard self.bytes(seed: seed) == bytes else { return nil }
    }

    init(kind: Kind, unit: Int, slot: Int) {
        self.kind = kind
        self.unit = unit
        self.slot = slot
    }
}
