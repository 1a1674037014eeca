import Foundation
import Postgres
import Reconciliation
import TestSupport
import Testing

/// The pure parts of the finance export: SHA-256 against FIPS vectors, RFC 4180 cell encoding with
/// the formula guard, and keyset paging across page boundaries.
@Suite struct ExportEncodingTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func sha256MatchesKnownVectors(input: String, digest: String) {
        #expect(SHA256.hex(Array(input.utf8)) == digest)
    }

    @Test func sha256OfAMillionAsStreamedInOddChunks() {
        var hasher = SHA256()
        var remaining = 1_000_000
        while remaining > 0 {
            let chunk = min(remaining, 777)
            hasher.update([UInt8](repeating: UInt8(ascii: "a"), count: chunk))
            remaining -= chunk
        }
        #expect(hasher.hexDigest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func aCopiedHasherGoesOnFromWhereTheOriginalWasWithoutDisturbingIt() {
        var original = SHA256()
        original.update(Array("ab".utf8))
        var copy = original
        original.update((0..<1).lazy.map { _ in UInt8(ascii: "c") })
        copy.update(Array("d".utf8))
        #expect(original.hexDigest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(copy.hexDigest() == "a52d159f262b2c6ddb724a61840befc36eb30c88877a4030b65cbe86298449c9")
    }

    @Test(arguments: [
        (CSVCell.null, ""),
        (.text(""), "\"\""),
        (.text("plain"), "plain"),
        (.text("a,b"), "\"a,b\""),
        (.text("say \"hi\""), "\"say \"\"hi\"\"\""),
        (.text("two\r\nlines"), "\"two\r\nlines\""),
        (.text("lf\nonly"), "\"lf\nonly\""),
        (.text("=SUM(A1:A2)"), "'=SUM(A1:A2)"),
        (.text("+1"), "'+1"),
        (.text("-1"), "'-1"),
        (.text("@cmd"), "'@cmd"),
        (.text("\tx"), "'\tx"),
        (.text("\rx"), "\"'\rx\""),
        (.text("=a,b"), "\"'=a,b\""),
        (.text("x=1"), "x=1"),
        (.text("ünïcødé 🧾"), "ünïcødé 🧾"),
        (.number("-42"), "-42"),
        (.boolean(true), "true"),
        (.boolean(false), "false"),
        (.instant("2026-01-01T00:00:00Z"), "2026-01-01T00:00:00Z"),
    ])
    func cellEncoding(cell: CSVCell, encoded: String) {
        #expect(CSVWriter.encode(cell) == encoded)
    }

    @Test func rowsEndInCRLF() {
        #expect(CSVWriter.row([.number("1"), .null, .text("")]) == "1,,\"\"\r\n")
        #expect(CSVWriter.header(["id", "kind"]) == "id,kind\r\n")
    }

    @Test func keysetPagesCoverEveryRowOnceInOrder() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            _ = try connection.execute(
                """
                INSERT INTO recon_runs (kind, status, dry_run, as_of) VALUES ('nightly', 'completed', false, now())
                """)
            // 7 flags, several sharing one instant: the id breaks ties, across pages of 2.
            for index in 0..<7 {
                let at = "2026-01-0\(1 + index / 3) 00:00:00+00"
                _ = try connection.execute(
                    """
                    INSERT INTO recon_flags (run_id, user_id, kind, detail, created_at)
                    VALUES (1, \("u\(index)"), 'refunded', NULL, \(at)::timestamptz)
                    """)
            }
            let from = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
            let to = from.addingTimeInterval(10 * 86_400)
            var paged = ""
            let count = try ReconciliationExport(view: .flags, from: from, to: to, pageSize: 2)
                .stream(from: connection) { paged += $0 }
            var whole = ""
            try ReconciliationExport(view: .flags, from: from, to: to).stream(from: connection) { whole += $0 }
            #expect(count == 7)
            #expect(paged == whole)
            let users = paged.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
                .map { $0.split(separator: ",", omittingEmptySubsequences: false)[3] }
            #expect(users == ["u0", "u1", "u2", "u3", "u4", "u5", "u6"])
        }
    }
}
