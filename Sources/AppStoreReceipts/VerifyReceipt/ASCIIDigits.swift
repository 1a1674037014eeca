/// The fixed-width numbers of the date texts this module reads (`2019-08-21`, `09:11:43`, `+0200`).
enum ASCIIDigits {
    /// Reads exactly `count` ASCII digits at `index`; nil if any byte is not a digit.
    static func number<C: RandomAccessCollection>(_ bytes: C, at index: C.Index, count: Int) -> Int?
    where C.Element == UInt8 {
        var value = 0
        var position = index
        for _ in 0..<count {
            guard position < bytes.endIndex else { return nil }
            let byte = bytes[position]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            position = bytes.index(after: position)
        }
        return value
    }
}
