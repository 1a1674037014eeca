/// What a trigger function's SQL touches, read from its source text: each relation it names and the
/// privileges its statements need there, so that the role the function runs as can be checked before
/// the job's first write fires it (`PrivilegeWalk`).
///
/// Pure, and a reading, not a parse: it finds `INSERT INTO`, `UPDATE … SET`, `DELETE FROM` and
/// `FROM`/`JOIN` in PL/pgSQL or SQL bodies, after removing comments and string literals. Names it finds
/// that are no relation (a record's field, a CTE) resolve to nothing and are dropped by the caller. SQL
/// built at run time (`EXECUTE`) cannot be read; `dynamic` says so, for a note.
public struct FunctionBodyScan: Sendable, Equatable {
    /// A relation as written: schema when qualified, name folded as PostgreSQL folds it.
    public struct Access: Sendable, Equatable {
        public var schema: String?
        public var name: String
        public var privileges: Set<String>

        public init(schema: String?, name: String, privileges: Set<String>) {
            self.schema = schema
            self.name = name
            self.privileges = privileges
        }
    }

    /// In order of first mention, one entry per relation.
    public var accesses: [Access]
    /// The body runs SQL built at run time (`EXECUTE …`), which this reading cannot see.
    public var dynamic: Bool

    public init(_ source: String) {
        var accesses: [Access] = []
        func add(_ qualified: (String?, String), _ privileges: Set<String>) {
            if let i = accesses.firstIndex(where: { $0.schema == qualified.0 && $0.name == qualified.1 }) {
                accesses[i].privileges.formUnion(privileges)
            } else {
                accesses.append(Access(schema: qualified.0, name: qualified.1, privileges: privileges))
            }
        }
        var dynamic = false
        for statement in Self.stripped(source).split(separator: ";") {
            let text = String(statement)
            let reads = text.contains(Self.wherePattern) || text.contains(Self.returningPattern)
            for match in text.matches(of: Self.insertPattern) {
                var privileges: Set<String> = ["INSERT"]
                if text.contains(Self.conflictUpdatePattern) { privileges.formUnion(["UPDATE", "SELECT"]) }
                if text.contains(Self.returningPattern) { privileges.insert("SELECT") }
                add(Self.name(match.output.1), privileges)
            }
            for match in text.matches(of: Self.updatePattern) where match.output.1.lowercased() != "set" {
                add(Self.name(match.output.1), reads ? ["UPDATE", "SELECT"] : ["UPDATE"])
            }
            for match in text.matches(of: Self.deletePattern) {
                add(Self.name(match.output.1), reads ? ["DELETE", "SELECT"] : ["DELETE"])
            }
            for match in text.matches(of: Self.readPattern) {
                // `IS DISTINCT FROM x`, `EXTRACT(… FROM x)` and `DELETE FROM x` name no relation read.
                let before = text[..<match.range.lowerBound].split(whereSeparator: \.isWhitespace).last?.lowercased()
                guard before != "distinct", before != "delete" else { continue }
                add(Self.name(match.output.2), ["SELECT"])
            }
            if text.contains(Self.executePattern) { dynamic = true }
        }
        self.accesses = accesses
        self.dynamic = dynamic
    }

    // A name: bare or "quoted", optionally schema-qualified.
    private static let identifier = #"(?:"[^"]+"|[A-Za-z_][A-Za-z0-9_$]*)"#
    private static let qualified = identifier + #"(?:\s*\.\s*"# + identifier + ")?"
    nonisolated(unsafe) static let insertPattern = try! Regex<(Substring, Substring)>(
        #"\bINSERT\s+INTO\s+("# + qualified + ")"
    ).ignoresCase()
    nonisolated(unsafe) static let updatePattern = try! Regex<(Substring, Substring)>(
        #"\bUPDATE\s+(?:ONLY\s+)?("# + qualified + #")\s+(?:(?:AS\s+)?[A-Za-z_][A-Za-z0-9_]*\s+)?SET\b"#
    ).ignoresCase()
    nonisolated(unsafe) static let deletePattern = try! Regex<(Substring, Substring)>(
        #"\bDELETE\s+FROM\s+(?:ONLY\s+)?("# + qualified + ")"
    ).ignoresCase()
    nonisolated(unsafe) static let readPattern = try! Regex<(Substring, Substring, Substring)>(
        #"\b(FROM|JOIN)\s+(?:ONLY\s+)?("# + qualified + #")(?![A-Za-z0-9_$."])(?!\s*\()"#
    ).ignoresCase()
    nonisolated(unsafe) static let conflictUpdatePattern = try! Regex(#"\bON\s+CONFLICT\b[\s\S]*\bDO\s+UPDATE\b"#)
        .ignoresCase()
    nonisolated(unsafe) static let wherePattern = try! Regex(#"\bWHERE\b"#).ignoresCase()
    nonisolated(unsafe) static let returningPattern = try! Regex(#"\bRETURNING\b"#).ignoresCase()
    nonisolated(unsafe) static let executePattern = try! Regex(#"\bEXECUTE\s+(?!FUNCTION\b|PROCEDURE\b)"#)
        .ignoresCase()

    /// `"My Schema".Tbl` → ("My Schema", "tbl").
    static func name(_ text: Substring) -> (String?, String) {
        var parts: [String] = []
        var current = ""
        var quoted = false
        for character in text {
            if character == "\"" {
                quoted.toggle()
            } else if character == ".", !quoted {
                parts.append(current)
                current = ""
            } else if quoted {
                current.append(character)
            } else if !character.isWhitespace {
                current += character.lowercased()
            }
        }
        parts.append(current)
        return parts.count == 2 ? (parts[0], parts[1]) : (nil, parts[0])
    }

    /// The source without comments and with every string literal (and dollar-quoted one) emptied: a word
    /// in a message or a `CASE … WHEN 'x'` is no statement.
    static func stripped(_ source: String) -> String {
        var out = ""
        var chars = Array(source)[...]
        while let c = chars.first {
            if c == "-", chars.dropFirst().first == "-" {
                chars = chars.drop { $0 != "\n" }
            } else if c == "/", chars.dropFirst().first == "*" {
                if let end = Self.find(["*", "/"], in: chars.dropFirst(2)) {
                    chars = chars[(end + 2)...]
                } else {
                    chars = []
                }
                out.append(" ")
            } else if c == "'" {
                var rest = chars.dropFirst()
                while let d = rest.first {
                    rest = rest.dropFirst()
                    if d == "'" {
                        if rest.first == "'" { rest = rest.dropFirst() } else { break }
                    }
                }
                chars = rest
                out.append("''")
            } else if c == "$", let tagEnd = chars.dropFirst().firstIndex(of: "$"),
                chars[chars.index(after: chars.startIndex)..<tagEnd].allSatisfy({ $0 == "_" || $0.isLetter })
            {
                let tag = Array(chars[chars.startIndex...tagEnd])
                if let end = Self.find(tag, in: chars[(tagEnd + 1)...]) {
                    chars = chars[(end + tag.count)...]
                } else {
                    chars = []
                }
                out.append("''")
            } else {
                out.append(c)
                chars = chars.dropFirst()
            }
        }
        return out
    }

    private static func find(_ needle: [Character], in haystack: ArraySlice<Character>) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var i = haystack.startIndex
        while i + needle.count <= haystack.endIndex {
            if haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
