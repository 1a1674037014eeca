import Foundation
import Reconciliation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every file the job writes goes through `OutputFile`; these tests write real files, devices, FIFOs
/// and symlinks in a temporary directory and look at what is left there afterwards.
@Suite struct OutputFileTests {
    /// A fresh directory, removed afterwards.
    static func inDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory.path)
    }

    static func lstatInfo(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    static func kind(_ path: String) -> mode_t? { lstatInfo(path).map { $0.st_mode & S_IFMT } }

    /// Major 1, minor 3: the device `/dev/null` is (glibc's `makedev` is a macro Swift cannot call).
    static let nullDevice: dev_t = (1 << 8) | 3

    static func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    static func listing(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    @Test func regularFileIsReplacedByRename() throws {
        try Self.inDirectory { directory in
            let path = directory + "/report.html"
            try OutputFile.write("old page", to: path)
            let before = try #require(Self.lstatInfo(path))
            // A reader that opened the old file keeps reading the old page to its end.
            let reader = try #require(FileHandle(forReadingAtPath: path))
            defer { try? reader.close() }

            try OutputFile.write("new page", to: path)

            #expect(try Self.read(path) == "new page")
            #expect(String(decoding: try reader.readToEnd() ?? Data(), as: UTF8.self) == "old page")
            #expect(Self.lstatInfo(path)?.st_ino != before.st_ino, "the file was rewritten in place, not renamed")
            #expect(try Self.listing(directory) == ["report.html"])
        }
    }

    @Test func streamedWritesAppearOnlyAtCommit() throws {
        try Self.inDirectory { directory in
            let path = directory + "/export.csv"
            try OutputFile.write("old\r\n", to: path)
            let file = try OutputFile(path)
            for row in 0..<1_000 { try file.write("row \(row)\r\n") }
            #expect(try Self.read(path) == "old\r\n")
            #expect(file.replacesFile)
            try file.commit()
            let lines = try Self.read(path).components(separatedBy: "\r\n")
            #expect(lines.count == 1_001 && lines[999] == "row 999")
            #expect(try Self.listing(directory) == ["export.csv"])
        }
    }

    /// `/dev/null` itself: run as root, a rename over it would have replaced the machine's `/dev/null`.
    @Test func devNullStaysACharacterDevice() throws {
        try OutputFile.write(
            HTMLReport.render(ReportFixtures.summary(), history: [ReportFixtures.summary()]), to: "/dev/null")
        try OutputFile.write(
            PrometheusMetrics.render(
                PrometheusMetrics.RunEnd(
                    summary: ReportFixtures.summary(), exitCode: .someUnverified, version: "0.1.0",
                    backend: "verify-receipt"),
                lastSuccess: nil),
            to: "/dev/null")
        let info = try #require(Self.lstatInfo("/dev/null"))
        #expect(info.st_mode & S_IFMT == S_IFCHR)
        #expect(FileHandle(forReadingAtPath: "/dev/null")?.readDataToEndOfFile().isEmpty == true)
    }

    /// A node of the same device in a directory of our own, so that the rule can be seen to hold (and,
    /// were it broken, to fail) without putting the machine's `/dev/null` at stake. Needs root.
    @Test(.enabled(if: getuid() == 0, "mknod needs root"))
    func characterDeviceIsWrittenThrough() throws {
        try Self.inDirectory { directory in
            let path = directory + "/null"
            try #require(
                mknod(path, S_IFCHR | 0o666, Self.nullDevice) == 0, "mknod: \(String(cString: strerror(errno)))")
            let file = try OutputFile(path)
            #expect(!file.replacesFile)
            try file.write("a page nobody keeps")
            try file.commit()
            let info = try #require(Self.lstatInfo(path))
            #expect(info.st_mode & S_IFMT == S_IFCHR && info.st_rdev == Self.nullDevice)
            #expect(try Self.listing(directory) == ["null"])
        }
    }

    @Test func fifoGetsTheBytesAndStaysAFifo() throws {
        try Self.inDirectory { directory in
            let path = directory + "/metrics.fifo"
            try #require(mkfifo(path, 0o600) == 0)
            let received = ReceivedBytes()
            let reader = Thread {
                received.set(FileHandle(forReadingAtPath: path)?.readDataToEndOfFile() ?? Data())
            }
            reader.start()
            // More than a pipe's buffer holds, so the writer really waits on the reader.
            let text = String(repeating: "receipt_recon_last_run_exit_code 0\n", count: 5_000)
            try OutputFile.write(text, to: path)
            let bytes = try #require(received.wait(seconds: 30), "the reader got nothing")
            #expect(String(decoding: bytes, as: UTF8.self) == text)
            #expect(Self.kind(path) == S_IFIFO)
            #expect(try Self.listing(directory) == ["metrics.fifo"])
        }
    }

    @Test func directoryIsRefusedByName() throws {
        try Self.inDirectory { (directory: String) throws in
            let error = #expect(throws: OutputFile.Failure.self) { try OutputFile.write("page", to: directory) }
            let message = error.map(\.description)
            #expect(message == "cannot write '\(directory)': it is a directory; give a file path")
            #expect(try Self.listing(directory).isEmpty)
            #expect(throws: OutputFile.Failure.self) { try OutputFile.checkWritable(directory) }
        }
    }

    @Test func symlinkKeepsPointingAtTheReplacedTarget() throws {
        try Self.inDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory + "/real", withIntermediateDirectories: false)
            let target = directory + "/real/report.html"
            try OutputFile.write("old", to: target)
            let link = directory + "/latest.html"
            try #require(symlink("real/report.html", link) == 0)
            let before = try #require(Self.lstatInfo(target))

            try OutputFile.write("new", to: link)

            #expect(Self.kind(link) == S_IFLNK)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real/report.html")
            #expect(try Self.read(target) == "new")
            #expect(Self.lstatInfo(target)?.st_ino != before.st_ino, "the target was rewritten in place")
            #expect(try Self.listing(directory) == ["latest.html", "real"])
            #expect(try Self.listing(directory + "/real") == ["report.html"])
        }
    }

    @Test func danglingSymlinkCreatesItsTarget() throws {
        try Self.inDirectory { directory in
            let link = directory + "/metrics.prom"
            try #require(symlink(directory + "/collector.prom", link) == 0)
            try OutputFile.write("receipt_recon_up 1\n", to: link)
            #expect(Self.kind(link) == S_IFLNK)
            #expect(Self.kind(directory + "/collector.prom") == S_IFREG)
            #expect(try Self.read(link) == "receipt_recon_up 1\n")
        }
    }

    @Test func missingDirectoryFailsWithItsName() throws {
        try Self.inDirectory { (directory: String) throws in
            let path = directory + "/missing/report.html"
            let error = #expect(throws: OutputFile.Failure.self) { try OutputFile.write("page", to: path) }
            #expect(error?.path == path)
            let message = error.map(\.description) ?? ""
            #expect(message.contains("'\(directory)/missing': No such file or directory"))
            #expect(try Self.listing(directory).isEmpty)
            #expect(throws: OutputFile.Failure.self) { try OutputFile.checkWritable(path) }
        }
    }

    /// The export's shape: rows are streamed, then the source fails (a dropped database connection).
    @Test func failureMidStreamLeavesTheOldFileAndNoTemporary() throws {
        struct ConnectionLost: Error {}
        try Self.inDirectory { directory in
            let path = directory + "/export.csv"
            try OutputFile.write("old\r\n", to: path)
            func export() throws {
                let file = try OutputFile(path)
                defer { file.discard() }
                for row in 0..<500 { try file.write("row \(row)\r\n") }
                throw ConnectionLost()
            }
            #expect(throws: ConnectionLost.self) { try export() }
            #expect(try Self.read(path) == "old\r\n")
            #expect(try Self.listing(directory) == ["export.csv"])

            // Dropped without commit or discard: the temporary file goes with it.
            do {
                let file = try OutputFile(path)
                try file.write("half")
            }
            #expect(try Self.listing(directory) == ["export.csv"])
        }
    }

    /// A disk that fills up mid-write: a 64 KiB tmpfs, which needs root (CI runs as root). Elsewhere the
    /// test says so and checks nothing.
    @Test func fullDiskLeavesTheOldFileAndNoTemporary() throws {
        try Self.inDirectory { directory in
            guard let mount = try TinyFilesystem(at: directory) else {
                print("OutputFileTests: cannot mount a tmpfs here (not root?); the disk-full case is not checked")
                return
            }
            defer { mount.unmount() }
            let path = directory + "/export.csv"
            try OutputFile.write("old\r\n", to: path)
            let error = #expect(throws: OutputFile.Failure.self) {
                try OutputFile.write(Data(repeating: 0x41, count: 1 << 20), to: path)
            }
            #expect(error?.description == "cannot write '\(path)': No space left on device")
            #expect(try Self.read(path) == "old\r\n")
            #expect(try Self.listing(directory) == ["export.csv"])
        }
    }
}

/// Bytes handed over by a reader thread.
final class ReceivedBytes: Sendable {
    private let bytes = Mutex<Data?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func set(_ data: Data) {
        bytes.withLock { $0 = data }
        done.signal()
    }

    func wait(seconds: Double) -> Data? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return bytes.withLock { $0 }
    }
}
