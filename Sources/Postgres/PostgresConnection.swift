import CLibPQ
import Foundation

/// One libpq connection.
///
/// Threading: libpq allows one thread at a time on a `PGconn`, so this class is deliberately not
/// `Sendable`. Give each thread of use (the lock holder, the reader, each writer) its own connection,
/// or let a serial queue own one.
///
/// The connection is closed (`PQfinish`) when the object is released; there is no `close()` that
/// could free it twice. A session-level advisory lock held here is released with it.
public final class PostgresConnection {
    let handle: OpaquePointer
    /// Where this connection points, without the password (for messages).
    public let target: String
    /// Secrets that must never appear in an error message (the password in effect).
    let secrets: [String]
    /// Seconds spent in libpq calls on this connection (round trips, server work, waits for locks):
    /// how long the owner waited on PostgreSQL, which the job reports per run.
    public private(set) var secondsWaited: Double = 0
    /// Statements prepared on this connection, by SQL text → name (`executePrepared`).
    private var preparedStatements: [String: String] = [:]

    /// Opens a connection.
    ///
    /// - Parameters:
    ///   - conninfo: a libpq conninfo string or `postgresql://` URI; `nil` or empty uses libpq's own
    ///     defaults (`PGHOST`, `PGDATABASE`, …).
    ///   - connectTimeout: seconds libpq waits for the server, unless the conninfo or `PGCONNECT_TIMEOUT`
    ///     sets its own.
    ///   - statementTimeout: the session's `statement_timeout`; `nil` keeps the server's setting.
    ///   - applicationName: shown in `pg_stat_activity`, so an operator can tell the job's sessions apart.
    /// - Throws: `PostgresError` of kind `.invalidConnectionString` or `.connection`; the message names
    ///   the host, port, database and user, never the password.
    public init(
        conninfo: String?,
        connectTimeout: Int = 10,
        statementTimeout: Duration? = .seconds(300),
        applicationName: String = "receipt-recon"
    ) throws {
        let text = conninfo ?? ""
        let given = text.isEmpty ? ConnectionString(options: [:]) : try ConnectionString(text)

        // Keywords processed in order: ours first, so that what the caller's conninfo says wins, then
        // the conninfo itself (expanded because expand_dbname is 1), then what this wrapper requires.
        var pairs: [(String, String)] = []
        if ProcessInfo.processInfo.environment["PGCONNECT_TIMEOUT"] == nil {
            pairs.append(("connect_timeout", String(connectTimeout)))
        }
        pairs.append(("application_name", applicationName))
        if !text.isEmpty { pairs.append(("dbname", text)) }
        pairs.append(("client_encoding", "UTF8"))

        let connection = Self.connect(pairs)
        let effective = Self.effectiveOptions(connection)
        target = ConnectionString(options: effective).safeDescription
        secrets = [given.options["password"], effective["password"], ProcessInfo.processInfo.environment["PGPASSWORD"]]
            .compactMap { $0 }.filter { !$0.isEmpty }

        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let reason = connection.map { Self.flatten(String(cString: PQerrorMessage($0))) } ?? "out of memory"
            if let connection { PQfinish(connection) }  // libpq requires this after a failed connect too
            throw PostgresError(
                kind: .connection,
                message: "cannot connect to PostgreSQL at \(target.isEmpty ? "libpq defaults" : target): "
                    + SecretScrubber.scrub(reason, secrets: secrets)
            )
        }
        handle = connection
        // libpq prints server notices ("relation … already exists, skipping") to stderr by default;
        // stderr is the job's log stream, one event per line, so they are dropped here.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        do {
            // Text formats this wrapper parses, whatever the server's defaults are.
            try execute("SET DateStyle = 'ISO, YMD'")
            try execute("SET IntervalStyle = 'iso_8601'")
            if let statementTimeout {
                let ms =
                    statementTimeout.components.seconds * 1000 + statementTimeout.components.attoseconds
                    / 1_000_000_000_000_000
                try execute(PostgresQuery(unsafeSQL: "SET statement_timeout = \(ms)"))
            }
            // No JIT compilation: the job's statements (index probes, the scans of one night's rows) run for
            // well under a second, and a plan costly enough to pass `jit_above_cost` (the end-of-run scans of a
            // large night) would spend a good part of that compiling first (docs/benchmarks.md). Through
            // `pg_settings`: a server before PostgreSQL 11 has no `jit` to set.
            try execute("SELECT set_config('jit', 'off', false) FROM pg_settings WHERE name = 'jit'")
        } catch {
            PQfinish(connection)
            throw error
        }
    }

    deinit {
        PQfinish(handle)
    }

    private static func connect(_ pairs: [(String, String)]) -> OpaquePointer? {
        let keywords = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer {
            for pointer in keywords { free(pointer) }
            for pointer in values { free(pointer) }
        }
        let keywordPointers = keywords.map { UnsafePointer($0) } + [nil]
        let valuePointers = values.map { UnsafePointer($0) } + [nil]
        return PQconnectdbParams(keywordPointers, valuePointers, 1)
    }

    private static func effectiveOptions(_ connection: OpaquePointer?) -> [String: String] {
        guard let connection, let options = PQconninfo(connection) else { return [:] }
        defer { PQconninfoFree(options) }
        return ConnectionString.options(of: options)
    }

    /// libpq messages span lines ("…failed: …\n\tIs the server running…"); logs want one line.
    static func flatten(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    /// The server's process id for this session (useful to cancel or inspect it).
    public var backendPID: Int32 { PQbackendPID(handle) }

    // MARK: - Queries

    /// Runs one statement with its parameters (`PQexecParams`, text format) and copies every row out.
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> PostgresRows {
        let result = try executeParams(query)
        defer { PQclear(result) }
        return try rows(of: result)
    }

    /// Runs one statement for its effect; returns the number of rows it affected.
    @discardableResult
    public func execute(_ query: PostgresQuery) throws -> Int {
        try self.query(query).affectedRows
    }

    /// Runs a script of several statements in one round trip (the simple query protocol: no parameters).
    /// For migration files; everything with values goes through `query` / `execute`.
    public func executeScript(_ sql: String) throws {
        guard let result = timed({ PQexec(handle, sql) }) else { throw connectionError() }
        defer { PQclear(result) }
        try check(result)
    }

    /// Runs `call` and adds its duration to `secondsWaited`.
    func timed<T>(_ call: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { secondsWaited += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        return try call()
    }

    /// Runs `sql` as a statement prepared on this connection at its first use, with text
    /// parameters whose types the SQL gives (`$1::bigint[]`); returns the rows affected.
    func executePrepared(sql: String, texts: [String?]) throws -> Int {
        let name = try prepare(sql, parameterCount: texts.count)
        let values = texts.map { text in text.map { strdup($0) } ?? nil }
        defer { for pointer in values { free(pointer) } }
        return try executePrepared(name: name, pointers: values.map { UnsafePointer($0) })
    }

    /// `executePrepared(sql:texts:)` for parameters already in libpq's form, none NULL: text
    /// NUL-terminated, or binary (`PostgresParameter.isBinary`). The bytes are lent to libpq where
    /// they are, with no copy.
    func executePrepared(sql: String, parameters: [PostgresParameter]) throws -> Int {
        let name = try prepare(sql, parameterCount: parameters.count)
        let lengths = parameters.map { Int32($0.bytes.count) }
        let formats = parameters.map { Int32($0.isBinary ? 1 : 0) }
        func lend(_ index: Int, _ pointers: inout [UnsafePointer<CChar>?]) throws -> Int {
            guard index < parameters.count else {
                return try executePrepared(name: name, pointers: pointers, lengths: lengths, formats: formats)
            }
            return try parameters[index].bytes.withUnsafeBufferPointer { buffer in
                try buffer.withMemoryRebound(to: CChar.self) { characters in
                    pointers.append(characters.baseAddress)
                    return try lend(index + 1, &pointers)
                }
            }
        }
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(parameters.count)
        return try lend(0, &pointers)
    }

    /// The name of `sql` prepared on this connection, preparing it the first time.
    private func prepare(_ sql: String, parameterCount: Int) throws -> String {
        if let known = preparedStatements[sql] { return known }
        let name = "receipt_recon_\(preparedStatements.count + 1)"
        guard let prepared = timed({ PQprepare(handle, name, sql, Int32(parameterCount), nil) }) else {
            throw connectionError()
        }
        defer { PQclear(prepared) }
        try check(prepared)
        preparedStatements[sql] = name
        return name
    }

    /// - Parameters:
    ///   - lengths, formats: per parameter, as `PQexecPrepared` takes them; nil: every one text.
    private func executePrepared(
        name: String, pointers: [UnsafePointer<CChar>?], lengths: [Int32]? = nil, formats: [Int32]? = nil
    ) throws -> Int {
        let result = timed {
            pointers.withUnsafeBufferPointer { values in
                withOptionalBuffer(lengths) { lengths in
                    withOptionalBuffer(formats) { formats in
                        PQexecPrepared(handle, name, Int32(pointers.count), values.baseAddress, lengths, formats, 0)
                    }
                }
            }
        }
        guard let result else { throw connectionError() }
        defer { PQclear(result) }
        try check(result)
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    private func executeParams(_ query: PostgresQuery) throws -> OpaquePointer {
        let count = query.binds.count
        // Each value is copied into memory owned for the whole call (PQexecParams reads it synchronously).
        let values = query.binds.map { bind in bind.text.map { strdup($0) } ?? nil }
        defer { for pointer in values { free(pointer) } }
        let types = query.binds.map { Oid($0.typeOID) }
        let pointers = values.map { UnsafePointer($0) }
        let result = timed {
            pointers.withUnsafeBufferPointer { valueBuffer in
                types.withUnsafeBufferPointer { typeBuffer in
                    PQexecParams(
                        handle, query.sql, Int32(count), typeBuffer.baseAddress, valueBuffer.baseAddress, nil, nil, 0)
                }
            }
        }
        guard let result else { throw connectionError() }
        do {
            try check(result)
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    /// Throws the server's error if `result` is not a success.
    func check(_ result: OpaquePointer) throws {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY, PGRES_COPY_IN:
            return
        default:
            throw serverError(result)
        }
    }

    func serverError(_ result: OpaquePointer) -> PostgresError {
        func field(_ code: Int32) -> String? {
            PQresultErrorField(result, code).map { SecretScrubber.scrub(String(cString: $0), secrets: secrets) }
        }
        guard let sqlState = field(CLibPQ_DIAG_SQLSTATE) else {
            // No SQLSTATE: libpq itself failed, usually because the connection dropped mid-statement.
            let message = Self.flatten(String(cString: PQresultErrorMessage(result)))
            return connectionError(fallback: message)
        }
        return PostgresError(
            kind: .server,
            sqlState: sqlState,
            message: field(CLibPQ_DIAG_MESSAGE_PRIMARY) ?? "unknown error",
            detail: field(CLibPQ_DIAG_MESSAGE_DETAIL),
            hint: field(CLibPQ_DIAG_MESSAGE_HINT),
            role: PQuser(handle).map { String(cString: $0) }
        )
    }

    func connectionError(fallback: String? = nil) -> PostgresError {
        var reason = Self.flatten(String(cString: PQerrorMessage(handle)))
        if reason.isEmpty { reason = fallback ?? "no answer" }
        return PostgresError(
            kind: PQstatus(handle) == CONNECTION_OK ? .client : .connection,
            message: "PostgreSQL at \(target): \(SecretScrubber.scrub(reason, secrets: secrets))"
        )
    }

    private func rows(of result: OpaquePointer) throws -> PostgresRows {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let names = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        let index = ColumnIndex(names: names)
        var rows: [PostgresRow] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    let length = Int(PQgetlength(result, Int32(row), Int32(column)))
                    let bytes = UnsafeRawPointer(PQgetvalue(result, Int32(row), Int32(column))!)
                    values.append(String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self))
                }
            }
            rows.append(PostgresRow(columnIndex: index, values: values))
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return PostgresRows(columns: names, rows: rows, affectedRows: affected)
    }
}

/// `body` with the base address of `array`'s elements, or nil without an array.
private func withOptionalBuffer<R>(_ array: [Int32]?, _ body: (UnsafePointer<Int32>?) -> R) -> R {
    guard let array else { return body(nil) }
    return array.withUnsafeBufferPointer { body($0.baseAddress) }
}
