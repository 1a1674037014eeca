import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One file the job writes: the HTML report, the metrics file, an export and its manifest, the
/// simulator's expected corrections, the demo's summary. Every one goes through here so that they all
/// follow the rules of `OutputTarget`: a regular file is replaced atomically, a device or FIFO is
/// written through, a directory is refused, a symlink's target is replaced.
///
/// Open it, `write` as often as needed (an export streams its rows, so memory stays flat), then
/// `commit`. Until `commit` returns, a regular file's old content is untouched; any failure, a
/// `discard`, or dropping the value without committing removes the temporary file, so nothing
/// partial is left behind. The one-shot `write(_:to:)` does all of that for bytes already in memory.
///
/// Used by one thread at a time; not `Sendable`.
public final class OutputFile {
    /// A write that did not happen: the path as the user gave it and what went wrong.
    public struct Failure: Error, CustomStringConvertible, Sendable, Equatable {
        public let path: String
        public let reason: String

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        public var description: String { "cannot write '\(path)': \(reason)" }
    }

    /// The path as given.
    public let path: String
    private let target: OutputTarget
    /// The temporary file a regular file is written to before the rename; nil when writing through.
    private let temporary: String?
    private var descriptor: Int32
    private var finished = false

    /// Starts writing `path`. Fails at once for a directory, a missing directory or one where no
    /// temporary file can be created, and for a device or FIFO that cannot be opened for writing.
    /// Opening a FIFO waits until something opens it for reading.
    public init(_ path: String) throws(Failure) {
        self.path = path
        target = try OutputTarget.resolve(path)
        switch target {
        case .replace(let resolved):
            let directory = OutputTarget.directory(of: resolved)
            let name = ".\(OutputTarget.name(of: resolved)).\(getpid()).\(UInt32.random(in: .min ... .max)).tmp"
            let temporary = directory == "/" ? "/" + name : directory + "/" + name
            // 0666 less the umask, as any new file; O_EXCL so nothing already there is ever written into.
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            guard descriptor >= 0 else {
                throw Failure(
                    path: path,
                    reason: "cannot create a temporary file in '\(directory)': \(OutputTarget.systemError(errno))")
            }
            self.temporary = temporary
        case .writeThrough(let device):
            descriptor = open(device, O_WRONLY | O_CLOEXEC | O_NOCTTY)
            guard descriptor >= 0 else { throw Failure(path: path, reason: OutputTarget.systemError(errno)) }
            temporary = nil
        }
    }

    deinit { discard() }

    /// True when the output replaces a regular file; false when it writes into a device or FIFO.
    /// An export writes its manifest only beside a regular file.
    public var replacesFile: Bool {
        if case .replace = target { return true }
        return false
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        guard !finished else { throw Failure(path: path, reason: "the output is already closed") }
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                discard()
                throw Failure(path: path, reason: OutputTarget.systemError(code))
            }
            offset += written
        }
    }

    public func write(_ bytes: [UInt8]) throws(Failure) {
        let outcome = bytes.withUnsafeBytes { buffer in Result { () throws(Failure) in try write(buffer) } }
        try outcome.get()
    }

    public func write(_ data: Data) throws(Failure) {
        let outcome = data.withUnsafeBytes { buffer in Result { () throws(Failure) in try write(buffer) } }
        try outcome.get()
    }

    public func write(_ text: String) throws(Failure) {
        try write(Array(text.utf8))
    }

    /// Finishes the output: a regular file is flushed to disk, closed and renamed over the target;
    /// a device or FIFO is closed. On failure the temporary file is removed and the target keeps its
    /// old content.
    public func commit() throws(Failure) {
        guard !finished else { throw Failure(path: path, reason: "the output is already closed") }
        guard case .replace(let resolved) = target, let temporary else {
            finished = true
            if close(descriptor) != 0 { throw Failure(path: path, reason: OutputTarget.systemError(errno)) }
            return
        }
        // Without the fsync a crash soon after the rename can leave the new name on an empty file.
        if fsync(descriptor) != 0 {
            let code = errno
            discard()
            throw Failure(path: path, reason: OutputTarget.systemError(code))
        }
        finished = true
        if close(descriptor) != 0 {
            let code = errno
            unlink(temporary)
            throw Failure(path: path, reason: OutputTarget.systemError(code))
        }
        guard rename(temporary, resolved) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(
                path: path, reason: "cannot rename the temporary file into place: \(OutputTarget.systemError(code))")
        }
        syncDirectory(of: resolved)
    }

    /// Abandons the output: closes it and removes the temporary file. Does nothing once committed.
    public func discard() {
        guard !finished else { return }
        finished = true
        close(descriptor)
        if let temporary { unlink(temporary) }
    }

    /// Writes `data` to `path` in one go, by the rules above.
    public static func write(_ data: Data, to path: String) throws(Failure) {
        let file = try OutputFile(path)
        try file.write(data)
        try file.commit()
    }

    public static func write(_ text: String, to path: String) throws(Failure) {
        try write(Data(text.utf8), to: path)
    }

    /// Fails now if `path` could not be written later (a directory, no such directory, a directory
    /// that refuses a new file), for a command that must not do its work and then find it cannot
    /// write the result. A device or FIFO is not opened: a FIFO would wait for its reader.
    public static func checkWritable(_ path: String) throws(Failure) {
        guard case .replace = try OutputTarget.resolve(path) else { return }
        try OutputFile(path).discard()
    }

    /// Makes the rename itself durable; a failure here changes nothing the reader sees, so it is ignored.
    private func syncDirectory(of path: String) {
        let directory = open(OutputTarget.directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return }
        fsync(directory)
        close(directory)
    }
}

#if canImport(Glibc)
    private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        Glibc.write(descriptor, bytes, count)
    }
#elseif canImport(Darwin)
    private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        Darwin.write(descriptor, bytes, count)
    }
#endif
