import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a whole file so that a reader (a browser, node_exporter's textfile collector) never sees
/// half of it: a temporary file in the same directory, then `rename(2)`.
public enum AtomicFile {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public static func write(_ text: String, to path: String) throws(Failure) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp").path
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
        } catch {
            unlink(temporary)
            throw Failure(description: "cannot write '\(path)': \(error.localizedDescription)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "cannot write '\(path)': \(reason)")
        }
    }
}
