/// An error from PostgreSQL or from libpq.
///
/// `description` is what reaches logs and terminals: the SQLSTATE, the server's primary message and,
/// for connection failures, the target (`host=… port=… dbname=… user=…`). It never contains the
/// conninfo string as given nor a password: passwords are scrubbed from every libpq message before it
/// is stored here. The server's `detail` and `hint` can quote row values, so they are kept out of
/// `description` and shown only by `debugDescription`.
public struct PostgresError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Kind: String, Sendable {
        /// The conninfo string or URI could not be parsed. Its text is not repeated: it may hold a password.
        case invalidConnectionString
        /// The server could not be reached, refused the connection, or the connection was lost.
        case connection
        /// The server rejected a statement (see `sqlState`).
        case server
        /// A value the server sent could not be read as the requested Swift type.
        case decoding
        /// libpq reported something this wrapper does not expect (a bug, or a very old libpq).
        case client
    }

    public let kind: Kind
    /// Five-character SQLSTATE such as `23505`, when the server supplied one.
    public let sqlState: String?
    public let message: String
    public let detail: String?
    public let hint: String?
    /// The role the connection logged in as, for server errors: a permission error's advice names it
    /// in the GRANT to run.
    public let role: String?

    public init(
        kind: Kind, sqlState: String? = nil, message: String, detail: String? = nil, hint: String? = nil,
        role: String? = nil
    ) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
        self.role = role
    }

    /// True when the error means the session is gone: libpq lost the socket, SQLSTATE class 08, or the
    /// server ended the session or refuses new ones for now (57P01 a fast shutdown, a restart or
    /// `pg_terminate_backend`; 57P02 a crash of another backend; 57P03 starting up or shutting down).
    /// Retrying the statement on this connection is pointless; a new connection may succeed.
    public var isConnectionFailure: Bool {
        kind == .connection || (sqlState?.hasPrefix("08") ?? false)
            || ["57P01", "57P02", "57P03"].contains(sqlState ?? "")
    }

    /// True when the server is there but cannot take this work now: read-only (25006, a standby or
    /// `default_transaction_read_only`), out of disk or memory (class 53), or the session is gone.
    /// The job treats these as its database being unavailable (exit 69), not as its own bug.
    public var isUnavailable: Bool {
        isConnectionFailure || sqlState == "25006" || (sqlState?.hasPrefix("53") ?? false)
    }

    /// True when PostgreSQL rolled the transaction back for another's sake (40P01 a deadlock, 40001 a
    /// serialization failure): nothing of it was written, and running it again is the cure.
    public var isTransactionConflict: Bool { sqlState == "40P01" || sqlState == "40001" }

    public var description: String {
        switch kind {
        case .server:
            return "PostgreSQL error \(sqlState ?? "?????"): \(message)"
        case .invalidConnectionString, .connection, .decoding, .client:
            return message
        }
    }

    public var debugDescription: String {
        var text = description
        if let detail { text += " (detail: \(detail))" }
        if let hint { text += " (hint: \(hint))" }
        return text
    }
}

extension PostgresError {
    static func decoding(_ message: String) -> PostgresError {
        PostgresError(kind: .decoding, message: message)
    }
}
