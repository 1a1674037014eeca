/// CRC-32 as ZIP computes it (ISO 3309 / ITU-T V.42: reflected polynomial 0xEDB88320, initial and
/// final value 0xFFFFFFFF), streaming: the checksum of each entry of an xlsx export's ZIP container.
public struct CRC32: Sendable, Equatable {
    static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    private var state: UInt32 = 0xFFFF_FFFF

    public init() {}

    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        var state = self.state
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes { state = table[Int((state ^ UInt32(byte)) & 0xFF)] ^ (state >> 8) }
        }
        self.state = state
    }

    /// The checksum of everything updated so far; updating may go on afterwards.
    public var value: UInt32 { state ^ 0xFFFF_FFFF }

    public static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
