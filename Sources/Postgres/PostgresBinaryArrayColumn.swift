import CivilTime
import Foundation

/// One column of an `INSERT … SELECT * FROM unnest(…)` sent in PostgreSQL's binary array format: a
/// header, then each element as its length and its binary send form (a NULL as length −1).
///
/// Why binary: a text literal costs every cell its formatting and escaping here and its parsing on
/// the server (digits, an instant's calendar fields, a scan of every string for `"` and `\`); the
/// binary form of a string is its bytes, of an integer or an instant its 8 bytes. The server stores
/// the same values as it does from `PostgresArrayColumn`'s literal (`PostgresBinaryArrayColumnTests`).
public struct PostgresBinaryArrayColumn<Value: PostgresBinaryArrayElement> {
    public let name: String
    /// The header's room, then the elements; the header is filled in by `parameter`.
    @usableFromInline var bytes: [UInt8]
    @usableFromInline var rows: Int
    @usableFromInline var hasNulls: Bool
    public var count: Int { rows }

    /// `ndim`, `flags`, element type, then the one dimension's size and lower bound.
    @usableFromInline static var headerSize: Int { 20 }

    /// - Parameters:
    ///   - name: the column's name (SQL from this program's code, never data).
    ///   - expectedCount: rows the caller expects, to size the bytes once.
    public init(_ name: String, expectedCount: Int = 0) {
        self.name = name
        rows = 0
        hasNulls = false
        bytes = []
        bytes.reserveCapacity(Self.headerSize + expectedCount * (Value.typicalBinaryLength + 4))
        bytes.append(contentsOf: repeatElement(0, count: Self.headerSize))
    }

    // Inlinable so the writers' calls are specialized for their element types (no witness calls per cell).
    @inlinable
    public mutating func append(_ value: Value?) {
        guard let value else {
            rows += 1
            hasNulls = true
            return PostgresBinary.append(Int32(-1), to: &bytes)
        }
        append(value)
    }

    /// `append(_:)` for a value that is never NULL, read where it is (no `Optional` copy of it).
    @inlinable
    public mutating func append(_ value: Value) {
        rows += 1
        value.appendBinaryElement(to: &bytes)
    }

    /// The array's send form: the header for `rows` elements, then the elements.
    var sendForm: [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(Self.headerSize)
        PostgresBinary.append(Int32(1), to: &header)
        PostgresBinary.append(Int32(hasNulls ? 1 : 0), to: &header)
        PostgresBinary.append(Int32(bitPattern: Value.elementOID), to: &header)
        PostgresBinary.append(Int32(rows), to: &header)
        PostgresBinary.append(Int32(1), to: &header)
        var form = bytes
        form.replaceSubrange(0..<Self.headerSize, with: header)
        return form
    }
}

extension PostgresBinaryArrayColumn: PostgresInsertColumn {
    public var elementType: String { Value.arrayElementType }
    public var parameter: PostgresParameter { PostgresParameter(bytes: sendForm, isBinary: true) }
}

/// A Swift type a `PostgresBinaryArrayColumn` holds: its SQL type's OID and its binary send form.
public protocol PostgresBinaryArrayElement: PostgresArrayElement {
    /// The OID of `arrayElementType`: the server refuses an array whose header names another type.
    static var elementOID: UInt32 { get }
    /// A guess at the send form's usual length, to reserve a column's bytes once.
    static var typicalBinaryLength: Int { get }
    /// Appends the element's length (a big-endian `Int32`) and its send form.
    func appendBinaryElement(to bytes: inout [UInt8])
}

/// Big-endian integers appended to a send form.
public enum PostgresBinary {
    @inlinable
    public static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { raw in
            bytes.append(contentsOf: raw.assumingMemoryBound(to: UInt8.self))
        }
    }
}

extension String: PostgresBinaryArrayElement {
    public static var elementOID: UInt32 { PostgresTypeOID.text }
    public static var typicalBinaryLength: Int { 20 }
    /// The UTF-8 bytes as they are: nothing is escaped in the binary form.
    @inlinable
    public func appendBinaryElement(to bytes: inout [UInt8]) {
        withContiguousUTF8 { utf8 in
            PostgresBinary.append(Int32(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }
}

extension Int64: PostgresBinaryArrayElement {
    public static var elementOID: UInt32 { PostgresTypeOID.int8 }
    public static var typicalBinaryLength: Int { 8 }
    @inlinable
    public func appendBinaryElement(to bytes: inout [UInt8]) {
        PostgresBinary.append(Int32(8), to: &bytes)
        PostgresBinary.append(self, to: &bytes)
    }
}

extension Int: PostgresBinaryArrayElement {
    public static var elementOID: UInt32 { PostgresTypeOID.int8 }
    public static var typicalBinaryLength: Int { 8 }
    @inlinable
    public func appendBinaryElement(to bytes: inout [UInt8]) { Int64(self).appendBinaryElement(to: &bytes) }
}

extension Int32: PostgresBinaryArrayElement {
    public static var elementOID: UInt32 { PostgresTypeOID.int4 }
    public static var typicalBinaryLength: Int { 4 }
    @inlinable
    public func appendBinaryElement(to bytes: inout [UInt8]) {
        PostgresBinary.append(Int32(4), to: &bytes)
        PostgresBinary.append(self, to: &bytes)
    }
}

extension Bool: PostgresBinaryArrayElement {
    public static var elementOID: UInt32 { PostgresTypeOID.bool }
    public static var typicalBinaryLength: Int { 1 }
    @inlinable
    public func appendBinaryElement(to bytes: inout [UInt8]) {
        PostgresBinary.append(Int32(1), to: &bytes)
        bytes.append(self ? 1 : 0)
    }
}

extension Date: PostgresBinaryArrayElement {
    public static var elementOID: UInt32 { PostgresTypeOID.timestamptz }
    public static var typicalBinaryLength: Int { 8 }

    /// 2000-01-01T00:00:00Z, the origin of `timestamptz`'s send form, in Unix microseconds.
    @usableFromInline static var postgresEpochUnixMicroseconds: Int64 { 946_684_800_000_000 }
    /// 0001-01-01T00:00:00Z: the text form of an earlier instant (`PostgresTimestamp.format`, a year 0
    /// or a negative year) is no date PostgreSQL reads, so such an instant is refused here too, not
    /// stored as a date BC.
    @usableFromInline static var firstWritableUnixMicroseconds: Int64 { -62_135_596_800_000_000 }

    /// Microseconds since 2000 (the same rounding as the text form's), big-endian.
    @inlinable
    public func appendBinaryElement(to bytes: inout [UInt8]) {
        let micros = unixMicroseconds
        PostgresBinary.append(Int32(8), to: &bytes)
        // Below `timestamptz`'s range and not its -infinity (`Int64.min`): the server refuses it.
        let refused = Int64.min + 1
        PostgresBinary.append(
            micros < Self.firstWritableUnixMicroseconds ? refused : micros - Self.postgresEpochUnixMicroseconds,
            to: &bytes)
    }
}
