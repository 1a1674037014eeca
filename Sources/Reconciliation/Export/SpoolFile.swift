import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An unnamed temporary file that collects a large ZIP entry (an xlsx export's sheet) while its CRC-32
/// and size are counted, then replays it: `ZipWriter` needs both before the entry's bytes, and memory
/// stays flat however many rows there are. Created in `$TMPDIR` (else `/tmp`) and unlinked at once, so
/// nothing is left behind whatever happens to the process.
public final class SpoolFile {
    public struct Failure: Error, CustomStringConvertible {
        let reason: String
        public var description: String { reason }
    }

    private let descriptor: Int32
    private(set) var size: UInt64 = 0
    private(set) var crc = CRC32()

    init() throws(Failure) {
        let directory = FileManager.default.temporaryDirectory.path
        var template = Array((directory + "/receipt-recon-export.XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw Failure(
                reason: "cannot create a temporary file in '\(directory)' (TMPDIR): \(String(cString: strerror(errno)))"
            )
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    func write(_ bytes: [UInt8]) throws(Failure) {
        crc.update(bytes)
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes {
                pwrite(descriptor, $0.baseAddress! + done, $0.count - done, off_t(size) + off_t(done))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(reason: "cannot write a temporary file: \(String(cString: strerror(errno)))")
            }
            done += written
        }
        size += UInt64(bytes.count)
    }

    /// Passes the bytes written, in order, in chunks of at most `chunk` bytes.
    func replay(chunk: Int = 1 << 16, to body: ([UInt8]) throws -> Void) throws {
        var buffer = [UInt8](repeating: 0, count: chunk)
        var offset: UInt64 = 0
        while offset < size {
            let want = Int(min(UInt64(chunk), size - offset))
            let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, want, off_t(offset)) }
            if read < 0 {
                if errno == EINTR { continue }
                throw Failure(reason: "cannot read a temporary file back: \(String(cString: strerror(errno)))")
            }
            guard read > 0 else { throw Failure(reason: "a temporary file was cut short while being read back") }
            try body(Array(buffer[0..<read]))
            offset += UInt64(read)
        }
    }
}
