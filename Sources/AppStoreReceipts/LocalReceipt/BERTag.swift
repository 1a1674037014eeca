/// The identifier octets of a BER element: class, primitive/constructed, tag number.
struct BERTag: Hashable, Sendable {
    enum TagClass: UInt8, Sendable {
        case universal = 0
        case application = 1
        case contextSpecific = 2
        case `private` = 3
    }

    var tagClass: TagClass
    var isConstructed: Bool
    var number: UInt32

    static func universal(_ number: UInt32, constructed: Bool = false) -> BERTag {
        BERTag(tagClass: .universal, isConstructed: constructed, number: number)
    }

    static func contextSpecific(_ number: UInt32, constructed: Bool = true) -> BERTag {
        BERTag(tagClass: .contextSpecific, isConstructed: constructed, number: number)
    }

    // Universal tag numbers the receipt format uses.
    static let integerNumber: UInt32 = 2
    static let octetStringNumber: UInt32 = 4
    static let nullNumber: UInt32 = 5
    static let objectIdentifierNumber: UInt32 = 6
    static let utf8StringNumber: UInt32 = 12
    static let sequenceNumber: UInt32 = 16
    static let setNumber: UInt32 = 17
    static let printableStringNumber: UInt32 = 19
    static let ia5StringNumber: UInt32 = 22
    static let visibleStringNumber: UInt32 = 26

    static let integer = universal(integerNumber)
    static let null = universal(nullNumber)
    static let objectIdentifier = universal(objectIdentifierNumber)
    static let sequence = universal(sequenceNumber, constructed: true)
    static let set = universal(setNumber, constructed: true)
    static let utf8String = universal(utf8StringNumber)
    static let ia5String = universal(ia5StringNumber)

    func isUniversal(_ number: UInt32) -> Bool {
        tagClass == .universal && self.number == number
    }

    /// The identifier octets, in low-tag-number form below 31 and high-tag-number form above.
    var encoded: [UInt8] {
        let leading = tagClass.rawValue << 6 | (isConstructed ? 0x20 : 0)
        guard number >= 0x1F else { return [leading | UInt8(number)] }
        var septets: [UInt8] = []
        var rest = number
        repeat {
            septets.append(UInt8(rest & 0x7F))
            rest >>= 7
        } while rest > 0
        var octets = [leading | 0x1F]
        for (index, septet) in septets.reversed().enumerated() {
            octets.append(index == septets.count - 1 ? septet : septet | 0x80)
        }
        return octets
    }
}
