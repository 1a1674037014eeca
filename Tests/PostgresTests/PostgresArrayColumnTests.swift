import Foundation
import TestSupport
import Testing

@testable import Postgres

/// The writers' typed columns (`PostgresArrayColumn`) must send exactly what the row-of-values
/// insert sent: the same literal bytes for every value, and so the same rows, NULLs and types.
@Suite struct PostgresArrayColumnTests {
    static let hostileTexts: [String?] = [
        #"quote " backslash \ comma , braces {}"#, #"\""#, #"\\"#, "NULL", "null", "", " ", "{}", "{", "}", ",",
        "日本 👍 é", "line\nbreak\ttab\r", #"ends with \"#, "\"", "a\u{7F}b", String(repeating: "x\\\"", count: 300), nil,
    ]

    static let hostileDates: [Date?] = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -0.000_001),
        Date(timeIntervalSince1970: 1_732_233_600.123_456),
        Date(timeIntervalSince1970: 1_732_233_600.999_999_6),
        Date(timeIntervalSince1970: -62_135_596_800),  // 0001-01-01
        Date(timeIntervalSince1970: 253_402_300_799.999_999),  // 9999-12-31 23:59:59.999999
        Date(timeIntervalSince1970: 253_402_300_800),  // year 10000: the slow path
        Date(timeIntervalSince1970: -62_167_219_200 - 86_400),  // year -1: the slow path
        Date(timeIntervalSince1970: 951_782_400.5),  // 2000-02-29
        nil,
    ]

    /// What the row insert built for one column of these values.
    static func rowLiteral(_ values: [any PostgresEncodable]) -> [UInt8] {
        var literal = PostgresArrayLiteral()
        for value in values { literal.append(value.postgresBind.text) }
        return Array(literal.closed.utf8) + [0]
    }

    static func columnLiteral<Value: PostgresArrayElement>(_ values: [Value?]) -> [UInt8] {
        var column = PostgresArrayColumn<Value>("c", expectedCount: values.count)
        for value in values { column.append(value) }
        #expect(column.count == values.count)
        return column.cStringBytes
    }

    @Test func everyElementTypeBuildsTheRowInsertsLiteral() {
        #expect(Self.columnLiteral(Self.hostileTexts) == Self.rowLiteral(Self.hostileTexts))
        let int64s: [Int64?] = [0, 1, -1, 9, 10, -10, 42, Int64.min, Int64.max, nil, 1_000_000_000_000]
        #expect(Self.columnLiteral(int64s) == Self.rowLiteral(int64s))
        let ints: [Int?] = [0, -7, Int.min, Int.max, nil, 21_007]
        #expect(Self.columnLiteral(ints) == Self.rowLiteral(ints))
        let int32s: [Int32?] = [0, Int32.min, Int32.max, nil]
        #expect(Self.columnLiteral(int32s) == Self.rowLiteral(int32s))
        let bools: [Bool?] = [true, false, nil, true]
        #expect(Self.columnLiteral(bools) == Self.rowLiteral(bools))
        #expect(Self.columnLiteral(Self.hostileDates) == Self.rowLiteral(Self.hostileDates))
        // Edge shapes: no element, only NULLs.
        #expect(Self.columnLiteral([String?]()) == Array("{}".utf8) + [0])
        #expect(Self.columnLiteral([Int64?.none, nil]) == Array("{NULL,NULL}".utf8) + [0])
    }

    @Test func timestampBytesAreTheFormattedText() {
        for date in Self.hostileDates.compactMap({ $0 }) {
            var bytes: [UInt8] = Array("prefix".utf8)
            PostgresTimestamp.append(date, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == "prefix" + PostgresTimestamp.format(date))
        }
        #expect(
            PostgresTimestamp.format(Date(timeIntervalSince1970: 1_732_233_600.123_456))
                == "2024-11-22 00:00:00.123456+00")
        #expect(PostgresTimestamp.format(Date(timeIntervalSince1970: -0.000_001)) == "1969-12-31 23:59:59.999999+00")
    }

    /// The same table filled both ways holds the same rows, value for value and type for type.
    @Test func columnInsertWritesTheSameRowsAsTheRowInsert() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            for table in ["by_rows", "by_columns"] {
                try connection.execute(
                    """
                    CREATE TABLE \(unescaped: table) (id bigint PRIMARY KEY, t text, n int, b bigint, f boolean,
                        ts timestamptz, note text NOT NULL DEFAULT 'none')
                    """)
            }
            let count = max(Self.hostileTexts.count, Self.hostileDates.count)
            let texts: [String?] = (0..<count).map { Self.hostileTexts[$0 % Self.hostileTexts.count] }
            // Years before 1 have never had a text form PostgreSQL reads (both paths send the same bytes, above).
            let storable = Self.hostileDates.filter { ($0?.timeIntervalSince1970 ?? 0) >= -62_135_596_800 }
            let dates: [Date?] = (0..<count).map { storable[$0 % storable.count] }
            let ints: [Int?] = (0..<count).map { (i: Int) -> Int? in i % 5 == 4 ? nil : i * 7 - 20 }
            let bigints: [Int64?] = (0..<count).map { (i: Int) -> Int64? in i % 3 == 1 ? nil : Int64(i) * 1_000_000_007
            }
            let bools: [Bool?] = (0..<count).map { (i: Int) -> Bool? in i % 4 == 3 ? nil : i % 2 == 0 }
            let rows: [[any PostgresEncodable]] = (0..<count).map { i in
                [Int64(i), texts[i], ints[i], bigints[i], bools[i], dates[i]]
            }
            let names = ["id", "t", "n", "b", "f", "ts"]
            #expect(try connection.insert(into: "by_rows", columns: names, rows: rows) == count)

            var id = PostgresArrayColumn<Int64>("id")
            var t = PostgresArrayColumn<String>("t")
            var n = PostgresArrayColumn<Int>("n")
            var b = PostgresArrayColumn<Int64>("b")
            var f = PostgresArrayColumn<Bool>("f")
            var ts = PostgresArrayColumn<Date>("ts")
            for i in 0..<count {
                id.append(Int64(i))
                t.append(texts[i])
                n.append(ints[i])
                b.append(bigints[i])
                f.append(bools[i])
                ts.append(dates[i])
            }
            #expect(try connection.insert(into: "by_columns", columns: [id, t, n, b, f, ts]) == count)

            let select = "SELECT id, t, n, b, f, ts::text AS ts, note, pg_typeof(t)::text AS tt FROM "
            let byRows = try connection.query("\(unescaped: select) by_rows ORDER BY id")
            let byColumns = try connection.query("\(unescaped: select) by_columns ORDER BY id")
            #expect(byRows.count == count && byColumns.count == count)
            for (l, r) in zip(byRows, byColumns) {
                for name in ["t", "ts", "note", "tt"] {
                    #expect(try l.decode(name, as: String?.self) == r.decode(name, as: String?.self))
                }
                #expect(try l.decode("n", as: Int32?.self) == r.decode("n", as: Int32?.self))
                #expect(try l.decode("b", as: Int64?.self) == r.decode("b", as: Int64?.self))
                #expect(try l.decode("f", as: Bool?.self) == r.decode("f", as: Bool?.self))
            }
            #expect(try byColumns.map { try $0.decode("t", as: String?.self) } == texts)

            // The same statement for another row count, with the conflict clause applied per row.
            var id2 = PostgresArrayColumn<Int64>("id")
            var t2 = PostgresArrayColumn<String>("t")
            id2.append(0)
            t2.append("changed")
            id2.append(1000)
            t2.append(nil)
            #expect(
                try connection.insert(
                    into: "by_columns", columns: [id2, t2],
                    suffix: "ON CONFLICT (id) DO UPDATE SET t = EXCLUDED.t") == 2)
            #expect(
                try connection.query("SELECT t FROM by_columns WHERE id = 0").first!.decode("t", as: String.self)
                    == "changed")
        }
    }

    @Test func emptyColumnsWriteNothingAndUnequalColumnsAreRefused() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE sample (id bigint PRIMARY KEY, t text)")
            #expect(
                try connection.insert(
                    into: "sample",
                    columns: [
                        PostgresArrayColumn<Int64>("id"),
                        PostgresArrayColumn<String>("t"),
                    ]) == 0)
            var id = PostgresArrayColumn<Int64>("id")
            id.append(1)
            #expect(throws: PostgresError.self) {
                try connection.insert(into: "sample", columns: [id, PostgresArrayColumn<String>("t")])
            }
            #expect(try connection.query("SELECT count(*) AS n FROM sample").first!.decode("n", as: Int64.self) == 0)
        }
    }
}
