/// A `jsonb` value carried as its JSON text.
public struct PostgresJSON: Sendable, Hashable, PostgresEncodable, PostgresDecodable {
    public var text: String

    public init(_ text: String) { self.text = text }

    public var postgresBind: PostgresBind { PostgresBind(text: text, typeOID: PostgresTypeOID.jsonb) }

    public static func decode(postgresText text: String?) throws -> PostgresJSON {
        PostgresJSON(try requireText(text))
    }
}

extension PostgresJSON: PostgresArrayElement {
    public static var arrayElementType: String { "jsonb" }
    public static var typicalTextLength: Int { 200 }
    /// The JSON text, escaped as a string element is.
    @inlinable
    public func appendArrayElementText(to bytes: inout [UInt8]) { text.appendArrayElementText(to: &bytes) }
}

extension PostgresJSON: PostgresBinaryArrayElement {
    public static var elementOID: UInt32 { PostgresTypeOID.jsonb }
    public static var typicalBinaryLength: Int { 200 }
    /// `jsonb`'s send form: a version byte, 1, then the JSON text as it is (nothing escaped).
    @inlinable
    public func appendBinaryElement(to bytes: inout [UInt8]) {
        text.withContiguousUTF8 { utf8 in
            PostgresBinary.append(Int32(utf8.count + 1), to: &bytes)
            bytes.append(1)
            bytes.append(contentsOf: utf8)
        }
    }
}
