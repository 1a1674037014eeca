import Foundation
import TestSupport
import Testing

@testable import Reconciliation

/// The xlsx export's ZIP container: CRC-32 against the standard check values, the records' layout, and a
/// package read back by Python's zipfile and Info-ZIP's `unzip -t`, which check every entry's CRC.
@Suite struct ZipWriterTests {
    @Test(arguments: [
        ("", 0x0000_0000 as UInt32),
        ("a", 0xE8B7_BE43),
        ("123456789", 0xCBF4_3926),
        ("The quick brown fox jumps over the lazy dog", 0x414F_A339),
    ])
    func crc32MatchesCheckValues(input: String, crc: UInt32) {
        #expect(CRC32.checksum(Array(input.utf8)) == crc)
    }

    @Test func crc32StreamedInPiecesEqualsOneGo() {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var crc = CRC32()
        for chunk in stride(from: 0, to: bytes.count, by: 333) {
            crc.update(bytes[chunk..<min(chunk + 333, bytes.count)])
        }
        #expect(crc.value == CRC32.checksum(bytes))
    }

    static func zip(_ entries: [(String, [UInt8])]) throws -> [UInt8] {
        var output: [UInt8] = []
        var writer = ZipWriter { output.append(contentsOf: $0) }
        for (name, bytes) in entries { try writer.add(name, bytes) }
        try writer.finish()
        return output
    }

    @Test func localHeaderCarriesChecksumAndSizesAndNoDataDescriptor() throws {
        let bytes = try Self.zip([("a.txt", Array("hello".utf8))])
        func le16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func le32(_ at: Int) -> UInt32 { UInt32(le16(at)) | UInt32(le16(at + 2)) << 16 }
        #expect(le32(0) == 0x0403_4B50)
        #expect(le16(6) == 0)  // flags: no data descriptor (bit 3)
        #expect(le16(8) == 0)  // stored
        #expect(le32(14) == CRC32.checksum(Array("hello".utf8)))
        #expect(le32(18) == 5 && le32(22) == 5)
        #expect(Array(bytes[30..<35]) == Array("a.txt".utf8))
        #expect(Array(bytes[35..<40]) == Array("hello".utf8))
        #expect(le32(40) == 0x0201_4B50)
        let end = bytes.count - 22
        #expect(le32(end) == 0x0605_4B50)
        #expect(le16(end + 10) == 1)  // entries
        #expect(le32(end + 16) == 40)  // the central directory's offset
        #expect(le32(end + 12) == UInt32(end - 40))  // and size
    }

    @Test func theSameEntriesGiveTheSameBytes() throws {
        let entries = [("x/y.xml", Array("<y/>".utf8)), ("z", [])]
        #expect(try Self.zip(entries) == Self.zip(entries))
    }

    @Test func pythonAndUnzipReadEveryEntryBack() throws {
        let big = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let entries: [(String, [UInt8])] = [
            ("[Content_Types].xml", Array("<Types/>".utf8)), ("empty", []), ("dir/big.bin", big),
        ]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString).zip").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(try Self.zip(entries)).write(to: URL(fileURLWithPath: path))
        let script = """
            import hashlib, json, sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            print(json.dumps([[i.filename, i.compress_type, i.file_size, hashlib.sha256(z.read(i)).hexdigest()]
                              for i in z.infolist()]))
            """
        let python = try ChildProcess.run("/usr/bin/python3", ["-c", script, path])
        #expect(python.status == 0, "\(python.stderrText)")
        let listed = try JSONSerialization.jsonObject(with: python.stdout) as? [[Any]] ?? []
        #expect(listed.map { $0[0] as? String } == entries.map(\.0))
        #expect(listed.map { $0[1] as? Int } == [0, 0, 0])
        #expect(listed.map { $0[2] as? Int } == entries.map(\.1.count))
        #expect(listed.map { $0[3] as? String } == entries.map { SHA256.hex($0.1) })
        let unzip = try ChildProcess.run("/usr/bin/unzip", ["-t", path])
        #expect(unzip.status == 0, "\(unzip.stdoutText)")
        #expect(unzip.stdoutText.contains("No errors detected"))
    }

    @Test func anEntryPastFourGibibytesIsRefusedBeforeAnyByte() throws {
        var written = 0
        var writer = ZipWriter { written += $0.count }
        #expect(throws: ZipWriter.Failure.tooLarge) {
            try writer.add("sheet.xml", crc: 0, size: 0xFFFF_FFFF) { _ in Issue.record("contents asked for") }
        }
        #expect(written == 0)
    }
}
