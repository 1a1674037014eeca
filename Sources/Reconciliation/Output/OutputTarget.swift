#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How an output path is written, decided from what is at the path when the write starts.
///
/// A regular file, or nothing, is replaced through a temporary file and a rename, so a reader (a
/// browser, node_exporter, finance's import) sees the old file or the new one, never half of one.
/// Anything else that exists is written through: renaming over a character device or a FIFO would
/// put a regular file in its place, and run as root `report --html /dev/null` would take the
/// machine's `/dev/null` with it. A directory is refused. A symlink is followed, so the file it
/// points to is replaced and the link keeps pointing at the new file.
enum OutputTarget: Equatable {
    /// Create or replace the regular file at `path` (symlinks already resolved).
    case replace(path: String)
    /// Open the existing device, FIFO or socket at `path` and write into it.
    case writeThrough(path: String)

    /// What is at a path, as far as the rule above cares.
    enum Existing: Equatable {
        case nothing, regularFile, directory, other
    }

    /// The rule: what to do with what is there. A `.replace` target still has its symlinks followed.
    static func decide(_ existing: Existing, path: String) throws(OutputFile.Failure) -> OutputTarget {
        switch existing {
        case .nothing, .regularFile: return .replace(path: path)
        case .directory: throw OutputFile.Failure(path: path, reason: "it is a directory; give a file path")
        case .other: return .writeThrough(path: path)
        }
    }

    /// Looks at `path` and applies the rule.
    static func resolve(_ path: String) throws(OutputFile.Failure) -> OutputTarget {
        guard !path.isEmpty else { throw OutputFile.Failure(path: path, reason: "the path is empty") }
        var info = stat()
        let existing: Existing
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG: existing = .regularFile
            case S_IFDIR: existing = .directory
            default: existing = .other
            }
        } else if errno == ENOENT {
            // Nothing there, or a symlink whose target does not exist yet: the target is created.
            existing = .nothing
        } else {
            throw OutputFile.Failure(path: path, reason: systemError(errno))
        }
        switch try decide(existing, path: path) {
        case .replace: return .replace(path: try followLinks(path))
        case .writeThrough: return .writeThrough(path: path)
        }
    }

    /// `path` with the symlinks of its last component followed; the directories above it are left to
    /// the kernel, since the temporary file is created in the same directory as the name it replaces.
    static func followLinks(_ path: String) throws(OutputFile.Failure) -> String {
        var current = path
        for _ in 0..<40 {
            guard !current.hasSuffix("/") else {
                throw OutputFile.Failure(path: path, reason: "it names a directory; give a file path")
            }
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = buffer.withUnsafeMutableBufferPointer { bytes in
                bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    readlink(current, $0, bytes.count - 1)
                }
            }
            guard count >= 0 else {
                throw OutputFile.Failure(
                    path: path, reason: "cannot read the symlink '\(current)': \(systemError(errno))")
            }
            let target = String(decoding: buffer[0..<count], as: UTF8.self)
            current = target.hasPrefix("/") ? target : directory(of: current) + "/" + target
        }
        throw OutputFile.Failure(path: path, reason: "too many levels of symbolic links")
    }

    /// The directory part of a path: `.` for a bare name, `/` for a name at the root.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of a path.
    static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    static func systemError(_ code: Int32) -> String { String(cString: strerror(code)) }
}
