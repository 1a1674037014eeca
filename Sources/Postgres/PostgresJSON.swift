/// A `jsonb` value carried as its JSON text.
public struct PostgresJSON: Sendable, Hashable, PostgresEncodable, PostgresDecodable {
    public var text: String

    public init(_ text: String) { self.text = text }

    public var postgresBind: PostgresBind { PostgresBind(text: text, typeOID: PostgresTypeOID.jsonb) }

    public static func decode(postgresText text: String?) throws -> PostgresJSON {
        PostgresJSON(try requireText(text))
    }
}
