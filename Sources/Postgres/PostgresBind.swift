/// One query parameter in libpq's text format, with the type the server should read it as.
public struct PostgresBind: Sendable, Equatable {
    /// The text form, or `nil` for SQL NULL.
    public let text: String?
    /// The parameter's type OID; 0 lets the server infer it from context (used for strings, so that
    /// `$1` can stand for text, a bigint column or a `::jsonb` cast alike).
    public let typeOID: UInt32

    public init(text: String?, typeOID: UInt32) {
        self.text = text
        self.typeOID = typeOID
    }

    public static func null(typeOID: UInt32 = 0) -> PostgresBind {
        PostgresBind(text: nil, typeOID: typeOID)
    }
}

/// Well-known type OIDs (pg_type.h); the server's catalog never renumbers them.
public enum PostgresTypeOID {
    public static let unknown: UInt32 = 0
    public static let bool: UInt32 = 16
    public static let int8: UInt32 = 20
    public static let int4: UInt32 = 23
    public static let text: UInt32 = 25
    public static let textArray: UInt32 = 1009
    public static let float8: UInt32 = 701
    public static let timestamptz: UInt32 = 1184
    public static let interval: UInt32 = 1186
    public static let jsonb: UInt32 = 3802
}
