import Foundation

/// One column of an `INSERT … SELECT * FROM unnest(…)` (`PostgresConnection.insert(into:columns:suffix:)`),
/// built value by value straight into its array literal.
///
/// Why typed columns instead of rows of `any PostgresEncodable`: a batch writes thousands of
/// cells, and each existential cell cost a box, a `PostgresBind`, a `String` for its text and the
/// copy of that string into the literal. Here an integer, boolean or instant is formatted directly
/// into the literal's bytes, and the column's SQL type comes from `Value`, not from its first row.
///
/// The literal is byte for byte what `PostgresArrayLiteral.append(value.postgresBind.text)` makes,
/// so the server reads the same values, NULLs included.
public struct PostgresArrayColumn<Value: PostgresArrayElement> {
    public let name: String
    @usableFromInline var literal: PostgresArrayLiteral
    /// Values appended so far.
    public var count: Int { rows }
    @usableFromInline var rows: Int

    /// - Parameters:
    ///   - name: the column's name (SQL from this program's code, never data).
    ///   - expectedCount: rows the caller expects, to size the literal once.
    public init(_ name: String, expectedCount: Int = 0) {
        self.name = name
        rows = 0
        literal = PostgresArrayLiteral(capacity: 2 + expectedCount * (Value.typicalTextLength + 3))
    }

    // Inlinable so the writers' calls are specialized for their element types (no witness calls per cell).
    @inlinable
    public mutating func append(_ value: Value?) {
        guard let value else {
            rows += 1
            return literal.appendNull()
        }
        append(value)
    }

    /// `append(_:)` for a value that is never NULL: read where it is, where wrapping it in an
    /// `Optional` first copied it (for a string, a retain and a release per cell).
    @inlinable
    public mutating func append(_ value: Value) {
        rows += 1
        literal.appendQuoted { value.appendArrayElementText(to: &$0) }
    }
}

/// A column of any element type, for `insert(into:columns:suffix:)`.
public protocol PostgresInsertColumn {
    var name: String { get }
    var count: Int { get }
    /// The SQL element type of the array parameter (`bigint`, `text`, …).
    var elementType: String { get }
    /// The array parameter as libpq sends it.
    var parameter: PostgresParameter { get }
}

/// A statement parameter's bytes and format.
public struct PostgresParameter {
    /// The text, NUL-terminated for libpq; or the binary send form.
    public var bytes: [UInt8]
    public var isBinary: Bool
}

extension PostgresArrayColumn: PostgresInsertColumn {
    public var elementType: String { Value.arrayElementType }
    /// The closed literal's bytes, NUL-terminated for libpq.
    public var cStringBytes: [UInt8] { literal.closedCString }
    public var parameter: PostgresParameter { PostgresParameter(bytes: cStringBytes, isBinary: false) }
}

/// A Swift type whose values a `PostgresArrayColumn` holds: its SQL type, and its text form
/// (the same as its `postgresBind.text`) appended without an intermediate `String`.
public protocol PostgresArrayElement {
    static var arrayElementType: String { get }
    /// A guess at the text's usual length, to reserve a column's bytes once.
    static var typicalTextLength: Int { get }
    /// Appends the text form, escaped for a quoted array element (`"` and `\` preceded by `\`).
    func appendArrayElementText(to bytes: inout [UInt8])
}

extension String: PostgresArrayElement {
    public static var arrayElementType: String { "text" }
    public static var typicalTextLength: Int { 20 }
    @inlinable
    public func appendArrayElementText(to bytes: inout [UInt8]) {
        func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
            // Copied a run at a time, each escaped byte starting the next run: most values (ids, vocabulary
            // words) are one bulk copy, and the evidence's JSON, a quote every few bytes, is no byte loop.
            var runStart = 0
            for index in utf8.indices where utf8[index] == UInt8(ascii: "\"") || utf8[index] == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                bytes.append(UInt8(ascii: "\\"))
                runStart = index
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        withContiguousUTF8(appendEscaped)
    }
}

extension Int: PostgresArrayElement {
    public static var arrayElementType: String { "bigint" }
    public static var typicalTextLength: Int { 10 }
    @inlinable
    public func appendArrayElementText(to bytes: inout [UInt8]) { Int64(self).appendArrayElementText(to: &bytes) }
}

extension Int64: PostgresArrayElement {
    public static var arrayElementType: String { "bigint" }
    public static var typicalTextLength: Int { 10 }
    /// Decimal digits, as `String(self)` writes them.
    @inlinable
    public func appendArrayElementText(to bytes: inout [UInt8]) {
        if self < 0 { bytes.append(UInt8(ascii: "-")) }
        magnitude.appendDecimalDigits(to: &bytes)
    }
}

extension UInt64 {
    /// The decimal digits of `self`, as `String(self)` writes them, appended to `bytes` without a `String`
    /// (the writers' array literals, `CurrencyAmount`'s text).
    @inlinable
    public func appendDecimalDigits(to bytes: inout [UInt8]) {
        // Most significant digit first, so nothing is reversed in place afterwards: reversing
        // `bytes[start...]` went through a slice of the literal (a retain and a uniqueness check).
        // The largest power of ten not above the value is at most 10^19, inside UInt64.
        var unit: UInt64 = 1
        while self / unit >= 10 { unit *= 10 }
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(self / unit % 10))
            unit /= 10
        } while unit > 0
    }
}

extension Int32: PostgresArrayElement {
    public static var arrayElementType: String { "integer" }
    public static var typicalTextLength: Int { 6 }
    @inlinable
    public func appendArrayElementText(to bytes: inout [UInt8]) { Int64(self).appendArrayElementText(to: &bytes) }
}

extension Bool: PostgresArrayElement {
    public static var arrayElementType: String { "boolean" }
    public static var typicalTextLength: Int { 5 }
    @inlinable
    public func appendArrayElementText(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: self ? "true".utf8 : "false".utf8)
    }
}

extension Date: PostgresArrayElement {
    public static var arrayElementType: String { "timestamptz" }
    public static var typicalTextLength: Int { 29 }
    @inlinable
    public func appendArrayElementText(to bytes: inout [UInt8]) { PostgresTimestamp.append(self, to: &bytes) }
}
