/// A ZIP container written front to back (PKWARE APPNOTE 4.3): stored entries only, each local header
/// carrying its CRC-32 and sizes, then the central directory. The xlsx export's package.
///
/// No data descriptors: streaming readers (Java's `ZipInputStream`, and with it some spreadsheet
/// libraries) refuse a stored entry whose sizes follow its data, so an entry's checksum and size are
/// known before it is written (a large one is spooled first, `SpoolFile`). No compression: the
/// package must be readable, not small. No ZIP64: a container past 4 GiB is refused
/// (`Failure.tooLarge`), which a spreadsheet's row limit keeps far away. Every entry gets the same
/// fixed time stamp (1980-01-01 00:00, the format's epoch), so the same content gives the same bytes.
public struct ZipWriter {
    public enum Failure: Error, Equatable {
        /// The container would pass ZIP's 32-bit sizes and offsets (4 GiB) or 65 535 entries.
        case tooLarge
    }

    struct Entry {
        let name: [UInt8]
        let crc: UInt32
        let size: UInt32
        let offset: UInt32

        /// The fields a local header and a central directory record share, in their order: version
        /// needed, flags, method (stored), time, date, checksum, both sizes, the name's and the extra
        /// field's lengths.
        func appendSharedFields(to bytes: inout [UInt8]) {
            bytes.append(le16: ZipWriter.version)
            bytes.append(le16: 0)  // flags
            bytes.append(le16: 0)  // stored
            bytes.append(le16: ZipWriter.dosTime)
            bytes.append(le16: ZipWriter.dosDate)
            bytes.append(le32: crc)
            bytes.append(le32: size)  // compressed
            bytes.append(le32: size)
            bytes.append(le16: UInt16(name.count))
            bytes.append(le16: 0)  // extra field
        }
    }

    /// 1980-01-01 00:00 in MS-DOS date and time fields.
    static let dosDate: UInt16 = (1 << 5) | 1
    static let dosTime: UInt16 = 0
    /// 2.0: what a reader needs for stored entries in directories.
    static let version: UInt16 = 20

    private let sink: ([UInt8]) throws -> Void
    private var entries: [Entry] = []
    /// Bytes written so far: where the next record starts.
    private var offset: UInt64 = 0

    /// - Parameter sink: receives the container's bytes in order.
    public init(sink: @escaping ([UInt8]) throws -> Void) {
        self.sink = sink
    }

    /// One entry whose bytes are in memory.
    public mutating func add(_ name: String, _ bytes: [UInt8]) throws {
        try add(name, crc: CRC32.checksum(bytes), size: UInt64(bytes.count)) { write in try write(bytes) }
    }

    /// One entry of `size` bytes with checksum `crc`, whose bytes `contents` passes to the function it is
    /// given, in order; it must pass exactly `size` bytes with that checksum (a `SpoolFile` replaying).
    public mutating func add(
        _ name: String, crc: UInt32, size: UInt64, contents: ((([UInt8]) throws -> Void) throws -> Void)
    ) throws {
        let nameBytes = Array(name.utf8)
        let header = UInt64(30 + nameBytes.count)
        guard entries.count < 0xFFFF, offset + header + size < 0xFFFF_FFFF else { throw Failure.tooLarge }
        let entry = Entry(name: nameBytes, crc: crc, size: UInt32(size), offset: UInt32(offset))
        var record: [UInt8] = []
        record.append(le32: 0x0403_4B50)
        entry.appendSharedFields(to: &record)
        record.append(contentsOf: nameBytes)
        try emit(record)
        var written: UInt64 = 0
        let sink = self.sink
        try contents { bytes in
            written += UInt64(bytes.count)
            try sink(bytes)
        }
        precondition(written == size, "a ZIP entry's contents differ in size from what its header says")
        offset += written
        entries.append(entry)
    }

    /// The central directory and its end record; nothing may be added afterwards.
    public mutating func finish() throws {
        let start = offset
        var directory: [UInt8] = []
        for entry in entries {
            directory.append(le32: 0x0201_4B50)
            directory.append(le16: Self.version)  // made by: MS-DOS attributes, 2.0
            entry.appendSharedFields(to: &directory)
            directory.append(le16: 0)  // comment
            directory.append(le16: 0)  // disk
            directory.append(le16: 0)  // internal attributes
            directory.append(le32: 0)  // external attributes
            directory.append(le32: entry.offset)
            directory.append(contentsOf: entry.name)
        }
        let size = directory.count
        guard start + UInt64(size) + 22 < 0xFFFF_FFFF else { throw Failure.tooLarge }
        directory.append(le32: 0x0605_4B50)
        directory.append(le16: 0)  // this disk
        directory.append(le16: 0)  // the directory's disk
        directory.append(le16: UInt16(entries.count))
        directory.append(le16: UInt16(entries.count))
        directory.append(le32: UInt32(size))
        directory.append(le32: UInt32(start))
        directory.append(le16: 0)  // comment
        try emit(directory)
    }

    private mutating func emit(_ bytes: [UInt8]) throws {
        try sink(bytes)
        offset += UInt64(bytes.count)
    }
}

extension [UInt8] {
    mutating func append(le16 value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }

    mutating func append(le32 value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }
}
