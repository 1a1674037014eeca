import Foundation
import TestSupport
import Testing

@testable import Postgres

/// The writers' binary columns (`PostgresBinaryArrayColumn`) must store what the text literal
/// (`PostgresArrayColumn`) stored: the same values, NULLs and types, edge values included, and the
/// same refusals.
@Suite struct PostgresBinaryArrayColumnTests {
    static let texts = PostgresArrayColumnTests.hostileTexts
    /// The hostile instants PostgreSQL reads from the text form (years 1 to 10000).
    static let dates = PostgresArrayColumnTests.hostileDates.filter {
        ($0?.timeIntervalSince1970 ?? 0) >= -62_135_596_800
    }
    static let jsons: [PostgresJSON?] = [
        PostgresJSON(#"{"b":"quote \" backslash \\ 日本 👍","a":[1,2.50,null,true],"c":{}}"#),
        PostgresJSON(#""\\u0041 \\\"""#), PostgresJSON("[]"), PostgresJSON("1e400"), nil, PostgresJSON("null"),
    ]

    /// Fills `table` with one column per type, text literals or binary arrays, and returns its rows
    /// as the server prints them.
    static func roundTrip(_ connection: PostgresConnection, _ table: String, binary: Bool) throws -> [[String?]] {
        try connection.execute(
            """
            CREATE TABLE \(unescaped: table) (id bigint PRIMARY KEY, t text, n int, b bigint, i int, f boolean,
                ts timestamptz, j jsonb, note text NOT NULL DEFAULT 'none')
            """)
        let count = max(texts.count, dates.count, jsons.count)
        let ints: [Int?] = (0..<count).map { $0 % 5 == 4 ? nil : [0, -7, Int(Int32.max), Int(Int32.min)][$0 % 4] }
        let bigints: [Int64?] = (0..<count).map { $0 % 3 == 1 ? nil : [Int64.min, Int64.max, 0, -1][$0 % 4] }
        let int32s: [Int32?] = (0..<count).map { $0 % 6 == 5 ? nil : [Int32.min, Int32.max, 0, 1][$0 % 4] }
        let bools: [Bool?] = (0..<count).map { $0 % 4 == 3 ? nil : $0 % 2 == 0 }
        func column<Value: PostgresBinaryArrayElement>(_ name: String, _ values: [Value?]) -> any PostgresInsertColumn {
            if binary {
                var column = PostgresBinaryArrayColumn<Value>(name, expectedCount: count)
                for i in 0..<count { column.append(values[i % values.count]) }
                return column
            }
            var column = PostgresArrayColumn<Value>(name)
            for i in 0..<count { column.append(values[i % values.count]) }
            return column
        }
        let columns = [
            column("id", (0..<count).map { Int64($0) }), column("t", texts), column("n", ints), column("b", bigints),
            column("i", int32s), column("f", bools), column("ts", dates), column("j", jsons),
        ]
        #expect(try connection.insert(into: table, columns: columns) == count)
        let names = ["t", "n", "b", "i", "f", "ts", "j", "note", "tt", "tts"]
        return try connection.query(
            """
            SELECT t, n::text AS n, b::text AS b, i::text AS i, f::text AS f, (ts AT TIME ZONE 'UTC')::text AS ts, j::text AS j, note,
                pg_typeof(t)::text AS tt, pg_typeof(ts)::text AS tts
            FROM \(unescaped: table) ORDER BY id
            """
        ).map { row in try names.map { try row.decode($0, as: String?.self) } }
    }

    @Test func theBinaryColumnsStoreWhatTheTextLiteralsStored() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            let byText = try Self.roundTrip(connection, "by_text", binary: false)
            let byBinary = try Self.roundTrip(connection, "by_binary", binary: true)
            #expect(byText.count == max(Self.texts.count, Self.dates.count, Self.jsons.count))
            #expect(byBinary == byText)
            // The strings as they were, hostile bytes and all; the instants to the microsecond.
            #expect(byBinary.map { $0[0] } == (0..<byText.count).map { Self.texts[$0 % Self.texts.count] })
            #expect(byBinary.map { $0[5] }.contains("2024-11-22 00:00:00.123456"))
        }
    }

    @Test func anInstantBeforeYearOneIsRefusedAsTheTextFormIs() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE sample (id bigint PRIMARY KEY, ts timestamptz)")
            let yearMinusOne = Date(timeIntervalSince1970: -62_167_219_200 - 86_400)
            // A millisecond: a microsecond before year 1 is below a `Date`'s resolution there.
            let justBeforeYearOne = Date(timeIntervalSince1970: -62_135_596_800.001)
            let yearZero = Date(timeIntervalSince1970: -62_167_219_200)
            for date in [yearMinusOne, yearZero, justBeforeYearOne] {
                var id = PostgresArrayColumn<Int64>("id")
                var text = PostgresArrayColumn<Date>("ts")
                id.append(1)
                text.append(date)
                #expect(throws: PostgresError.self) { try connection.insert(into: "sample", columns: [id, text]) }
                var binaryID = PostgresBinaryArrayColumn<Int64>("id")
                var binary = PostgresBinaryArrayColumn<Date>("ts")
                binaryID.append(1)
                binary.append(date)
                #expect(throws: PostgresError.self) {
                    try connection.insert(into: "sample", columns: [binaryID, binary])
                }
            }
            #expect(try connection.query("SELECT count(*) AS n FROM sample").first!.decode("n", as: Int64.self) == 0)
        }
    }

    @Test func onlyNullsAndNoRowsAreWrittenAsTheTextFormIs() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE sample (id bigint PRIMARY KEY, t text, ts timestamptz)")
            #expect(
                try connection.insert(
                    into: "sample",
                    columns: [PostgresBinaryArrayColumn<Int64>("id"), PostgresBinaryArrayColumn<String>("t")]) == 0)
            var id = PostgresBinaryArrayColumn<Int64>("id")
            var t = PostgresBinaryArrayColumn<String>("t")
            var ts = PostgresBinaryArrayColumn<Date>("ts")
            for i in 1...3 {
                id.append(Int64(i))
                t.append(nil)
                ts.append(nil)
            }
            #expect(try connection.insert(into: "sample", columns: [id, t, ts]) == 3)
            let nulls = try connection.query("SELECT count(*) AS n FROM sample WHERE t IS NULL AND ts IS NULL")
            #expect(try nulls.first!.decode("n", as: Int64.self) == 3)
            // Unequal columns are refused before anything is sent.
            var short = PostgresBinaryArrayColumn<String>("t")
            short.append("x")
            #expect(throws: PostgresError.self) { try connection.insert(into: "sample", columns: [id, short]) }
        }
    }
}
