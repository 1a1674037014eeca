import CivilTime
import Foundation
import Postgres
import TestSupport
import Testing

/// Every supported type goes to a real PostgreSQL and comes back unchanged.
@Suite struct PostgresTypeTests {
    @Test func everySupportedTypeRoundTripsIncludingNull() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.execute(
                """
                CREATE TABLE sample (t text, b bigint, i int, f boolean, d double precision,
                                     ts timestamptz, iv interval, j jsonb)
                """)
            let date = Date(timeIntervalSince1970: 1_732_233_600.123_456)
            let interval = CalendarDuration(months: 14, days: -3, microseconds: 3_723_500_001)
            let json = PostgresJSON(#"{"a": [1, 2.5, "x"], "b": null}"#)
            try connection.execute(
                """
                INSERT INTO sample VALUES (\("hello"), \(Int64.max), \(Int32.min), \(true), \(-0.1),
                                           \(date), \(interval), \(json))
                """)
            try connection.execute(
                """
                INSERT INTO sample VALUES (\(String?.none), \(Int64?.none), \(Int32?.none), \(Bool?.none),
                    \(Double?.none), \(Date?.none), \(CalendarDuration?.none), \(PostgresJSON?.none))
                """)
            let rows = try connection.query("SELECT * FROM sample ORDER BY t NULLS LAST")
            #expect(rows.count == 2)
            let full = rows[0]
            #expect(try full.decode("t") == "hello")
            #expect(try full.decode("b") == Int64.max)
            #expect(try full.decode("i") == Int32.min)
            #expect(try full.decode("f") == true)
            #expect(try full.decode("d") == -0.1)
            #expect(try full.decode("ts", as: Date.self).unixMicroseconds == date.unixMicroseconds)
            #expect(try full.decode("iv") == interval)
            let readJSON: PostgresJSON = try full.decode("j")
            let object = try JSONSerialization.jsonObject(with: Data(readJSON.text.utf8)) as? [String: Any]
            #expect((object?["a"] as? [Any])?.count == 3)

            let empty = rows[1]
            #expect(try empty.decode("t", as: String?.self) == nil)
            #expect(try empty.decode("b", as: Int64?.self) == nil)
            #expect(try empty.decode("i", as: Int32?.self) == nil)
            #expect(try empty.decode("f", as: Bool?.self) == nil)
            #expect(try empty.decode("d", as: Double?.self) == nil)
            #expect(try empty.decode("ts", as: Date?.self) == nil)
            #expect(try empty.decode("iv", as: CalendarDuration?.self) == nil)
            #expect(try empty.decode("j", as: PostgresJSON?.self) == nil)
            // NULL is not silently turned into a default value for a non-optional read.
            #expect(throws: PostgresError.self) { try empty.decode("b", as: Int64.self) }
        }
    }

    @Test func textArraysKeepEveryElementWhateverItHolds() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            let values = [
                "plain", "", "NULL", "with,comma", "{braces}", #"quote " and \ backslash"#, "  spaced  ",
                "unicode é 日本 👍", "tab\tnewline\n",
            ]
            let back: [String] = try connection.query(
                "SELECT v FROM unnest(\(values)) WITH ORDINALITY AS u(v, n) ORDER BY n"
            )
            .map { try $0.decode("v") }
            #expect(back == values)
            #expect(
                try connection.query("SELECT cardinality(\([String]())) AS n").first!.decode("n", as: Int64.self) == 0)
            // The form the writers use: membership through the index, not a hashed VALUES list.
            try connection.execute("CREATE TABLE members (id text PRIMARY KEY)")
            try connection.execute("INSERT INTO members SELECT unnest(\(values))")
            #expect(
                try connection.query(
                    "SELECT count(*) AS n FROM members WHERE id = ANY(\([values[3], values[5], "absent"]))"
                )
                .first!.decode("n", as: Int64.self) == 2)
        }
    }

    @Test func arrayInsertsKeepEveryValueAndReuseOnePreparedStatement() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.execute(
                "CREATE TABLE sample (id bigint PRIMARY KEY, t text, n int, f boolean, ts timestamptz)")
            let date = Date(timeIntervalSince1970: 1_732_233_600.123_456)
            let hostile = [#"quote " backslash \ comma , braces {}"#, "NULL", "", "日本 👍", "line\nbreak\ttab"]
            let rows: [[any PostgresEncodable]] =
                hostile.enumerated().map { index, text in
                    [Int64(index), text, Int32(index), index % 2 == 0, date]
                } + [[Int64(99), String?.none, Int32?.none, Bool?.none, Date?.none]]
            #expect(try connection.insert(into: "sample", columns: ["id", "t", "n", "f", "ts"], rows: rows) == 6)
            let back = try connection.query("SELECT id, t, n, f, ts FROM sample ORDER BY id")
            #expect(try back.prefix(5).map { try $0.decode("t", as: String.self) } == hostile)
            #expect(try back[4].decode("n", as: Int32.self) == 4 && back[4].decode("f", as: Bool.self) == true)
            #expect(try back[0].decode("ts", as: Date.self) == date)
            #expect(try back[5].decode("t", as: String?.self) == nil && back[5].decode("ts", as: Date?.self) == nil)

            // Another row count, the same statement: the conflict clause applies per row.
            let update: [[any PostgresEncodable]] = [
                [Int64(0), "changed", Int32(7), false, date], [Int64(100), "new", Int32(1), true, date],
            ]
            #expect(
                try connection.insert(
                    into: "sample", columns: ["id", "t", "n", "f", "ts"], rows: update,
                    suffix: "ON CONFLICT (id) DO UPDATE SET t = EXCLUDED.t") == 2)
            #expect(
                try connection.query("SELECT t FROM sample WHERE id = 0").first!.decode("t", as: String.self)
                    == "changed")
            #expect(try connection.query("SELECT count(*) AS n FROM sample").first!.decode("n", as: Int64.self) == 7)
            try connection.insert(
                into: "sample", columns: ["id", "t", "n", "f", "ts"], rows: [[Int64(200), "x", Int32(0), true, date]])
            // Three inserts, two statement texts: each prepared once on this connection.
            #expect(
                try connection.query("SELECT count(*) AS n FROM pg_prepared_statements").first!.decode(
                    "n", as: Int64.self) == 2)
            #expect(throws: PostgresError.self) {
                try connection.insert(into: "sample", columns: ["id", "t"], rows: [[Int64(5)]])
            }
        }
    }

    @Test func doublesKeepEveryBitAndSpecialValues() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            for value in [0.1 + 0.2, Double.pi, -1e-300, 1.7976931348623157e308, Double.infinity, -Double.infinity] {
                let back: Double = try connection.query("SELECT \(value)::float8 AS v").first!.decode("v")
                #expect(back == value)
            }
            let nan: Double = try connection.query("SELECT \(Double.nan)::float8 AS v").first!.decode("v")
            #expect(nan.isNaN)
        }
    }

    /// Zones with odd offsets, including historical local mean time with seconds in its offset.
    @Test(arguments: [
        "UTC", "Asia/Kathmandu", "America/St_Johns", "Pacific/Chatham", "Europe/Amsterdam", "America/Los_Angeles",
    ])
    func timestampsKeepMicrosecondsInAnySessionTimeZone(zone: String) throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.execute(PostgresQuery(unsafeSQL: "SET TimeZone = '\(zone)'"))
            let instants: [Int64] = [
                1_732_233_600_123_456,  // 2024-11-22, six fraction digits
                1_700_000_000_000_001,  // one microsecond past a whole second
                -3_786_825_600_000_000 + 7,  // 1850, when Amsterdam ran on LMT (+00:19:32)
                951_782_400_999_999,  // 2000-02-29, leap day
                0,
            ]
            for micros in instants {
                let date = Date(unixMicroseconds: micros)
                let row = try connection.query(
                    """
                    SELECT \(date)::timestamptz AS ts,
                           (extract(epoch FROM \(date)::timestamptz) * 1000000)::bigint AS server_micros
                    """
                ).first!
                // The server understood the bind exactly, and the session's rendering reads back exactly.
                #expect(try row.decode("server_micros") == micros)
                #expect(try row.decode("ts", as: Date.self).unixMicroseconds == micros)
            }
        }
    }

    @Test func unicodeTextIsStoredAndMeasuredAsCharacters() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            let samples = ["Zoë", "日本語のレシート", "שלום", "👩‍👩‍👧‍👦 family", "e\u{301}", "tab\tnew\nline\\back 'quote' \"dq\""]
            for text in samples {
                let row = try connection.query("SELECT \(text)::text AS t, char_length(\(text)::text) AS n").first!
                #expect(try row.decode("t") == text)
                #expect(try row.decode("n") == text.unicodeScalars.count)
            }
        }
    }

    @Test func tenMegabyteTextValueRoundTrips() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE big (v text)")
            let value = String(repeating: "MIIa0123456789+/", count: 625_000)  // 10,000,000 bytes of base64-ish text
            try connection.execute("INSERT INTO big VALUES (\(value))")
            let row = try connection.query("SELECT v, octet_length(v) AS n FROM big").first!
            #expect(try row.decode("n") == 10_000_000)
            #expect(try row.decode("v") == value)
        }
    }

    @Test func interpolatedValuesAreDataNeverSQL() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let hostile = "x'; DROP TABLE receipts; --"
            try connection.execute("INSERT INTO receipts (user_id, receipt_data) VALUES (\(hostile), \(hostile))")
            let count: Int = try connection.query("SELECT count(*) AS n FROM receipts WHERE user_id = \(hostile)")
                .first!.decode("n")
            #expect(count == 1)
        }
    }
}
